package io.krill.broker.txn;

import io.krill.broker.coordinator.CoordinatorTimer;
import io.krill.broker.interbroker.BrokerOutbox;
import io.krill.broker.security.InterBrokerConnector;
import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import io.krill.log.TopicPartition;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.WriteTxnMarkersRequest;
import io.krill.wire.message.WriteTxnMarkersResponse;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's {@link MarkerWriter}: sends WriteTxnMarkers (v1) to the leader of every partition of a
 * transaction, this broker included, as Kafka's coordinator does; so markers are appended, replicated
 * and reported to the group coordinator by one code path, the WriteTxnMarkers handler.
 *
 * <p>One thread per destination broker ({@code txn-marker-sender-<node>-to-<destination>}) drains its
 * queue and sends what it found as one request (one marker entry per transaction) over a blocking
 * {@link InterBrokerChannel}, waiting for the answer: the leader answers once the in-sync replicas have the
 * markers. A partition whose leader is unknown, moved, or failed retriably is routed again after
 * {@value #RETRY_BACKOFF_MS} ms on the coordinator's timer; a partition of a deleted topic counts as
 * done (nothing is left to mark); a connection failure retries everything it carried.
 *
 * <p>Thread-safety: the queues and threads are a {@link BrokerOutbox}'s; a job's remaining partitions are a
 * concurrent set and its completion runs once.
 */
public final class TransactionMarkerSender implements MarkerWriter, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionMarkerSender.class);
    static final long RETRY_BACKOFF_MS = 100;
    private static final int MAX_MARKERS_PER_REQUEST = 1000;
    /** WriteTxnMarkers v2 (with the transaction version, KIP-1228), which every Krill broker serves. */
    private static final short MARKERS_VERSION = 2;
    private static final int MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

    private final Supplier<MetadataImage> image;
    private final String listenerName;
    private final CoordinatorTimer timer;
    private final BrokerOutbox<Item> outbox;

    /** One transaction's markers in flight. */
    private static final class Job {
        final Markers markers;
        final Runnable onWritten;
        final Set<TopicPartition> remaining = ConcurrentHashMap.newKeySet();
        final AtomicBoolean finished = new AtomicBoolean();

        Job(Markers markers, Runnable onWritten) {
            this.markers = markers;
            this.onWritten = onWritten;
            remaining.addAll(markers.partitions());
        }

        boolean active() {
            return !finished.get() && markers.wanted().getAsBoolean();
        }

        void done(TopicPartition tp) {
            remaining.remove(tp);
            if (remaining.isEmpty() && finished.compareAndSet(false, true)) {
                onWritten.run();
            }
        }

        /** Stops the job for good: onWritten never runs. */
        void abandon() {
            finished.set(true);
        }
    }

    private record Item(Job job, TopicPartition partition) {
    }

    /**
     * @param listenerName the listener to reach other brokers on (the inter-broker one)
     * @param timeoutMs    connect timeout and the longest wait for an answer (beyond the leaders' own
     *                     wait for their in-sync replicas)
     * @param timer        runs the delayed retries
     */
    public TransactionMarkerSender(int nodeId, Supplier<MetadataImage> image, String listenerName, int timeoutMs,
                                   CoordinatorTimer timer) {
        this(nodeId, image, listenerName, InterBrokerConnector.plaintext(), timeoutMs, timer);
    }

    /** @param connector opens connections with the inter-broker listener's security (TLS, SASL) */
    public TransactionMarkerSender(int nodeId, Supplier<MetadataImage> image, String listenerName,
                                   InterBrokerConnector connector, int timeoutMs, CoordinatorTimer timer) {
        this.image = image;
        this.listenerName = listenerName;
        this.timer = timer;
        this.outbox = new BrokerOutbox<>("txn-marker-sender-" + nodeId, connector, timeoutMs, MAX_RESPONSE_BYTES,
                MAX_MARKERS_PER_REQUEST, new BrokerOutbox.Sender<>() {
                    @Override
                    public void send(BrokerOutbox.Destination<Item> destination, List<Item> batch) {
                        sendBatch(destination, batch);
                    }

                    @Override
                    public void leftOver(List<Item> items) {
                        // A destination replaced (its broker moved) or closing: route them again (route
                        // drops them once closed).
                        items.forEach(TransactionMarkerSender.this::route);
                    }
                });
    }

    @Override
    public void write(Markers markers, Runnable onWritten) {
        Job job = new Job(markers, onWritten);
        if (markers.partitions().isEmpty()) {
            if (job.finished.compareAndSet(false, true)) {
                onWritten.run();
            }
            return;
        }
        for (TopicPartition tp : markers.partitions()) {
            route(new Item(job, tp));
        }
    }

    /** Hands the item to its partition's leader's queue, or retries later while there is none. */
    private void route(Item item) {
        if (outbox.isClosed() || !item.job().active()) {
            return;
        }
        MetadataImage current = image.get();
        TopicPartition tp = item.partition();
        TopicImage topic = current.topic(tp.topic());
        if (topic == null || tp.partition() >= topic.partitionCount()) {
            LOG.info("Not writing a marker of transactional id {} to {}: the partition no longer exists",
                    item.job().markers.transactionalId(), tp);
            item.job().done(tp);
            return;
        }
        PartitionState state = topic.partition(tp.partition());
        BrokerInfo leader = state == null || !state.hasLeader() ? null : current.broker(state.leader());
        BrokerInfo.Endpoint endpoint = leader == null ? null : endpointOf(leader);
        if (endpoint == null) {
            retryLater(item);
            return;
        }
        outbox.add(leader.nodeId(), new InetSocketAddress(endpoint.host(), endpoint.port()), item);
    }

    private BrokerInfo.Endpoint endpointOf(BrokerInfo broker) {
        BrokerInfo.Endpoint endpoint = broker.endpoint(listenerName);
        if (endpoint == null && !broker.endpoints().isEmpty()) {
            endpoint = broker.endpoints().values().iterator().next();
        }
        return endpoint;
    }

    private void retryLater(Item item) {
        if (!outbox.isClosed()) {
            timer.schedule(RETRY_BACKOFF_MS, () -> route(item));
        }
    }

    private void sendBatch(BrokerOutbox.Destination<Item> destination, List<Item> batch) {
        // One marker entry per transaction: items of a job already in this request wait for the next.
        Map<Job, List<TopicPartition>> byJob = new LinkedHashMap<>();
        Set<Long> producers = new HashSet<>();
        List<Item> deferred = new ArrayList<>();
        for (Item item : batch) {
            Job job = item.job();
            if (!job.active()) {
                continue;
            }
            List<TopicPartition> partitions = byJob.get(job);
            if (partitions == null) {
                if (!producers.add(job.markers.producerId())) {
                    deferred.add(item);
                    continue;
                }
                partitions = new ArrayList<>();
                byJob.put(job, partitions);
            }
            partitions.add(item.partition());
        }
        destination.putBack(deferred);
        if (byJob.isEmpty()) {
            return;
        }
        WriteTxnMarkersRequest request = new WriteTxnMarkersRequest();
        byJob.forEach((job, partitions) -> request.markers().add(marker(job.markers, partitions)));
        WriteTxnMarkersResponse response;
        try {
            response = destination.channel().call(ApiKeys.WRITE_TXN_MARKERS, MARKERS_VERSION, request);
        } catch (IOException e) {
            LOG.info("Sending transaction markers to broker {} failed ({}); retrying", destination.brokerId, e.getMessage());
            destination.disconnect();
            byJob.forEach((job, partitions) -> partitions.forEach(tp -> retryLater(new Item(job, tp))));
            return;
        }
        Map<Long, Map<TopicPartition, Errors>> results = new HashMap<>();
        for (WriteTxnMarkersResponse.WritableTxnMarkerResult marker : response.markers()) {
            Map<TopicPartition, Errors> errors = results.computeIfAbsent(marker.producerId(), p -> new HashMap<>());
            for (WriteTxnMarkersResponse.WritableTxnMarkerTopicResult topic : marker.topics()) {
                for (WriteTxnMarkersResponse.WritableTxnMarkerPartitionResult p : topic.partitions()) {
                    errors.put(new TopicPartition(topic.name(), p.partitionIndex()), Errors.forCode(p.errorCode()));
                }
            }
        }
        byJob.forEach((job, partitions) -> {
            Map<TopicPartition, Errors> errors = results.getOrDefault(job.markers.producerId(), Map.of());
            for (TopicPartition tp : partitions) {
                handle(destination.brokerId, job, tp, errors.getOrDefault(tp, Errors.UNKNOWN_SERVER_ERROR));
            }
        });
    }

    private void handle(int brokerId, Job job, TopicPartition tp, Errors error) {
        switch (error) {
            case NONE -> job.done(tp);
            case INVALID_PRODUCER_EPOCH, TRANSACTION_COORDINATOR_FENCED, PRODUCER_FENCED -> {
                LOG.warn("Broker {} refused the {} marker of transactional id {} (producer {} epoch {}, coordinator "
                        + "epoch {}) for {} with {}: a newer producer epoch or coordinator owns it; stopping",
                        brokerId, job.markers.commit() ? "commit" : "abort", job.markers.transactionalId(),
                        job.markers.producerId(), job.markers.producerEpoch(), job.markers.coordinatorEpoch(), tp, error);
                job.abandon();
            }
            case CORRUPT_MESSAGE, MESSAGE_TOO_LARGE, RECORD_LIST_TOO_LARGE, INVALID_REQUIRED_ACKS,
                    UNSUPPORTED_FOR_MESSAGE_FORMAT -> {
                LOG.error("Broker {} cannot take the marker of transactional id {} for {}: {}; stopping", brokerId,
                        job.markers.transactionalId(), tp, error);
                job.abandon();
            }
            default -> {
                LOG.debug("Marker of transactional id {} for {} failed with {}; retrying",
                        job.markers.transactionalId(), tp, error);
                retryLater(new Item(job, tp));
            }
        }
    }

    private static WriteTxnMarkersRequest.WritableTxnMarker marker(Markers markers, List<TopicPartition> partitions) {
        Map<String, List<Integer>> byTopic = new LinkedHashMap<>();
        for (TopicPartition tp : partitions) {
            byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition());
        }
        WriteTxnMarkersRequest.WritableTxnMarker marker = new WriteTxnMarkersRequest.WritableTxnMarker()
                .setProducerId(markers.producerId())
                .setProducerEpoch(markers.producerEpoch())
                .setTransactionResult(markers.commit())
                .setCoordinatorEpoch(markers.coordinatorEpoch())
                .setTransactionVersion(markers.transactionVersion());
        byTopic.forEach((topic, indexes) -> marker.topics().add(new WriteTxnMarkersRequest.WritableTxnMarkerTopic()
                .setName(topic).setPartitionIndexes(indexes)));
        return marker;
    }

    @Override
    public void close() {
        outbox.close();
    }
}

package io.krill.broker.txn;

import io.krill.broker.security.InterBrokerChannel;
import io.krill.broker.security.InterBrokerConnector;
import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.MetadataImage;
import io.krill.log.TopicPartition;
import io.krill.wire.error.Errors;
import io.krill.wire.message.AddPartitionsToTxnRequest;
import io.krill.wire.message.AddPartitionsToTxnResponse;
import io.krill.wire.message.ApiKeys;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's {@link TransactionVerifier.Remote}: asks the transaction coordinator on another broker
 * whether partitions are in a producer's open transaction, with AddPartitionsToTxn v5 VerifyOnly (the
 * brokers' batched form, KIP-890) over the inter-broker listener, as Kafka's partition leaders and
 * group coordinators do.
 *
 * <p>Why a thread per destination ({@code txn-verifier-<node>-to-<destination>}): the connection is
 * blocking, and request threads must never wait on another broker; they only queue a verification and
 * are answered through its future. Each thread takes everything queued for its broker and sends it as
 * one request, one entry per transactional id (verifications of the same producer and epoch share it;
 * another producer id or epoch of an id already in the request waits for the next one).
 *
 * <p>Failures, as Kafka's leaders read them: a connection that fails or times out is NETWORK_EXCEPTION
 * for everything it carried (callers make it retriable); a top-level CLUSTER_AUTHORIZATION_FAILED is
 * INVALID_TXN_STATE (the client is not told of the brokers' ACLs), another top-level error goes to every
 * partition; a partition the answer leaves out is NETWORK_EXCEPTION; a broker without an endpoint is
 * COORDINATOR_NOT_AVAILABLE.
 *
 * <p>Thread-safety: the destinations map is concurrent; each destination's queue is concurrent and its
 * channel belongs to its thread; a verification's future is completed once.
 */
public final class RemoteVerificationSender implements TransactionVerifier.Remote, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RemoteVerificationSender.class);
    /** AddPartitionsToTxn v5: batched, VerifyOnly, TRANSACTION_ABORTABLE in answers; every Krill broker serves it. */
    private static final short VERSION = 5;
    private static final int MAX_PER_REQUEST = 1000;
    private static final int MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

    private final int nodeId;
    private final Supplier<MetadataImage> image;
    private final String listenerName;
    private final InterBrokerConnector connector;
    private final int timeoutMs;
    private final Map<Integer, Destination> destinations = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /** One verification waiting for its answer. */
    private record Pending(String transactionalId, long producerId, short producerEpoch, Set<TopicPartition> partitions,
                           CompletableFuture<Map<TopicPartition, Errors>> future) {
        void answer(Map<TopicPartition, Errors> errors, Errors missing) {
            Map<TopicPartition, Errors> result = new LinkedHashMap<>();
            for (TopicPartition tp : partitions) {
                result.put(tp, errors.getOrDefault(tp, missing));
            }
            future.complete(result);
        }

        void fail(Errors error) {
            future.complete(TransactionVerifier.all(partitions, error));
        }
    }

    /**
     * @param listenerName the listener to reach other brokers on (the inter-broker one)
     * @param timeoutMs    connect timeout and the longest wait for an answer ({@code request.timeout.ms})
     */
    public RemoteVerificationSender(int nodeId, Supplier<MetadataImage> image, String listenerName,
                                    InterBrokerConnector connector, int timeoutMs) {
        this.nodeId = nodeId;
        this.image = image;
        this.listenerName = listenerName;
        this.connector = connector;
        this.timeoutMs = timeoutMs;
    }

    @Override
    public CompletableFuture<Map<TopicPartition, Errors>> verify(int brokerId, String transactionalId, long producerId,
                                                                short producerEpoch, Set<TopicPartition> partitions) {
        Pending pending = new Pending(transactionalId, producerId, producerEpoch, Set.copyOf(partitions),
                new CompletableFuture<>());
        if (closed) {
            pending.fail(Errors.NETWORK_EXCEPTION);
            return pending.future();
        }
        BrokerInfo broker = image.get().broker(brokerId);
        BrokerInfo.Endpoint endpoint = broker == null ? null : endpointOf(broker);
        if (endpoint == null) {
            pending.fail(Errors.COORDINATOR_NOT_AVAILABLE);
            return pending.future();
        }
        InetSocketAddress address = new InetSocketAddress(endpoint.host(), endpoint.port());
        destinations.compute(brokerId, (id, existing) -> {
            Destination d = existing == null || !existing.address.equals(address) ? replace(existing, id, address)
                    : existing;
            d.queue.add(pending);
            return d;
        });
        if (closed) {
            // close() may have drained the queue before this verification reached it.
            pending.fail(Errors.NETWORK_EXCEPTION);
        }
        return pending.future();
    }

    private Destination replace(Destination old, int brokerId, InetSocketAddress address) {
        if (old != null) {
            old.stop();
        }
        Destination d = new Destination(brokerId, address);
        if (old != null) {
            old.queue.drainTo(d.queue);
        }
        d.thread.start();
        return d;
    }

    private BrokerInfo.Endpoint endpointOf(BrokerInfo broker) {
        BrokerInfo.Endpoint endpoint = broker.endpoint(listenerName);
        if (endpoint == null && !broker.endpoints().isEmpty()) {
            endpoint = broker.endpoints().values().iterator().next();
        }
        return endpoint;
    }

    /** One broker's queue of verifications and the thread that sends them. */
    private final class Destination implements Runnable {
        final int brokerId;
        final InetSocketAddress address;
        final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
        final Thread thread;
        volatile boolean running = true;
        private volatile InterBrokerChannel channel;

        Destination(int brokerId, InetSocketAddress address) {
            this.brokerId = brokerId;
            this.address = address;
            this.thread = new Thread(this, "txn-verifier-" + nodeId + "-to-" + brokerId);
            this.thread.setDaemon(true);
        }

        @Override
        public void run() {
            while (running && !closed) {
                List<Pending> batch = new ArrayList<>();
                try {
                    Pending first = queue.poll(500, TimeUnit.MILLISECONDS);
                    if (first == null) {
                        continue;
                    }
                    batch.add(first);
                    queue.drainTo(batch, MAX_PER_REQUEST - 1);
                } catch (InterruptedException e) {
                    break;
                }
                send(batch);
            }
            disconnect();
            failQueued();
        }

        /** Sends one request for {@code batch}; verifications that cannot share it go back to the queue. */
        private void send(List<Pending> batch) {
            Map<String, List<Pending>> byId = new LinkedHashMap<>();
            List<Pending> later = new ArrayList<>();
            for (Pending p : batch) {
                List<Pending> sameId = byId.get(p.transactionalId());
                if (sameId == null) {
                    byId.put(p.transactionalId(), new ArrayList<>(List.of(p)));
                } else if (sameId.get(0).producerId() == p.producerId()
                        && sameId.get(0).producerEpoch() == p.producerEpoch()) {
                    sameId.add(p);
                } else {
                    later.add(p);
                }
            }
            queue.addAll(later);
            AddPartitionsToTxnRequest request = new AddPartitionsToTxnRequest();
            byId.values().forEach(sameId -> request.transactions().add(transaction(sameId)));
            AddPartitionsToTxnResponse response;
            try {
                response = connect().call(ApiKeys.ADD_PARTITIONS_TO_TXN, VERSION, request);
            } catch (IOException e) {
                LOG.info("Verifying {} transactions with the coordinator on broker {} failed ({}); answered {}",
                        byId.size(), brokerId, e.getMessage(), Errors.NETWORK_EXCEPTION);
                disconnect();
                byId.values().forEach(sameId -> sameId.forEach(p -> p.fail(Errors.NETWORK_EXCEPTION)));
                return;
            }
            if (response.errorCode() != Errors.NONE.code()) {
                Errors error = Errors.forCode(response.errorCode());
                LOG.warn("Broker {} refused to verify transactions: {}", brokerId, error);
                Errors told = error == Errors.CLUSTER_AUTHORIZATION_FAILED ? Errors.INVALID_TXN_STATE : error;
                byId.values().forEach(sameId -> sameId.forEach(p -> p.fail(told)));
                return;
            }
            Map<String, Map<TopicPartition, Errors>> results = new HashMap<>();
            for (AddPartitionsToTxnResponse.AddPartitionsToTxnResult result : response.resultsByTransaction()) {
                Map<TopicPartition, Errors> errors = results.computeIfAbsent(result.transactionalId(),
                        id -> new HashMap<>());
                for (AddPartitionsToTxnResponse.AddPartitionsToTxnTopicResult topic : result.topicResults()) {
                    for (AddPartitionsToTxnResponse.AddPartitionsToTxnPartitionResult p : topic.resultsByPartition()) {
                        errors.put(new TopicPartition(topic.name(), p.partitionIndex()),
                                Errors.forCode(p.partitionErrorCode()));
                    }
                }
            }
            byId.forEach((id, sameId) -> sameId.forEach(p -> p.answer(results.getOrDefault(id, Map.of()),
                    Errors.NETWORK_EXCEPTION)));
        }

        private InterBrokerChannel connect() throws IOException {
            InterBrokerChannel current = channel;
            if (current == null) {
                current = InterBrokerChannel.connect(connector, address, timeoutMs, 0, "txn-verifier-" + nodeId,
                        MAX_RESPONSE_BYTES);
                channel = current;
                if (!running || closed) {
                    current.close();
                    throw new IOException("transaction verifier stopped");
                }
            }
            return current;
        }

        private void disconnect() {
            InterBrokerChannel current = channel;
            channel = null;
            if (current != null) {
                current.close();
            }
        }

        /**
         * Answers what is still queued once the thread stops (closed, or replaced by a destination at a new
         * address, which took the queue as it was then): those verifications are not made.
         */
        private void failQueued() {
            List<Pending> left = new ArrayList<>();
            queue.drainTo(left);
            left.forEach(p -> p.fail(Errors.NETWORK_EXCEPTION));
        }

        void stop() {
            running = false;
            disconnect();
            thread.interrupt();
        }
    }

    /** One transaction's entry: the union of the partitions of its verifications. */
    private static AddPartitionsToTxnRequest.AddPartitionsToTxnTransaction transaction(List<Pending> sameId) {
        Pending first = sameId.get(0);
        Map<String, Set<Integer>> byTopic = new LinkedHashMap<>();
        for (Pending p : sameId) {
            for (TopicPartition tp : p.partitions()) {
                byTopic.computeIfAbsent(tp.topic(), t -> new LinkedHashSet<>()).add(tp.partition());
            }
        }
        AddPartitionsToTxnRequest.AddPartitionsToTxnTransaction txn =
                new AddPartitionsToTxnRequest.AddPartitionsToTxnTransaction()
                .setTransactionalId(first.transactionalId())
                .setProducerId(first.producerId())
                .setProducerEpoch(first.producerEpoch())
                .setVerifyOnly(true);
        byTopic.forEach((topic, indexes) -> txn.topics().add(new AddPartitionsToTxnRequest.AddPartitionsToTxnTopic()
                .setName(topic).setPartitions(new ArrayList<>(indexes))));
        return txn;
    }

    /** Stops every destination thread; verifications not yet answered are answered NETWORK_EXCEPTION. */
    @Override
    public void close() {
        closed = true;
        List<Destination> all = new ArrayList<>(destinations.values());
        destinations.clear();
        for (Destination d : all) {
            d.stop();
        }
        for (Destination d : all) {
            try {
                d.thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}

package io.krill.broker.txn;

import io.krill.broker.interbroker.BrokerOutbox;
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
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's {@link TransactionVerifier.Remote}: asks the transaction coordinator on another broker
 * whether partitions are in a producer's open transaction, with AddPartitionsToTxn v5 VerifyOnly (the
 * brokers' batched form, KIP-890) over the inter-broker listener, as Kafka's partition leaders and
 * group coordinators do; or, for transaction version 2, adds them (VerifyOnly false).
 *
 * <p>Why a thread per destination ({@code txn-verifier-<node>-to-<destination>}): the connection is
 * blocking, and request threads must never wait on another broker; they only queue a verification and
 * are answered through its future. Each thread takes everything queued for its broker and sends it as
 * one request, one entry per transactional id (verifications of the same producer and epoch, all adds or
 * all checks, share it; anything else for an id already in the request waits for the next one).
 *
 * <p>Failures, as Kafka's leaders read them: a connection that fails or times out is NETWORK_EXCEPTION
 * for everything it carried (callers make it retriable); a top-level CLUSTER_AUTHORIZATION_FAILED is
 * INVALID_TXN_STATE (the client is not told of the brokers' ACLs), another top-level error goes to every
 * partition; a partition the answer leaves out is NETWORK_EXCEPTION; a broker without an endpoint is
 * COORDINATOR_NOT_AVAILABLE.
 *
 * <p>Thread-safety: the queues and threads are a {@link BrokerOutbox}'s; a verification's future is
 * completed once.
 */
public final class RemoteVerificationSender implements TransactionVerifier.Remote, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RemoteVerificationSender.class);
    /** AddPartitionsToTxn v5: batched, VerifyOnly, TRANSACTION_ABORTABLE in answers; every Krill broker serves it. */
    private static final short VERSION = 5;
    private static final int MAX_PER_REQUEST = 1000;
    private static final int MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

    private final Supplier<MetadataImage> image;
    private final String listenerName;
    private final BrokerOutbox<Pending> outbox;

    /** One verification waiting for its answer. */
    private record Pending(String transactionalId, long producerId, short producerEpoch, Set<TopicPartition> partitions,
                           boolean add, CompletableFuture<Map<TopicPartition, Errors>> future) {
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
        this.image = image;
        this.listenerName = listenerName;
        this.outbox = new BrokerOutbox<>("txn-verifier-" + nodeId, connector, timeoutMs, MAX_RESPONSE_BYTES,
                MAX_PER_REQUEST, new BrokerOutbox.Sender<>() {
                    @Override
                    public void send(BrokerOutbox.Destination<Pending> destination, List<Pending> batch) {
                        RemoteVerificationSender.this.send(destination, batch);
                    }

                    @Override
                    public void leftOver(List<Pending> items) {
                        // Not made: the destination stopped (closing, or its broker moved) before sending them.
                        items.forEach(p -> p.fail(Errors.NETWORK_EXCEPTION));
                    }
                });
    }

    @Override
    public CompletableFuture<Map<TopicPartition, Errors>> verify(int brokerId, String transactionalId, long producerId,
                                                                short producerEpoch, Set<TopicPartition> partitions,
                                                                boolean add) {
        Pending pending = new Pending(transactionalId, producerId, producerEpoch, Set.copyOf(partitions), add,
                new CompletableFuture<>());
        if (outbox.isClosed()) {
            pending.fail(Errors.NETWORK_EXCEPTION);
            return pending.future();
        }
        BrokerInfo broker = image.get().broker(brokerId);
        BrokerInfo.Endpoint endpoint = broker == null ? null : endpointOf(broker);
        if (endpoint == null) {
            pending.fail(Errors.COORDINATOR_NOT_AVAILABLE);
            return pending.future();
        }
        outbox.add(brokerId, new InetSocketAddress(endpoint.host(), endpoint.port()), pending);
        return pending.future();
    }

    private BrokerInfo.Endpoint endpointOf(BrokerInfo broker) {
        BrokerInfo.Endpoint endpoint = broker.endpoint(listenerName);
        if (endpoint == null && !broker.endpoints().isEmpty()) {
            endpoint = broker.endpoints().values().iterator().next();
        }
        return endpoint;
    }

    /** Sends one request for {@code batch}; verifications that cannot share it go back to the queue. */
    private void send(BrokerOutbox.Destination<Pending> destination, List<Pending> batch) {
        Map<String, List<Pending>> byId = new LinkedHashMap<>();
        List<Pending> later = new ArrayList<>();
        for (Pending p : batch) {
            List<Pending> sameId = byId.get(p.transactionalId());
            if (sameId == null) {
                byId.put(p.transactionalId(), new ArrayList<>(List.of(p)));
            } else if (sameId.get(0).producerId() == p.producerId()
                    && sameId.get(0).producerEpoch() == p.producerEpoch() && sameId.get(0).add() == p.add()) {
                sameId.add(p);
            } else {
                later.add(p);
            }
        }
        destination.putBack(later);
        AddPartitionsToTxnRequest request = new AddPartitionsToTxnRequest();
        byId.values().forEach(sameId -> request.transactions().add(transaction(sameId)));
        AddPartitionsToTxnResponse response;
        try {
            response = destination.channel().call(ApiKeys.ADD_PARTITIONS_TO_TXN, VERSION, request);
        } catch (IOException e) {
            LOG.info("Verifying {} transactions with the coordinator on broker {} failed ({}); answered {}",
                    byId.size(), destination.brokerId, e.getMessage(), Errors.NETWORK_EXCEPTION);
            destination.disconnect();
            byId.values().forEach(sameId -> sameId.forEach(p -> p.fail(Errors.NETWORK_EXCEPTION)));
            return;
        }
        if (response.errorCode() != Errors.NONE.code()) {
            Errors error = Errors.forCode(response.errorCode());
            LOG.warn("Broker {} refused to verify transactions: {}", destination.brokerId, error);
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
                .setVerifyOnly(!first.add());
        byTopic.forEach((topic, indexes) -> txn.topics().add(new AddPartitionsToTxnRequest.AddPartitionsToTxnTopic()
                .setName(topic).setPartitions(new ArrayList<>(indexes))));
        return txn;
    }

    /** Stops every destination thread; verifications not yet answered are answered NETWORK_EXCEPTION. */
    @Override
    public void close() {
        outbox.close();
    }
}

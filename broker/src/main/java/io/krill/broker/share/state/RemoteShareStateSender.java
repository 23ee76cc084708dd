package io.krill.broker.share.state;

import io.krill.broker.interbroker.BrokerOutbox;
import io.krill.broker.security.InterBrokerConnector;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.DeleteShareGroupStateRequest;
import io.krill.wire.message.DeleteShareGroupStateResponse;
import io.krill.wire.message.InitializeShareGroupStateRequest;
import io.krill.wire.message.InitializeShareGroupStateResponse;
import io.krill.wire.message.ReadShareGroupStateRequest;
import io.krill.wire.message.ReadShareGroupStateResponse;
import io.krill.wire.message.ReadShareGroupStateSummaryRequest;
import io.krill.wire.message.ReadShareGroupStateSummaryResponse;
import io.krill.wire.message.WriteShareGroupStateRequest;
import io.krill.wire.message.WriteShareGroupStateResponse;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls the share coordinator on another broker: Initialize/Read/Write/DeleteShareGroupState and
 * ReadShareGroupStateSummary over the inter-broker listener, through a {@link BrokerOutbox} (a queue and a
 * thread per destination, {@code share-state-<node>-to-<destination>}), so that no caller waits on another
 * broker. Each thread sends what is queued for its broker as few requests as it can: one per kind of call
 * and group, every share-partition at most once per request (a second call for the same one goes in a
 * later request of the same round trip, so calls on one share-partition keep their order).
 *
 * <p>Failures: a connection that fails or times out is NETWORK_EXCEPTION for every call it carried, as is a
 * share-partition the answer leaves out (the persister retries both); a share-partition's error is its
 * call's; an answer that cannot be read is UNKNOWN_SERVER_ERROR for its calls.
 *
 * <p>Thread-safety: the queues and threads are the outbox's; a call's future is completed once.
 */
final class RemoteShareStateSender implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RemoteShareStateSender.class);
    private static final int MAX_PER_REQUEST = 1000;
    private static final int MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

    enum Kind { INITIALIZE, READ, WRITE, READ_SUMMARY, DELETE }

    /** One call waiting for its answer; {@code future} completes with a ShareState, a ShareStateSummary or null. */
    record Call(Kind kind, SharePartitionKey key, int stateEpoch, int leaderEpoch, long startOffset,
                List<StateBatch> batches, CompletableFuture<Object> future) {
        void fail(Errors error, String message) {
            future.completeExceptionally(new ApiException(error, message));
        }
    }

    private final BrokerOutbox<Call> outbox;

    /** @param timeoutMs connect timeout and the longest wait for an answer */
    RemoteShareStateSender(int nodeId, InterBrokerConnector connector, int timeoutMs) {
        this.outbox = new BrokerOutbox<>("share-state-" + nodeId, connector, timeoutMs, MAX_RESPONSE_BYTES,
                MAX_PER_REQUEST, new BrokerOutbox.Sender<>() {
                    @Override
                    public void send(BrokerOutbox.Destination<Call> destination, List<Call> batch) {
                        RemoteShareStateSender.this.send(destination, batch);
                    }

                    @Override
                    public void leftOver(List<Call> calls) {
                        calls.forEach(c -> c.fail(Errors.NETWORK_EXCEPTION, "not sent: the sender stopped"));
                    }
                });
    }

    /** Queues {@code call} for the broker {@code brokerId} at {@code address}. */
    void send(int brokerId, InetSocketAddress address, Call call) {
        outbox.add(brokerId, address, call);
    }

    private record Group(Kind kind, String groupId) {
    }

    /**
     * Sends {@code batch} in rounds: each round takes the first call not yet sent of every share-partition,
     * so a share-partition's calls go in the order they were queued, one per request.
     */
    private void send(BrokerOutbox.Destination<Call> destination, List<Call> batch) {
        List<Call> left = batch;
        while (!left.isEmpty()) {
            Map<Group, List<Call>> requests = new LinkedHashMap<>();
            Set<SharePartitionKey> taken = new HashSet<>();
            List<Call> later = new ArrayList<>();
            for (Call call : left) {
                if (!taken.add(call.key())) {
                    later.add(call);
                } else {
                    requests.computeIfAbsent(new Group(call.kind(), call.key().groupId()), g -> new ArrayList<>())
                            .add(call);
                }
            }
            requests.forEach((group, calls) -> sendOrFail(destination, group, calls));
            left = later;
        }
    }

    private void sendOrFail(BrokerOutbox.Destination<Call> destination, Group group, List<Call> calls) {
        try {
            sendOne(destination, group, calls);
        } catch (IOException e) {
            LOG.info("{} of {} share-partitions on broker {} failed ({}); answered {}", group.kind(), calls.size(),
                    destination.brokerId, e.getMessage(), Errors.NETWORK_EXCEPTION);
            destination.disconnect();
            calls.forEach(c -> c.fail(Errors.NETWORK_EXCEPTION, e.getMessage()));
        } catch (RuntimeException e) {
            // An answer this broker cannot take (a batch ending before it starts, say): its calls fail, the
            // destination's thread goes on.
            LOG.warn("{} on broker {}: unusable answer", group.kind(), destination.brokerId, e);
            calls.forEach(c -> c.fail(Errors.UNKNOWN_SERVER_ERROR, String.valueOf(e)));
        }
    }

    private record PartitionOutcome(short errorCode, String message, Object value) {
    }

    /** One request for {@code calls}, which share a kind and a group; each call gets its partition's outcome. */
    private void sendOne(BrokerOutbox.Destination<Call> destination, Group group, List<Call> calls) throws IOException {
        Map<UUID, Map<Integer, PartitionOutcome>> outcomes = new HashMap<>();
        switch (group.kind()) {
            case INITIALIZE -> {
                InitializeShareGroupStateRequest request = new InitializeShareGroupStateRequest().setGroupId(group.groupId());
                Map<UUID, InitializeShareGroupStateRequest.InitializeStateData> topics = new LinkedHashMap<>();
                for (Call c : calls) {
                    topics.computeIfAbsent(c.key().topicId(), id -> {
                        InitializeShareGroupStateRequest.InitializeStateData t =
                                new InitializeShareGroupStateRequest.InitializeStateData().setTopicId(id);
                        request.topics().add(t);
                        return t;
                    }).partitions().add(new InitializeShareGroupStateRequest.PartitionData()
                            .setPartition(c.key().partition()).setStateEpoch(c.stateEpoch())
                            .setStartOffset(c.startOffset()));
                }
                InitializeShareGroupStateResponse response = destination.channel()
                        .call(ApiKeys.INITIALIZE_SHARE_GROUP_STATE, (short) 0, request);
                for (InitializeShareGroupStateResponse.InitializeStateResult t : response.results()) {
                    for (InitializeShareGroupStateResponse.PartitionResult p : t.partitions()) {
                        put(outcomes, t.topicId(), p.partition(), new PartitionOutcome(p.errorCode(), p.errorMessage(), null));
                    }
                }
            }
            case READ -> {
                ReadShareGroupStateRequest request = new ReadShareGroupStateRequest().setGroupId(group.groupId());
                Map<UUID, ReadShareGroupStateRequest.ReadStateData> topics = new LinkedHashMap<>();
                Map<SharePartitionKey, Integer> epochs = new HashMap<>();
                for (Call c : calls) {
                    epochs.put(c.key(), c.leaderEpoch());
                    topics.computeIfAbsent(c.key().topicId(), id -> {
                        ReadShareGroupStateRequest.ReadStateData t = new ReadShareGroupStateRequest.ReadStateData()
                                .setTopicId(id);
                        request.topics().add(t);
                        return t;
                    }).partitions().add(new ReadShareGroupStateRequest.PartitionData()
                            .setPartition(c.key().partition()).setLeaderEpoch(c.leaderEpoch()));
                }
                ReadShareGroupStateResponse response = destination.channel()
                        .call(ApiKeys.READ_SHARE_GROUP_STATE, (short) 0, request);
                for (ReadShareGroupStateResponse.ReadStateResult t : response.results()) {
                    for (ReadShareGroupStateResponse.PartitionResult p : t.partitions()) {
                        Integer epoch = epochs.get(new SharePartitionKey(group.groupId(), t.topicId(), p.partition()));
                        Object state = p.errorCode() != 0 || epoch == null ? null : stateOf(p, epoch);
                        put(outcomes, t.topicId(), p.partition(), new PartitionOutcome(p.errorCode(), p.errorMessage(), state));
                    }
                }
            }
            case WRITE -> {
                WriteShareGroupStateRequest request = new WriteShareGroupStateRequest().setGroupId(group.groupId());
                Map<UUID, WriteShareGroupStateRequest.WriteStateData> topics = new LinkedHashMap<>();
                for (Call c : calls) {
                    WriteShareGroupStateRequest.PartitionData p = new WriteShareGroupStateRequest.PartitionData()
                            .setPartition(c.key().partition()).setStateEpoch(c.stateEpoch())
                            .setLeaderEpoch(c.leaderEpoch()).setStartOffset(c.startOffset());
                    for (StateBatch b : c.batches()) {
                        p.stateBatches().add(new WriteShareGroupStateRequest.StateBatch().setFirstOffset(b.firstOffset())
                                .setLastOffset(b.lastOffset()).setDeliveryState(b.deliveryState())
                                .setDeliveryCount(b.deliveryCount()));
                    }
                    topics.computeIfAbsent(c.key().topicId(), id -> {
                        WriteShareGroupStateRequest.WriteStateData t = new WriteShareGroupStateRequest.WriteStateData()
                                .setTopicId(id);
                        request.topics().add(t);
                        return t;
                    }).partitions().add(p);
                }
                WriteShareGroupStateResponse response = destination.channel()
                        .call(ApiKeys.WRITE_SHARE_GROUP_STATE, (short) 1, request);
                for (WriteShareGroupStateResponse.WriteStateResult t : response.results()) {
                    for (WriteShareGroupStateResponse.PartitionResult p : t.partitions()) {
                        put(outcomes, t.topicId(), p.partition(), new PartitionOutcome(p.errorCode(), p.errorMessage(), null));
                    }
                }
            }
            case READ_SUMMARY -> {
                ReadShareGroupStateSummaryRequest request = new ReadShareGroupStateSummaryRequest()
                        .setGroupId(group.groupId());
                Map<UUID, ReadShareGroupStateSummaryRequest.ReadStateSummaryData> topics = new LinkedHashMap<>();
                for (Call c : calls) {
                    topics.computeIfAbsent(c.key().topicId(), id -> {
                        ReadShareGroupStateSummaryRequest.ReadStateSummaryData t =
                                new ReadShareGroupStateSummaryRequest.ReadStateSummaryData().setTopicId(id);
                        request.topics().add(t);
                        return t;
                    }).partitions().add(new ReadShareGroupStateSummaryRequest.PartitionData()
                            .setPartition(c.key().partition()).setLeaderEpoch(c.leaderEpoch()));
                }
                ReadShareGroupStateSummaryResponse response = destination.channel()
                        .call(ApiKeys.READ_SHARE_GROUP_STATE_SUMMARY, (short) 1, request);
                for (ReadShareGroupStateSummaryResponse.ReadStateSummaryResult t : response.results()) {
                    for (ReadShareGroupStateSummaryResponse.PartitionResult p : t.partitions()) {
                        put(outcomes, t.topicId(), p.partition(), new PartitionOutcome(p.errorCode(), p.errorMessage(),
                                new ShareStateSummary(p.stateEpoch(), p.startOffset(), p.leaderEpoch(),
                                        p.deliveryCompleteCount())));
                    }
                }
            }
            case DELETE -> {
                DeleteShareGroupStateRequest request = new DeleteShareGroupStateRequest().setGroupId(group.groupId());
                Map<UUID, DeleteShareGroupStateRequest.DeleteStateData> topics = new LinkedHashMap<>();
                for (Call c : calls) {
                    topics.computeIfAbsent(c.key().topicId(), id -> {
                        DeleteShareGroupStateRequest.DeleteStateData t = new DeleteShareGroupStateRequest.DeleteStateData()
                                .setTopicId(id);
                        request.topics().add(t);
                        return t;
                    }).partitions().add(new DeleteShareGroupStateRequest.PartitionData().setPartition(c.key().partition()));
                }
                DeleteShareGroupStateResponse response = destination.channel()
                        .call(ApiKeys.DELETE_SHARE_GROUP_STATE, (short) 0, request);
                for (DeleteShareGroupStateResponse.DeleteStateResult t : response.results()) {
                    for (DeleteShareGroupStateResponse.PartitionResult p : t.partitions()) {
                        put(outcomes, t.topicId(), p.partition(), new PartitionOutcome(p.errorCode(), p.errorMessage(), null));
                    }
                }
            }
            default -> throw new IllegalStateException("unknown call kind " + group.kind());
        }
        for (Call call : calls) {
            PartitionOutcome outcome = outcomes.getOrDefault(call.key().topicId(), Map.of()).get(call.key().partition());
            if (outcome == null) {
                call.fail(Errors.NETWORK_EXCEPTION, "broker " + destination.brokerId + " did not answer for " + call.key());
            } else if (outcome.errorCode() != Errors.NONE.code()) {
                call.fail(Errors.forCode(outcome.errorCode()), outcome.message());
            } else {
                call.future().complete(outcome.value());
            }
        }
    }

    private static void put(Map<UUID, Map<Integer, PartitionOutcome>> outcomes, UUID topicId, int partition,
                            PartitionOutcome outcome) {
        outcomes.computeIfAbsent(topicId, id -> new HashMap<>()).put(partition, outcome);
    }

    /** The RPC does not carry the leader epoch: a successful read has made the caller's the key's. */
    private static ShareState stateOf(ReadShareGroupStateResponse.PartitionResult p, int leaderEpoch) {
        List<StateBatch> batches = new ArrayList<>(p.stateBatches().size());
        for (ReadShareGroupStateResponse.StateBatch b : p.stateBatches()) {
            batches.add(new StateBatch(b.firstOffset(), b.lastOffset(), b.deliveryState(), b.deliveryCount()));
        }
        return new ShareState(p.stateEpoch(), p.startOffset(), leaderEpoch, batches);
    }

    /** Stops every destination thread; calls not yet answered fail with NETWORK_EXCEPTION. */
    @Override
    public void close() {
        outbox.close();
    }
}

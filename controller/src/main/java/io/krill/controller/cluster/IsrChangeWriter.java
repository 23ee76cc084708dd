package io.krill.controller.cluster;

import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.PartitionState;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.controller.metadata.ApiError;
import io.krill.controller.metadata.IsrChange;
import io.krill.controller.metadata.IsrChangeResult;
import io.krill.controller.metadata.TopicPartitionKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A partition leader's ISR changes (Kafka's AlterPartition), written as compare-and-sets of the
 * partition's record ({@link PartitionRecords}); the eligible leader replicas follow the new ISR
 * ({@link EligibleLeaderReplicas#track}: a follower shrunk out of an ISR below the minimum becomes eligible,
 * one that rejoins leaves the ELR, an ISR back at the minimum clears it).
 *
 * <p>Thread-safe: no state of its own; concurrent writers are ordered by the records' versions.
 */
final class IsrChangeWriter {

    private final StoreContext context;
    private final PartitionRecords records;

    IsrChangeWriter(StoreContext context) {
        this.context = context;
        this.records = context.records();
    }

    /**
     * The ISR change of a leader, as a compare-and-set on the partition's record: the caller must be
     * the leader at {@code expected}'s leader epoch (else FENCED_LEADER_EPOCH) and the record still at
     * {@code expected}'s partition epoch (else INVALID_UPDATE_VERSION); the ISR must keep the leader,
     * stay within the replicas, and add only live brokers (else INELIGIBLE_REPLICA).
     */
    PartitionState alterPartition(String topic, PartitionState expected, PartitionState proposed) {
        IsrChangeResult result = alterPartitions(List.of(new IsrChange(topic, expected, proposed))).get(0);
        if (!result.error().isSuccess()) {
            throw new ApiException(result.error().error(), result.error().message());
        }
        return result.state();
    }

    /**
     * The ISR changes of many partitions, each decided as {@link #alterPartition} describes and written by
     * {@link PartitionRecords#updateAll} (a few pipelined multi-ops, the first round guessed from this
     * broker's image: a stale guess fails its version check and is read), then one image for all. A
     * write that landed before a lost connection is recognised on the re-read (the record equals what was
     * meant) and reported as done.
     */
    List<IsrChangeResult> alterPartitions(List<IsrChange> changes) {
        context.ensureOpen();
        ApiError[] errors = new ApiError[changes.size()];
        Map<TopicPartitionKey, Integer> indexOf = new LinkedHashMap<>();
        Map<TopicPartitionKey, PartitionState> intendedOf = new HashMap<>();
        for (int i = 0; i < changes.size(); i++) {
            IsrChange change = changes.get(i);
            TopicPartitionKey key = new TopicPartitionKey(change.topic(), change.expected().partition());
            try {
                checkProposal(change.topic(), change.expected(), change.proposed());
                if (indexOf.putIfAbsent(key, i) != null) {
                    throw new ApiException(Errors.INVALID_REQUEST, "two ISR changes of " + key + " in one batch");
                }
            } catch (ApiException e) {
                errors[i] = ApiError.of(e);
            }
        }
        Map<TopicPartitionKey, ApiError> refused = new HashMap<>();
        Set<TopicPartitionKey> alreadyWritten = new HashSet<>();
        Map<TopicPartitionKey, PartitionState> written = context.guarded(() -> records.updateAll(indexOf.keySet(),
                (topic, state) -> {
                    TopicPartitionKey key = new TopicPartitionKey(topic, state.partition());
                    IsrChange change = changes.get(indexOf.get(key));
                    PartitionState expected = change.expected();
                    MetadataImage image = context.image();
                    PartitionState intended = EligibleLeaderReplicas.track(state, new PartitionState(
                            state.partition(), expected.leader(), expected.leaderEpoch(), state.replicas(),
                            change.proposed().isr(), expected.partitionEpoch() + 1, state.addingReplicas(),
                            state.removingReplicas(), state.eligibleLeaderReplicas(), state.lastKnownElr()),
                            context.elrSettings(image, image.topic(topic)), EligibleLeaderReplicas.NONE);
                    intendedOf.put(key, intended);
                    refused.remove(key);
                    if (state.leaderEpoch() != expected.leaderEpoch() || state.leader() != expected.leader()) {
                        refused.put(key, new ApiError(Errors.FENCED_LEADER_EPOCH, "leader " + expected.leader()
                                + " at epoch " + expected.leaderEpoch() + " of " + key + " is fenced: the leader is "
                                + state.leader() + " at epoch " + state.leaderEpoch()));
                        return null;
                    }
                    if (state.partitionEpoch() != expected.partitionEpoch()) {
                        if (state.equals(intended)) {
                            alreadyWritten.add(key); // our own write, landed before a lost connection
                        } else {
                            refused.put(key, new ApiError(Errors.INVALID_UPDATE_VERSION, "partition epoch "
                                    + expected.partitionEpoch() + " of " + key + " is stale, current is "
                                    + state.partitionEpoch()));
                        }
                        return null;
                    }
                    return intended;
                }, PartitionRecords.asIn(context.image())));
        if (!indexOf.isEmpty()) {
            // The events of this session's writes come before their answers, and each multi carries a
            // digest of its records: the next image shows them without a read.
            context.await(context.watcher().barrier());
        }
        List<IsrChangeResult> results = new ArrayList<>(changes.size());
        for (int i = 0; i < changes.size(); i++) {
            IsrChange change = changes.get(i);
            TopicPartitionKey key = new TopicPartitionKey(change.topic(), change.expected().partition());
            if (errors[i] != null) {
                results.add(new IsrChangeResult(change, null, errors[i]));
            } else if (written.containsKey(key)) {
                results.add(new IsrChangeResult(change, written.get(key), ApiError.NONE));
            } else if (alreadyWritten.contains(key)) {
                results.add(new IsrChangeResult(change, intendedOf.get(key), ApiError.NONE));
            } else if (refused.containsKey(key)) {
                results.add(new IsrChangeResult(change, null, refused.get(key)));
            } else {
                results.add(new IsrChangeResult(change, null, new ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION,
                        "This server does not host this topic-partition: " + key)));
            }
        }
        return results;
    }

    private void checkProposal(String topic, PartitionState expected, PartitionState proposed) {
        String where = topic + "-" + expected.partition();
        if (proposed.partition() != expected.partition() || proposed.leader() != expected.leader()
                || proposed.leaderEpoch() != expected.leaderEpoch()) {
            throw new ApiException(Errors.INVALID_REQUEST, "an ISR change of " + where
                    + " may not change the partition, leader or leader epoch");
        }
        if (!proposed.isr().contains(proposed.leader())) {
            throw new ApiException(Errors.INVALID_REQUEST, "the ISR of " + where + " must include its leader "
                    + proposed.leader());
        }
        if (new HashSet<>(proposed.isr()).size() != proposed.isr().size()
                || !expected.replicas().containsAll(proposed.isr())) {
            throw new ApiException(Errors.INVALID_REQUEST, "ISR " + proposed.isr() + " of " + where
                    + " is not a set of its replicas " + expected.replicas());
        }
        MetadataImage current = context.image();
        for (int replica : proposed.isr()) {
            if (!expected.isr().contains(replica) && current.broker(replica) == null) {
                throw new ApiException(Errors.INELIGIBLE_REPLICA, "broker " + replica + " cannot join the ISR of "
                        + where + ": it is not live");
            }
        }
    }
}

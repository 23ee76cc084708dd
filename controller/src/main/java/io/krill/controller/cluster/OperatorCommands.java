package io.krill.controller.cluster;

import io.krill.controller.metadata.ApiError;
import io.krill.controller.metadata.ElectionType;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicNames;
import io.krill.controller.metadata.TopicPartitionKey;
import io.krill.controller.topic.TopicRequests;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.IntPredicate;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Operators' changes of leadership and replicas (leader elections, partition reassignments) and the
 * active controller's completion of reassignments: each a compare-and-set of the partition's record,
 * which the election rule then keeps. A request's partitions are written together
 * ({@link PartitionRecords#updateAll}: one pipelined round of reads, multis of up to 500 with their
 * digest), so electing the preferred leaders of ten thousand partitions costs a few round trips, not
 * four per partition.
 *
 * <p>Thread-safe: no state of its own; requests come from any (blocking) thread, completions from the
 * controller thread, and concurrent writers are ordered by the records' versions.
 */
final class OperatorCommands {
    private static final Logger LOG = LoggerFactory.getLogger(OperatorCommands.class);

    private final StoreContext context;
    private final PartitionRecords records;

    OperatorCommands(StoreContext context) {
        this.context = context;
        this.records = context.records();
    }

    /**
     * Preferred or unclean elections, each a compare-and-set of the record by this broker ({@link
     * LeaderElection#preferred}, {@link LeaderElection#unclean}) with liveness from this broker's image.
     * The election rule keeps the new leader (it is live and in the ISR); the old and the new leader
     * learn their roles from their images.
     */
    Map<TopicPartitionKey, ApiError> electLeaders(ElectionType type, Collection<TopicPartitionKey> partitions) {
        context.ensureOpen();
        IntPredicate live = liveInImage();
        Map<TopicPartitionKey, UnaryOperator<PartitionState>> changes = new LinkedHashMap<>();
        for (TopicPartitionKey key : partitions) {
            changes.put(key, state -> {
                if (type == ElectionType.PREFERRED) {
                    return LeaderElection.preferred(state, live);
                }
                MetadataImage image = context.image();
                return LeaderElection.unclean(state, live, context.elrSettings(image, image.topic(key.topic())));
            });
        }
        return changePartitions(changes);
    }

    /**
     * Starts, replaces or cancels reassignments ({@link ReassignmentRules}): each a compare-and-set of
     * the record; new replicas learn from their images that they follow. The active controller completes
     * them once their targets are in the ISR.
     */
    Map<TopicPartitionKey, ApiError> alterPartitionReassignments(
            Map<TopicPartitionKey, Optional<List<Integer>>> targets, boolean allowReplicationFactorChange) {
        context.ensureOpen();
        IntPredicate live = liveInImage();
        Map<TopicPartitionKey, UnaryOperator<PartitionState>> changes = new LinkedHashMap<>();
        targets.forEach((key, target) -> {
            if (target.isEmpty()) {
                changes.put(key, state -> ReassignmentRules.cancel(state, live));
                return;
            }
            List<Integer> replicas = List.copyOf(target.get());
            changes.put(key, state -> {
                TopicRequests.checkAssignment(replicas, TopicRequests.liveBrokers(context.image()));
                int replicationFactor = state.targetReplicas().size();
                if (!allowReplicationFactorChange && replicas.size() != replicationFactor) {
                    throw new ApiException(Errors.INVALID_REPLICATION_FACTOR, "The replication factor of " + key
                            + " would change from " + replicationFactor + " to " + replicas.size()
                            + ", which this request does not allow.");
                }
                return ReassignmentRules.reassign(state, replicas, live);
            });
        });
        return changePartitions(changes);
    }

    /**
     * Applies each operator change to the fresh record of its partition, all partitions written
     * together, and waits until this broker's image shows them; a change's refusal (it throws) becomes
     * its partition's error, a change that leaves the record as it is succeeds. A write that landed
     * although its answer was lost is recognised on the re-read (the record is the one meant).
     */
    private Map<TopicPartitionKey, ApiError> changePartitions(Map<TopicPartitionKey, UnaryOperator<PartitionState>> changes) {
        List<TopicPartitionKey> legal = new ArrayList<>(changes.size());
        for (TopicPartitionKey key : changes.keySet()) {
            if (TopicNames.isLegal(key.topic()) && key.partition() >= 0) {
                legal.add(key);
            }
        }
        // called on this thread, once per partition and round, with the fresh record
        Map<TopicPartitionKey, ApiError> refused = new HashMap<>();
        Map<TopicPartitionKey, PartitionState> intended = new HashMap<>();
        Set<TopicPartitionKey> found = new HashSet<>();
        Map<TopicPartitionKey, PartitionState> written;
        try {
            written = context.guarded(() -> records.updateAll(legal, (topic, fresh) -> {
                TopicPartitionKey key = new TopicPartitionKey(topic, fresh.partition());
                found.add(key);
                refused.remove(key);
                if (fresh.equals(intended.get(key))) {
                    return null; // ours, landed before its answer was lost
                }
                try {
                    PartitionState next = changes.get(key).apply(fresh);
                    if (next != null) {
                        intended.put(key, next);
                    }
                    return next;
                } catch (ApiException e) {
                    refused.put(key, ApiError.of(e));
                    return null;
                }
            }));
            if (!written.isEmpty()) {
                context.await(context.watcher().barrier());
            }
        } catch (ApiException e) { // ZooKeeper did not answer in time: REQUEST_TIMED_OUT for each
            Map<TopicPartitionKey, ApiError> failed = new LinkedHashMap<>();
            changes.keySet().forEach(key -> failed.put(key, ApiError.of(e)));
            return failed;
        }
        Map<TopicPartitionKey, ApiError> results = new LinkedHashMap<>();
        for (TopicPartitionKey key : changes.keySet()) {
            ApiError refusal = refused.get(key);
            results.put(key, refusal != null ? refusal : found.contains(key) ? ApiError.NONE : unknownPartition(key));
        }
        return results;
    }

    /** On the controller thread: completes the reassignment of {@code key} if its record still calls for it. */
    void completeReassignment(TopicPartitionKey key) {
        PartitionState[] before = new PartitionState[1];
        PartitionState after = records.apply(key.topic(), key.partition(), state -> {
            before[0] = state;
            return ReassignmentRules.complete(state, liveInImage());
        });
        if (after != null && after != before[0]) {
            LOG.info("reassignment of {} completed: replicas {}, ISR {}, leader {} at epoch {}", key, after.replicas(),
                    after.isr(), after.leader(), after.leaderEpoch());
        }
    }

    private IntPredicate liveInImage() {
        MetadataImage current = context.image();
        return broker -> current.broker(broker) != null;
    }

    private static ApiError unknownPartition(TopicPartitionKey key) {
        return new ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic-partition: "
                + key);
    }
}

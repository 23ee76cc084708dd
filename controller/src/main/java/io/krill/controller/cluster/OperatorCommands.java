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
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntPredicate;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Operators' changes of leadership and replicas (leader elections, partition reassignments) and the
 * active controller's completion of reassignments: each a compare-and-set of the partition's record
 * ({@link PartitionRecords#apply}), which the election rule then keeps.
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
     * The election rule keeps the new leader (it is live and in the ISR); Helix then demotes the old
     * leader and promotes the new one, whose promotion finds itself in the record and writes nothing.
     */
    Map<TopicPartitionKey, ApiError> electLeaders(ElectionType type, Collection<TopicPartitionKey> partitions) {
        context.ensureOpen();
        Map<TopicPartitionKey, ApiError> results = new LinkedHashMap<>();
        for (TopicPartitionKey key : partitions) {
            results.put(key, changePartition(key, state -> type == ElectionType.PREFERRED
                    ? LeaderElection.preferred(state, liveInImage())
                    : LeaderElection.unclean(state, liveInImage())));
        }
        return results;
    }

    /**
     * Starts, replaces or cancels reassignments ({@link ReassignmentRules}): each a compare-and-set of
     * the record together with the partition's Helix preference list, so new replicas come up as
     * followers. The active controller completes them once their targets are in the ISR.
     */
    Map<TopicPartitionKey, ApiError> alterPartitionReassignments(
            Map<TopicPartitionKey, Optional<List<Integer>>> targets, boolean allowReplicationFactorChange) {
        context.ensureOpen();
        Map<TopicPartitionKey, ApiError> results = new LinkedHashMap<>();
        targets.forEach((key, target) -> {
            if (target.isEmpty()) {
                results.put(key, changePartition(key, state -> ReassignmentRules.cancel(state, liveInImage())));
                return;
            }
            List<Integer> replicas = List.copyOf(target.get());
            results.put(key, changePartition(key, state -> {
                TopicRequests.checkAssignment(replicas, TopicRequests.liveBrokers(context.image()));
                int replicationFactor = state.targetReplicas().size();
                if (!allowReplicationFactorChange && replicas.size() != replicationFactor) {
                    throw new ApiException(Errors.INVALID_REPLICATION_FACTOR, "The replication factor of " + key
                            + " would change from " + replicationFactor + " to " + replicas.size()
                            + ", which this request does not allow.");
                }
                return ReassignmentRules.reassign(state, replicas, liveInImage());
            }));
        });
        return results;
    }

    /**
     * Applies one operator change to the fresh record of {@code key} ({@link PartitionRecords#apply}) and
     * waits until this broker's image shows it; the change's refusals become the partition's error.
     */
    private ApiError changePartition(TopicPartitionKey key, UnaryOperator<PartitionState> change) {
        if (!TopicNames.isLegal(key.topic()) || key.partition() < 0) {
            return unknownPartition(key);
        }
        try {
            PartitionState after = context.guarded(() -> records.apply(key.topic(), key.partition(), change));
            if (after == null) {
                return unknownPartition(key);
            }
            context.await(context.watcher().refreshPartition(key.topic(), key.partition()));
            return ApiError.NONE;
        } catch (ApiException e) {
            return ApiError.of(e);
        }
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

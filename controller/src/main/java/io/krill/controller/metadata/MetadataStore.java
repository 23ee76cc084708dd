package io.krill.controller.metadata;

import io.krill.wire.error.ApiException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The cluster's metadata, as this broker sees it, and the only way to change it. The single-node
 * implementation keeps it in a file; the cluster implementation in ZooKeeper under Helix's control.
 * Either way a change is durable when the call returns (or its future completes) and is then visible in
 * {@link #image()}.
 *
 * <p>Changes that return a result may block (a ZooKeeper round trip): call them from request threads,
 * never from a Netty event loop. Those that return a future never block, and report every failure
 * through the future (a request handler answers when it completes). Failures that clients should see
 * are {@link ApiException}s carrying Kafka's error code (TOPIC_ALREADY_EXISTS, UNKNOWN_TOPIC_OR_PARTITION,
 * INVALID_PARTITIONS, INVALID_REPLICATION_FACTOR, REQUEST_TIMED_OUT, ...).
 *
 * <p>Implementations are thread-safe.
 */
public interface MetadataStore extends AutoCloseable {

    /** The current snapshot; cheap, read it once per request. */
    MetadataImage image();

    /** Registers a listener that is told of every later change (and not of the current image). */
    void addListener(MetadataListener listener);

    /**
     * Whether this broker must not act on its partition roles right now: a cluster store fences the
     * broker when it loses (or may have lost) its coordination session, because another broker may
     * already have been made leader. A leader checks it before acknowledging acks=all writes. Always
     * false for a single node, which has nobody to be fenced by.
     */
    default boolean isFenced() {
        return false;
    }

    /** Registers (or re-registers, with new endpoints) this broker as live. */
    void registerBroker(BrokerInfo broker);

    /**
     * {@link #registerBroker(BrokerInfo)} for a broker that knows how its previous run ended: with
     * {@code restartedUncleanly} (a log dir had no clean-shutdown marker) its logs may lack records it had
     * acknowledged, so before it goes live it leaves every ELR (eligible leader replicas, KIP-966), as
     * Kafka's controller removes a broker that re-registers after an unclean shutdown. A store without
     * ELRs ignores it.
     */
    default void registerBroker(BrokerInfo broker, boolean restartedUncleanly) {
        registerBroker(broker);
    }

    /**
     * Reserves {@code count} producer ids for this broker and returns the first: ids are unique in the
     * cluster and never handed out twice, across restarts too.
     */
    long allocateProducerIds(int count);

    /** Creates a topic and places its replicas. */
    TopicImage createTopic(NewTopic topic);

    /**
     * Creates several topics, each as {@link #createTopic} would, without blocking the caller: the future
     * completes (on a store thread) once this broker's image shows every created topic, with one outcome
     * per topic in {@code topics}' order. Stores that can batch write all topics at once (a cluster
     * store pipelines its ZooKeeper writes); this default creates them one by one on the calling thread.
     */
    default CompletableFuture<List<TopicCreation>> createTopics(List<NewTopic> topics) {
        List<TopicCreation> outcomes = new ArrayList<>(topics.size());
        for (NewTopic topic : topics) {
            try {
                outcomes.add(TopicCreation.created(createTopic(topic)));
            } catch (ApiException e) {
                outcomes.add(TopicCreation.failed(topic.name(), ApiError.of(e)));
            }
        }
        return CompletableFuture.completedFuture(outcomes);
    }

    /**
     * Fails exactly as {@link #createTopic} would on the current image, and changes nothing: CreateTopics
     * with validateOnly. A later create may still fail (a concurrent change).
     */
    void checkCreateTopic(NewTopic topic);

    /** Deletes a topic; its data is removed by the brokers that host it. Blocks on a cluster store. */
    void deleteTopic(String name);

    /**
     * {@link #deleteTopic} without blocking the caller: the future completes when the deletion is done
     * or fails with its ApiException. A cluster store runs it on its administration thread (one change
     * at a time, in arrival order, as Kafka's controller queues them), so a slow ZooKeeper delays only
     * administration, never a request thread; this default runs it on the calling thread (the single-node
     * store's changes are in memory).
     */
    default CompletableFuture<Void> deleteTopicAsync(String name) {
        return now(() -> {
            deleteTopic(name);
            return null;
        });
    }

    /**
     * Grows a topic to {@code totalCount} partitions. {@code newAssignments}, if not empty, places the
     * new partitions (one replica list each), otherwise they are placed like a new topic's.
     */
    TopicImage createPartitions(String name, int totalCount, List<List<Integer>> newAssignments);

    /** {@link #createPartitions} without blocking the caller, as {@link #deleteTopicAsync}. */
    default CompletableFuture<TopicImage> createPartitionsAsync(String name, int totalCount,
                                                                List<List<Integer>> newAssignments) {
        return now(() -> createPartitions(name, totalCount, newAssignments));
    }

    /** Fails exactly as {@link #createPartitions} would on the current image, and changes nothing. */
    void checkCreatePartitions(String name, int totalCount, List<List<Integer>> newAssignments);

    /**
     * Sets the topic's config overrides to {@code change} applied to its current ones, atomically: if
     * another writer, on any broker, changed the topic in between, {@code change} is applied again to
     * what that writer left (a version-checked write in ZooKeeper), so concurrent incremental changes of
     * one topic all survive. Never blocks: the future completes with the topic as this broker's image
     * shows it once it shows the change, or fails with UNKNOWN_TOPIC_OR_PARTITION, REQUEST_TIMED_OUT
     * (the store unreachable within its operation timeout; clients retry) or whatever {@code change}
     * threw (its validation).
     *
     * <p>{@code change} must be quick, must not block and must have no side effects: a cluster store may
     * run it several times, on a thread of its ZooKeeper client. A result equal to the current overrides
     * writes nothing.
     */
    CompletableFuture<TopicImage> alterTopicConfigsAsync(String name, UnaryOperator<Map<String, String>> change);

    /**
     * Sets the configs of one entity to {@code change} applied to its current configs (an empty result
     * removes the entity), atomically, as {@link #alterTopicConfigsAsync} does for a topic: how owners of
     * different keys of one entity (SCRAM credentials, quotas, ACLs through several brokers) keep each
     * other's keys. Never blocks: the future completes with what the entity holds once this broker's
     * image shows it ({@link MetadataImage#entityConfigs}; every broker sees it there soon after), or
     * fails with REQUEST_TIMED_OUT or what {@code change} threw. {@code change} has the same constraints.
     * Entity names:
     * <ul>
     *   <li>{@code ""}: the cluster-wide dynamic broker defaults; {@code "<brokerId>"}: one broker's;</li>
     *   <li>{@code "type/name"} for everything else, as Kafka's {@code /config/<type>/<name>} znodes:
     *       {@code users/alice}, {@code users/<default>}, {@code clients/app}, {@code users/alice/clients/app},
     *       {@code ips/10.0.0.1}; security data uses its own types (e.g. {@code acls/...}).</li>
     * </ul>
     * Names may hold any characters; stores encode them.
     */
    CompletableFuture<Map<String, String>> updateEntityConfigsAsync(String entity,
                                                                 UnaryOperator<Map<String, String>> change);

    /**
     * Changes a partition's state if it still is {@code expected} (same partition epoch): how a leader
     * shrinks or grows its ISR. Returns the new state; a lost race is an ApiException with
     * FENCED_LEADER_EPOCH or the like, after which the caller must re-read the state.
     */
    PartitionState alterPartition(String topic, PartitionState expected, PartitionState proposed);

    /**
     * Several ISR changes at once (Kafka's AlterPartition carries many partitions): one result per
     * change, in order, each as {@link #alterPartition} would decide it. A cluster store writes them in
     * a few batched ZooKeeper round trips instead of three per partition; this default applies them one
     * by one. Blocks: call it from the ISR thread, never a Netty event loop.
     */
    default List<IsrChangeResult> alterPartitions(List<IsrChange> changes) {
        List<IsrChangeResult> results = new ArrayList<>(changes.size());
        for (IsrChange change : changes) {
            try {
                PartitionState done = alterPartition(change.topic(), change.expected(), change.proposed());
                results.add(new IsrChangeResult(change, done, ApiError.NONE));
            } catch (ApiException e) {
                results.add(new IsrChangeResult(change, null, ApiError.of(e)));
            }
        }
        return results;
    }

    /**
     * Kafka's ElectLeaders, one result per partition in iteration order. PREFERRED makes the first
     * replica leader if it is live and in the ISR (PREFERRED_LEADER_NOT_AVAILABLE otherwise,
     * ELECTION_NOT_NEEDED if it already leads). UNCLEAN gives a partition that has no leader a live
     * replica, an ISR member if there is one, else any (its ISR becomes that replica alone: records
     * may be lost); ELECTION_NOT_NEEDED when the partition has a leader, ELIGIBLE_LEADERS_NOT_AVAILABLE
     * when no replica is live. UNKNOWN_TOPIC_OR_PARTITION for partitions that do not exist. A result
     * of success means the change is in this broker's image.
     */
    Map<TopicPartitionKey, ApiError> electLeaders(ElectionType type, Collection<TopicPartitionKey> partitions);

    /** {@link #electLeaders} without blocking the caller, as {@link #deleteTopicAsync}. */
    default CompletableFuture<Map<TopicPartitionKey, ApiError>> electLeadersAsync(ElectionType type,
                                                                                  Collection<TopicPartitionKey> partitions) {
        return now(() -> electLeaders(type, partitions));
    }

    /**
     * Kafka's AlterPartitionReassignments, one result per partition in iteration order: a present
     * target starts (or replaces) a reassignment of the partition to those replicas, an empty one
     * cancels the partition's reassignment (NO_REASSIGNMENT_IN_PROGRESS if it has none). New replicas
     * join as followers; once all of the target is in the ISR the reassignment completes by itself:
     * the replicas become the target and a leader outside it hands over to one inside.
     * INVALID_REPLICA_ASSIGNMENT for an empty target, a repeated or unknown broker;
     * INVALID_REPLICATION_FACTOR for a change of replication factor when it is not allowed;
     * UNKNOWN_TOPIC_OR_PARTITION for partitions that do not exist.
     */
    Map<TopicPartitionKey, ApiError> alterPartitionReassignments(Map<TopicPartitionKey, Optional<List<Integer>>> targets,
                                                                 boolean allowReplicationFactorChange);

    /** {@link #alterPartitionReassignments(Map, boolean)} without blocking the caller, as {@link #deleteTopicAsync}. */
    default CompletableFuture<Map<TopicPartitionKey, ApiError>> alterPartitionReassignmentsAsync(
            Map<TopicPartitionKey, Optional<List<Integer>>> targets, boolean allowReplicationFactorChange) {
        return now(() -> alterPartitionReassignments(targets, allowReplicationFactorChange));
    }

    /** {@link #alterPartitionReassignments(Map, boolean)} allowing changes of replication factor (v0). */
    default Map<TopicPartitionKey, ApiError> alterPartitionReassignments(
            Map<TopicPartitionKey, Optional<List<Integer>>> targets) {
        return alterPartitionReassignments(targets, true);
    }

    /**
     * Kafka's ListPartitionReassignments: the reassignments in progress, of {@code partitions} or of
     * every partition when empty. Partitions that do not exist or are not being reassigned are left
     * out. Read from this broker's image.
     */
    default Map<TopicPartitionKey, PartitionReassignment> listPartitionReassignments(
            Optional<Set<TopicPartitionKey>> partitions) {
        MetadataImage current = image();
        Map<TopicPartitionKey, PartitionReassignment> result = new LinkedHashMap<>();
        if (partitions.isPresent()) {
            for (TopicPartitionKey key : partitions.get()) {
                TopicImage topic = current.topic(key.topic());
                PartitionState state = topic == null ? null : topic.partition(key.partition());
                PartitionReassignment reassignment = state == null ? null : PartitionReassignment.of(state);
                if (reassignment != null) {
                    result.put(key, reassignment);
                }
            }
            return result;
        }
        for (TopicImage topic : current.topics()) {
            for (PartitionState state : topic.partitions()) {
                PartitionReassignment reassignment = PartitionReassignment.of(state);
                if (reassignment != null) {
                    result.put(new TopicPartitionKey(topic.name(), state.partition()), reassignment);
                }
            }
        }
        return result;
    }

    @Override
    void close();

    /** {@code change} run on the calling thread, as a future: its result, or its exception. */
    private static <T> CompletableFuture<T> now(Supplier<T> change) {
        try {
            return CompletableFuture.completedFuture(change.get());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }
}

package io.krill.broker.group;

import io.krill.broker.BrokerContext;
import io.krill.broker.config.GroupSettings;
import io.krill.broker.config.ShareGroupConfig;
import io.krill.broker.config.ShareGroupConfigs;
import io.krill.broker.coordinator.CoordinatorLog;
import io.krill.broker.coordinator.CoordinatorTimer;
import io.krill.broker.coordinator.ExecutorCoordinatorTimer;
import io.krill.broker.coordinator.PartitionCoordinatorLog;
import io.krill.broker.share.state.ShareStatePersister;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.MetadataListener;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ConsumerGroupDescribeResponse;
import io.krill.wire.message.ConsumerGroupHeartbeatRequest;
import io.krill.wire.message.ConsumerGroupHeartbeatResponse;
import io.krill.wire.message.DescribeGroupsResponse;
import io.krill.wire.message.HeartbeatRequest;
import io.krill.wire.message.JoinGroupRequest;
import io.krill.wire.message.JoinGroupResponse;
import io.krill.wire.message.LeaveGroupRequest;
import io.krill.wire.message.LeaveGroupResponse;
import io.krill.wire.message.ListGroupsResponse;
import io.krill.wire.message.OffsetCommitRequest;
import io.krill.wire.message.OffsetCommitResponse;
import io.krill.wire.message.OffsetDeleteRequest;
import io.krill.wire.message.OffsetDeleteResponse;
import io.krill.wire.message.OffsetFetchRequest;
import io.krill.wire.message.OffsetFetchResponse;
import io.krill.wire.message.SyncGroupRequest;
import io.krill.wire.message.SyncGroupResponse;
import io.krill.wire.message.TxnOffsetCommitRequest;
import io.krill.wire.message.TxnOffsetCommitResponse;
import io.krill.wire.message.AlterShareGroupOffsetsRequest;
import io.krill.wire.message.AlterShareGroupOffsetsResponse;
import io.krill.wire.message.DeleteShareGroupOffsetsRequest;
import io.krill.wire.message.DeleteShareGroupOffsetsResponse;
import io.krill.wire.message.DescribeShareGroupOffsetsRequest;
import io.krill.wire.message.DescribeShareGroupOffsetsResponse;
import io.krill.wire.message.ShareGroupDescribeResponse;
import io.krill.wire.message.ShareGroupHeartbeatRequest;
import io.krill.wire.message.ShareGroupHeartbeatResponse;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The group coordinator of this broker: for each partition of {@code __consumer_offsets} it leads, the
 * groups that hash to it (classic-protocol and KIP-848 consumer groups) and their committed offsets,
 * kept as records in that partition and rebuilt from it when the partition is loaded. This class is the
 * facade the API handlers call; the work is done by its parts, which share one {@link GroupContext}
 * (config, log, timer, the led partitions and their groups, the metadata image):
 *
 * <ul>
 *   <li>{@link GroupPartitionLoader}: follows leadership of {@code __consumer_offsets} (a group belongs
 *       to partition {@code abs(groupId.hashCode()) % partitions}, Kafka's), loads a partition it comes
 *       to lead on the coordinator thread (COORDINATOR_LOAD_IN_PROGRESS meanwhile) and drops the groups
 *       of one it no longer leads (NOT_COORDINATOR to their waiting requests);
 *   <li>{@link ClassicGroupProtocol}: JoinGroup, SyncGroup, Heartbeat, LeaveGroup;
 *   <li>{@link ClassicRebalancer}: a classic group's rebalances, deadlines, session expiry and record;
 *   <li>{@link ConsumerGroupProtocol}: ConsumerGroupHeartbeat and ConsumerGroupDescribe (KIP-848);
 *   <li>{@link OffsetStore}: OffsetCommit, TxnOffsetCommit and transaction completion, OffsetFetch,
 *       OffsetDelete, offsets expiry;
 *   <li>{@link ShareGroupProtocol}: ShareGroupHeartbeat (KIP-932 share groups), {@link ShareGroupDescriber}:
 *       ShareGroupDescribe, {@link ShareGroupOffsets}: Describe/Alter/DeleteShareGroupOffsets through the
 *       {@link ShareStatePersister};
 *   <li>{@link GroupAdmin}: DescribeGroups, ListGroups, DeleteGroups.
 * </ul>
 *
 * <p><b>Thread-safety.</b> Thread-safe. Every group has its own lock (its monitor); no code holds two.
 * Shards and their group maps are concurrent. This object's monitor orders metadata changes (loading and
 * unloading partitions) against {@link #close}. Log writes complete inline (one node) or later on the
 * coordinator thread, whose callbacks retake the group's lock and re-check the generation.
 */
public final class GroupCoordinator implements MetadataListener, AutoCloseable {
    public static final String TOPIC = "__consumer_offsets";

    private final GroupContext shared;
    private final ClassicRebalancer rebalancer;
    private final ClassicGroupProtocol classic;
    private final ConsumerGroupProtocol consumerGroups;
    private final ConsumerGroupDescriber consumerGroupDescriber;
    private final TransactionalOffsetStore transactionalOffsets;
    private final OffsetStore offsetStore;
    private final GroupPartitionLoader loader;
    private final GroupAdmin admin;
    private final ShareGroupProtocol shareGroups;
    private final ShareGroupDescriber shareGroupDescriber;
    private final ShareGroupOffsets shareGroupOffsets;
    private ExecutorCoordinatorTimer ownedTimer;

    /**
     * The broker's coordinator: its log is this broker's partitions of {@code __consumer_offsets}, its
     * timer a {@code group-coordinator} thread that {@link #close()} stops. Call {@link #startup} after
     * registering it as a metadata listener.
     */
    public static GroupCoordinator forBroker(BrokerContext context, TxnOffsetCommitVerifier verifier) {
        return forBroker(context, verifier, NoShareStatePersister.INSTANCE,
                ShareGroupConfigs.fixed(ShareGroupConfig.DEFAULTS), PartitionEndOffsets.UNKNOWN);
    }

    /**
     * As {@link #forBroker(BrokerContext, TxnOffsetCommitVerifier)}, with share groups' state in the share
     * coordinator behind {@code persister}, their settings from {@code shareConfigs} and the lag of their
     * partitions from {@code endOffsets}.
     */
    public static GroupCoordinator forBroker(BrokerContext context, TxnOffsetCommitVerifier verifier,
                                             ShareStatePersister persister, ShareGroupConfigs shareConfigs,
                                             PartitionEndOffsets endOffsets) {
        GroupSettings settings = context.config().group();
        ExecutorCoordinatorTimer timer = new ExecutorCoordinatorTimer();
        PartitionCoordinatorLog log = new PartitionCoordinatorLog(TOPIC, context.metadata(), context.partitions(),
                context.producePurgatory(), timer, settings.offsetsCommitTimeoutMs(),
                settings.offsetsTopicCompressionCodec(), settings.offsetsLoadBufferSize());
        GroupCoordinator coordinator = new GroupCoordinator(context.nodeId(), GroupConfig.from(settings).withShareMaxSize(context.config().shareGroup().maxSize()), log, timer,
                verifier, persister, shareConfigs, endOffsets);
        coordinator.ownedTimer = timer;
        return coordinator;
    }

    /** A coordinator whose TxnOffsetCommits are not verified with a transaction coordinator (tests, tools). */
    public GroupCoordinator(int nodeId, GroupConfig config, CoordinatorLog log, CoordinatorTimer timer) {
        this(nodeId, config, log, timer, TxnOffsetCommitVerifier.UNVERIFIED);
    }

    /** A coordinator whose share groups have no share coordinator: every share state call fails (tests, tools). */
    public GroupCoordinator(int nodeId, GroupConfig config, CoordinatorLog log, CoordinatorTimer timer,
                            TxnOffsetCommitVerifier verifier) {
        this(nodeId, config, log, timer, verifier, NoShareStatePersister.INSTANCE,
                ShareGroupConfigs.fixed(ShareGroupConfig.DEFAULTS), PartitionEndOffsets.UNKNOWN);
    }

    /**
     * @param verifier     checks a TxnOffsetCommit's transaction with its coordinator first (KIP-890 part 1)
     * @param persister    the share-partitions' durable state (the share coordinator), for share groups
     * @param shareConfigs each share group's settings (session timeout, heartbeat interval)
     * @param endOffsets   partitions' end offsets, for the lag of DescribeShareGroupOffsets v1
     */
    public GroupCoordinator(int nodeId, GroupConfig config, CoordinatorLog log, CoordinatorTimer timer,
                            TxnOffsetCommitVerifier verifier, ShareStatePersister persister,
                            ShareGroupConfigs shareConfigs, PartitionEndOffsets endOffsets) {
        this.shared = new GroupContext(nodeId, config, log, timer);
        this.rebalancer = new ClassicRebalancer(shared);
        this.classic = new ClassicGroupProtocol(shared, rebalancer);
        this.consumerGroups = new ConsumerGroupProtocol(shared);
        this.consumerGroupDescriber = new ConsumerGroupDescriber(shared);
        this.offsetStore = new OffsetStore(shared, rebalancer);
        this.transactionalOffsets = new TransactionalOffsetStore(shared, verifier);
        this.shareGroups = new ShareGroupProtocol(shared, persister, shareConfigs);
        this.shareGroupDescriber = new ShareGroupDescriber(shared);
        this.shareGroupOffsets = new ShareGroupOffsets(shared, persister, endOffsets);
        this.loader = new GroupPartitionLoader(shared, rebalancer, consumerGroups, shareGroups);
        this.admin = new GroupAdmin(shared, shareGroupOffsets);
    }

    public GroupConfig config() {
        return shared.config();
    }

    // ------------------------------------------------------------------ partitions

    /** Follows the image the broker starts with, and schedules the periodic offsets expiry. */
    public void startup(MetadataImage image) {
        follow(image);
        offsetStore.scheduleOffsetsExpiry();
    }

    @Override
    public void onChange(MetadataImage previous, MetadataImage current) {
        follow(current);
    }

    /** Follows leadership of {@code __consumer_offsets}; the monitor orders it against {@link #close}. */
    private synchronized void follow(MetadataImage image) {
        loader.follow(image);
    }

    /** The partition of {@code __consumer_offsets} that holds {@code groupId}. */
    public int partitionFor(String groupId) {
        return shared.partitionFor(groupId);
    }

    static int partitionFor(String groupId, int partitions) {
        return GroupContext.partitionFor(groupId, partitions);
    }

    /** Becomes the coordinator of {@code partition}: loads it on the coordinator thread. */
    void onElection(int partition) {
        loader.onElection(partition);
    }

    /** Stops coordinating {@code partition}: its groups are dropped and their waiting requests told. */
    void onResignation(int partition) {
        loader.onResignation(partition);
    }

    /** Whether {@code partition} is loaded and served (for tests and tools). */
    public boolean isLoaded(int partition) {
        GroupShard shard = shared.shard(partition);
        return shard != null && shard.loaded;
    }

    // ------------------------------------------------------------------ classic protocol

    /**
     * JoinGroup: answers through {@code callback}, at once (errors, MEMBER_ID_REQUIRED, a rejoin that
     * changes nothing) or when the rebalance completes.
     *
     * @throws ApiException for errors of the whole request (not the coordinator, loading, invalid id)
     */
    public void joinGroup(RequestContext context, JoinGroupRequest request, Consumer<JoinGroupResponse> callback) {
        classic.joinGroup(context, request, callback);
    }

    /** SyncGroup: answered at once, or when the leader's assignment has been written. */
    public void syncGroup(RequestContext context, SyncGroupRequest request, Consumer<SyncGroupResponse> callback) {
        classic.syncGroup(context, request, callback);
    }

    /** Heartbeat: the member's session goes on; REBALANCE_IN_PROGRESS tells it to rejoin. */
    public Errors heartbeat(HeartbeatRequest request) {
        return classic.heartbeat(request);
    }

    /**
     * LeaveGroup for a batch of members (v3+; older versions are one member): each is removed, static
     * ones by instance id, and the group rebalances once they are gone.
     */
    public LeaveGroupResponse leaveGroup(String groupId, List<LeaveGroupRequest.MemberIdentity> leaving) {
        return classic.leaveGroup(groupId, leaving);
    }

    // ------------------------------------------------------------------ consumer protocol (KIP-848)

    /**
     * ConsumerGroupHeartbeat: joins, leaves, keeps the session and reconciles the member's assignment;
     * {@code callback} gets the answer once the group's latest record is committed.
     */
    public void consumerGroupHeartbeat(RequestContext context, ConsumerGroupHeartbeatRequest request,
                                       Consumer<ConsumerGroupHeartbeatResponse> callback) {
        consumerGroups.consumerGroupHeartbeat(context, request, callback);
    }

    /**
     * ConsumerGroupDescribe for one group: a consumer-protocol group with its epochs, assignor and members
     * (current and target assignments); an unknown group, or a classic one, is GROUP_ID_NOT_FOUND as in
     * Kafka. Authorized operations are left to the caller.
     */
    public ConsumerGroupDescribeResponse.DescribedGroup consumerGroupDescribe(String groupId) {
        return consumerGroupDescriber.consumerGroupDescribe(groupId);
    }

    // ------------------------------------------------------------------ share groups (KIP-932)

    /**
     * ShareGroupHeartbeat: joins, leaves, keeps the session and gives the member its assignment;
     * {@code callback} gets the answer once the group's latest record is committed.
     *
     * @throws ApiException NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS
     */
    public void shareGroupHeartbeat(RequestContext context, ShareGroupHeartbeatRequest request,
                                    Consumer<ShareGroupHeartbeatResponse> callback) {
        shareGroups.heartbeat(context, request, callback);
    }

    /** ShareGroupDescribe for one group; authorized operations are left to the caller. */
    public ShareGroupDescribeResponse.DescribedGroup shareGroupDescribe(String groupId) {
        return shareGroupDescriber.describe(groupId);
    }

    /** DescribeShareGroupOffsets for one group ({@code topics} null: all its initialized partitions). */
    public CompletableFuture<DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseGroup> describeShareGroupOffsets(
            String groupId, List<DescribeShareGroupOffsetsRequest.DescribeShareGroupOffsetsRequestTopic> topics) {
        return shareGroupOffsets.describe(groupId, topics);
    }

    /** AlterShareGroupOffsets: new start offsets for an empty share group's partitions. */
    public CompletableFuture<AlterShareGroupOffsetsResponse> alterShareGroupOffsets(AlterShareGroupOffsetsRequest request) {
        return shareGroupOffsets.alter(request);
    }

    /** DeleteShareGroupOffsets: an empty share group forgets the topics' share state. */
    public CompletableFuture<DeleteShareGroupOffsetsResponse> deleteShareGroupOffsets(DeleteShareGroupOffsetsRequest request) {
        return shareGroupOffsets.delete(request);
    }

    // ------------------------------------------------------------------ offsets

    /**
     * OffsetCommit for classic and simple groups: checks the member and generation, writes the offsets
     * and makes them visible once committed. Answers through {@code callback}.
     */
    public void commitOffsets(RequestContext context, OffsetCommitRequest request, Consumer<OffsetCommitResponse> callback) {
        offsetStore.commitOffsets(context, request, callback);
    }

    /**
     * TxnOffsetCommit of {@code version}: unless the producer already wrote to the group's partition in
     * this transaction, the transaction coordinator must confirm that the group's offsets were added to
     * the transaction (AddOffsetsToTxn; KIP-890 part 1), else every partition answers the verification's
     * error (INVALID_TXN_STATE, or TRANSACTION_ABORTABLE from v4; INVALID_PRODUCER_ID_MAPPING, ...). Then
     * the offsets are written to the group's partition as one transactional batch of the producer (its
     * epoch fenced by the log) and held as pending: they become the group's committed offsets when the
     * commit marker of the producer's transaction reaches the partition ({@link #onTransactionCompleted}),
     * and are dropped on an abort. A group that does not exist is created (an empty, simple group), as
     * Kafka does; a member id or generation given is checked.
     */
    public void commitTransactionalOffsets(TxnOffsetCommitRequest request, short version,
                                           Consumer<TxnOffsetCommitResponse> callback) {
        transactionalOffsets.commitTransactionalOffsets(request, version, callback);
    }

    /** A TxnOffsetCommit response with {@code error} for every partition of {@code request}. */
    public static TxnOffsetCommitResponse txnCommitError(TxnOffsetCommitRequest request, Errors error) {
        return TransactionalOffsetStore.txnCommitError(request, error);
    }

    /**
     * A transaction marker of {@code producerId} reached partition {@code partition} of
     * {@code __consumer_offsets} and its in-sync replicas: the producer's pending offsets in that
     * partition's groups become committed (commit) or are dropped (abort). Nothing to do when this broker
     * does not coordinate the partition (yet): a later load replays the marker from the log.
     */
    public void onTransactionCompleted(int partition, long producerId, boolean commit) {
        transactionalOffsets.onTransactionCompleted(partition, producerId, commit);
    }

    /** OffsetFetch for one group without {@code require_stable}. */
    public OffsetFetchResponse.OffsetFetchResponseGroup fetchOffsets(String groupId,
                                                                     List<OffsetFetchRequest.OffsetFetchRequestTopics> topics) {
        return offsetStore.fetchOffsets(groupId, topics, false);
    }

    /**
     * OffsetFetch for one group: the committed offsets of the partitions asked for (-1 where none), or
     * of every partition with one when {@code topics} is null. Errors of the group are in the result's
     * error code. With {@code requireStable}, a partition with an offset of a transaction not ended yet
     * answers UNSTABLE_OFFSET_COMMIT (the client retries until the transaction completes).
     */
    public OffsetFetchResponse.OffsetFetchResponseGroup fetchOffsets(String groupId,
                                                                     List<OffsetFetchRequest.OffsetFetchRequestTopics> topics,
                                                                     boolean requireStable) {
        return offsetStore.fetchOffsets(groupId, topics, requireStable);
    }

    /**
     * OffsetDelete: removes a group's offsets of partitions of topics no member subscribes to
     * (GROUP_SUBSCRIBED_TO_TOPIC otherwise); a non-empty group not using the consumer protocol is
     * NON_EMPTY_GROUP.
     */
    public void deleteOffsets(OffsetDeleteRequest request, Consumer<OffsetDeleteResponse> callback) {
        offsetStore.deleteOffsets(request, callback);
    }

    /** Removes expired offsets now (the periodic task's work; for tests). */
    void expireOffsets() {
        offsetStore.expireOffsets();
    }

    // ------------------------------------------------------------------ admin

    /**
     * DescribeGroups at {@code version} for one group: a missing group, or one not classic, is described as
     * Dead, from v6 with GROUP_ID_NOT_FOUND.
     */
    public DescribeGroupsResponse.DescribedGroup describeGroup(String groupId, short version) {
        return admin.describeGroup(groupId, version);
    }

    /** The result of ListGroups: the groups and the error of a partition still loading, if any. */
    public record ListedGroups(Errors error, List<ListGroupsResponse.ListedGroup> groups) {
    }

    /**
     * ListGroups over every partition this broker coordinates. {@code states} and {@code types} filter
     * case-insensitively when not empty (types: classic, consumer, share).
     */
    public ListedGroups listGroups(Set<String> states, Set<String> types) {
        return admin.listGroups(states, types);
    }

    /** DeleteGroups: empty groups lose their offsets and metadata; others are NON_EMPTY_GROUP. */
    public CompletableFuture<Map<String, Errors>> deleteGroups(List<String> groupIds) {
        return admin.deleteGroups(groupIds);
    }

    @Override
    public synchronized void close() {
        shared.close();
        for (int partition : shared.ledPartitions()) {
            onResignation(partition);
        }
        if (ownedTimer != null) {
            ownedTimer.close();
        }
    }
}

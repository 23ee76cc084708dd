package io.krill.controller.cluster;

import io.krill.controller.metadata.ApiError;
import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.ElectionType;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.MetadataListener;
import io.krill.controller.metadata.MetadataStore;
import io.krill.controller.metadata.NewTopic;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import io.krill.controller.metadata.TopicNames;
import io.krill.controller.metadata.TopicPartitionKey;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntPredicate;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.apache.helix.model.IdealState;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cluster metadata in ZooKeeper, with Apache Helix choosing partition leaders: the
 * {@link MetadataStore} of a broker in a multi-broker cluster. Layout and formats: {@link ZkPaths},
 * {@link MetadataRecords} and docs/coordination.md.
 *
 * <p>Lifecycle: the constructor connects, sets the cluster up if it is new, and reads the whole
 * metadata; the broker can then read and change topics. {@link #registerBroker} (after the broker's
 * listeners are bound) writes the broker's endpoints and joins Helix as participant and controller
 * candidate: from then on Helix gives this broker partition roles, which it learns from the image
 * ({@code leader == nodeId} leads at {@code leaderEpoch}; other replicas follow), and it must check
 * {@link #isFenced()} before acknowledging acks=all writes. {@link #close()} is a controlled
 * shutdown: it resigns leaderships and leaves ISRs, then leaves the cluster.
 *
 * <p>Writes are conditional: topics and their Helix resource are created, grown and deleted in single
 * ZooKeeper multi-ops; partition records change only by compare-and-set ({@link PartitionRecords});
 * producer-id blocks come from a version-checked counter. A change returns once this broker's image
 * shows it. ZooKeeper not answering within the operation timeout is REQUEST_TIMED_OUT.
 *
 * <p>Operators' changes of leadership and replicas ({@link #electLeaders}, {@link
 * #alterPartitionReassignments}) are compare-and-sets of the records too, which the election rule then
 * keeps; the active controller completes reassignments ({@link ReassignmentCompleter}) and, with
 * {@code auto.leader.rebalance.enable}, moves leadership back to preferred replicas
 * ({@link PreferredLeaderBalancer}).
 *
 * <p>Thread-safe: changes may come from any thread (never a Netty event loop: they block); images are
 * published and listeners told on the notification thread ({@link MetadataWatcher}); Helix calls in on
 * its own threads; the controller's own writes run on {@code krill-controller-<nodeId>}.
 */
public final class ZooKeeperMetadataStore implements MetadataStore {
    private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperMetadataStore.class);
    private static final String UNCLEAN_CONFIG = "unclean.leader.election.enable";
    private static final int MAX_ATTEMPTS = 10;
    private static final int MAX_PRODUCER_ID_ATTEMPTS = 100;

    private final ZooKeeperStoreConfig config;
    private final int nodeId;
    private final ZkPaths paths;
    private final SessionFence fence;
    private final MetadataWatcher watcher;
    private final ZkSession session;
    private final PartitionRecords records;
    private final ExecutorService controllerWork;
    private final ReassignmentCompleter reassignmentCompleter;
    private final PreferredLeaderBalancer leaderBalancer;
    private final StatusUpdatePruner statusUpdatePruner;
    private final Set<String> pendingLeaderless = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean nudgePending = new AtomicBoolean();
    private volatile String nudgeTopic;
    private final Map<String, String> helixStates = new ConcurrentHashMap<>();
    private final Random random = new Random();
    private final Object registration = new Object();
    private volatile HelixParticipant participant;
    /**
     * Helix's manager, made on a thread of its own while the broker sets the cluster up, loads its logs
     * and binds its listeners: its constructor reads the cluster's cloud config (which Krill never
     * sets; a cluster not set up yet reads as none) through a ZooKeeper session of its own and closes
     * it again, about a fifth of a second that no longer delays start-up. Taken (once)
     * by {@link #registerBroker}; closed by {@link #close()} if never taken.
     */
    private final CompletableFuture<HelixParticipant> preparedParticipant = new CompletableFuture<>();
    private volatile boolean preparedTaken;
    private volatile boolean closed;

    public ZooKeeperMetadataStore(ZooKeeperStoreConfig config) {
        this.config = config;
        this.nodeId = config.nodeId();
        this.paths = new ZkPaths(config.clusterName());
        MetadataWatcher[] watcherRef = new MetadataWatcher[1];
        this.fence = new SessionFence(fenced -> {
            LOG.info("broker {} is {}", nodeId, fenced ? "fenced" : "unfenced");
            if (watcherRef[0] != null) {
                watcherRef[0].fencingChanged(fenced);
            }
        });
        this.watcher = new MetadataWatcher(paths, fence, nodeId);
        watcherRef[0] = watcher;
        this.controllerWork = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "krill-controller-" + nodeId);
            thread.setDaemon(true);
            thread.setUncaughtExceptionHandler((t, e) -> LOG.error("unexpected failure on {}", t.getName(), e));
            return thread;
        });
        ZkSession.ensureChroot(config.zkConnect(), config.operationTimeoutMs());
        this.session = new ZkSession(config.zkConnect(), config.sessionTimeoutMs(), config.operationTimeoutMs(),
                watcher);
        this.records = new PartitionRecords(session, paths);
        this.reassignmentCompleter = new ReassignmentCompleter(nodeId, controllerWork, this::isActiveController,
                this::completeReassignment);
        this.leaderBalancer = new PreferredLeaderBalancer(config.leaderImbalancePerBrokerPercentage(),
                this::electLeaders);
        this.statusUpdatePruner = new StatusUpdatePruner(session, paths.controllerStatusUpdates());
        try {
            prepareParticipant();
            session.awaitConnected(config.operationTimeoutMs());
            HelixCluster.ensure(session, paths, config.clusterId(), config.operationTimeoutMs());
            watcher.start(session, config.operationTimeoutMs());
            String stored = watcher.image().clusterId();
            if (config.clusterId() != null && !config.clusterId().equals(stored)) {
                throw new IllegalStateException("cluster.id " + config.clusterId() + " does not match " + stored
                        + " stored in ZooKeeper cluster " + config.clusterName());
            }
            watcher.addListener(this::nudgeController);
            watcher.addListener(reassignmentCompleter::onChange);
        } catch (RuntimeException e) {
            closeResources();
            throw e;
        }
    }

    @Override
    public MetadataImage image() {
        return watcher.image();
    }

    @Override
    public void addListener(MetadataListener listener) {
        watcher.addListener(listener);
    }

    /** Tells {@code listener} of every later change of {@link #isFenced()}, in order with images. */
    public void addFencingListener(FencingListener listener) {
        watcher.addFencingListener(listener);
    }

    /**
     * True while this broker must not act on its partition roles: before it has joined, from the
     * moment its ZooKeeper connection drops until ZooKeeper again shows its live instance owned by
     * its current Helix session, and while it leaves ({@link SessionFence} has the exact rule). A
     * leader checks it before acknowledging acks=all writes: another broker may already lead.
     */
    @Override
    public boolean isFenced() {
        return fence.isFenced();
    }

    /** This broker's node id. */
    public int nodeId() {
        return nodeId;
    }

    /** How many times a metadata or fencing listener threw (each is logged with its stack trace). */
    public long listenerFailures() {
        return watcher.listenerFailures();
    }

    @Override
    public void registerBroker(BrokerInfo broker) {
        if (broker.nodeId() != nodeId) {
            throw new IllegalArgumentException("this store is broker " + nodeId + "'s, not " + broker.nodeId() + "'s");
        }
        synchronized (registration) {
            ensureOpen();
            guarded(() -> {
                HelixCluster.registerInstance(session, paths, broker);
                return null;
            });
            if (participant == null) {
                HelixParticipant joining = takePreparedParticipant();
                try {
                    joining.join(new Roles(), new Inputs(), this::resignAll);
                } catch (Exception e) {
                    joining.close();
                    throw new IllegalStateException("broker " + nodeId + " could not join Helix cluster "
                            + config.clusterName(), e);
                }
                participant = joining;
                fence.joined(true);
                if (config.autoLeaderRebalance()) {
                    scheduleLeaderImbalanceCheck();
                }
                scheduleStatusUpdatePruning();
                LOG.info("broker {} joined cluster {} (Helix session {})", nodeId, config.clusterName(),
                        joining.sessionId());
            }
        }
        await(watcher.refreshBrokers());
    }

    private void prepareParticipant() {
        Thread preparing = new Thread(() -> {
            try {
                preparedParticipant.complete(newParticipant());
            } catch (Throwable e) {
                preparedParticipant.completeExceptionally(e);
            }
        }, "krill-helix-prepare-" + nodeId);
        preparing.setDaemon(true);
        preparing.start();
    }

    private HelixParticipant newParticipant() {
        return new HelixParticipant(config.zkConnect(), paths, nodeId, config.sessionTimeoutMs(), fence);
    }

    /** The manager made in the background, or (if that failed) one made now, so that the failure shows here. */
    private HelixParticipant takePreparedParticipant() {
        preparedTaken = true;
        try {
            return preparedParticipant.get(config.operationTimeoutMs(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ZkUnavailableException("interrupted while preparing the Helix participant", e);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            LOG.warn("broker {}: preparing the Helix participant in the background failed; trying again", nodeId, e);
            return newParticipant();
        }
    }

    /**
     * Takes the next block from the cluster's counter with a conditional write; serialised within this
     * broker, so that only brokers race (and back off at random when they do).
     */
    @Override
    public synchronized long allocateProducerIds(int count) {
        if (count <= 0) {
            throw new IllegalArgumentException("count must be positive: " + count);
        }
        ensureOpen();
        return guarded(() -> {
            for (int attempt = 0; attempt < MAX_PRODUCER_ID_ATTEMPTS; attempt++) {
                if (attempt > 0) {
                    backOff();
                }
                Stat stat = new Stat();
                byte[] data = session.readOrNull(paths.producerIds(), stat);
                if (data == null) {
                    throw new IllegalStateException("no producer-id counter at " + paths.producerIds());
                }
                long first = MetadataRecords.decodeNextProducerId(data);
                byte[] next = MetadataRecords.encodeNextProducerId(first + count);
                try {
                    session.call(zk -> zk.setData(paths.producerIds(), next, stat.getVersion()));
                    return first;
                } catch (KeeperException.BadVersionException e) {
                    // another broker took a block (or a retried write of ours landed): the block is lost, never reused
                } catch (KeeperException e) {
                    throw ZkSession.unexpected(e);
                }
            }
            throw new ApiException(Errors.REQUEST_TIMED_OUT, "producer-id counter kept changing");
        });
    }

    @Override
    public TopicImage createTopic(NewTopic spec) {
        ensureOpen();
        MetadataImage current = image();
        TopicRequests.Plan plan = plan(current, spec);
        UUID id = newTopicId(current);
        List<Op> ops = new ArrayList<>();
        MetadataRecords.TopicRecord topic = new MetadataRecords.TopicRecord(spec.name(), id, plan.partitionCount(),
                spec.internal(), spec.configs());
        ops.add(create(paths.topic(spec.name()), MetadataRecords.encodeTopic(topic)));
        addPartitionOps(ops, spec.name(), id, 0, plan.assignments(), current);
        ops.add(create(paths.idealState(spec.name()),
                MetadataRecords.serialize(MetadataRecords.idealState(spec.name(), plan.assignments()).getRecord())));
        guarded(() -> {
            try {
                session.call(zk -> zk.multi(ops));
            } catch (KeeperException.NodeExistsException e) {
                byte[] existing = session.readOrNull(paths.topic(spec.name()), new Stat());
                if (existing == null) {
                    throw new IllegalStateException("Helix resource " + spec.name() + " exists without its topic", e);
                }
                if (!MetadataRecords.decodeTopic(spec.name(), existing).id().equals(id)) {
                    throw new ApiException(Errors.TOPIC_ALREADY_EXISTS, "Topic '" + spec.name() + "' already exists.");
                }
                // our own create, retried after a lost connection
            } catch (KeeperException e) {
                throw ZkSession.unexpected(e);
            }
            return null;
        });
        LOG.info("created topic {} ({}) with {} partition(s): {}", spec.name(), id, plan.partitionCount(),
                plan.assignments());
        MetadataImage after = await(watcher.refreshTopic(spec.name()));
        TopicImage created = after.topic(spec.name());
        if (created == null || !created.id().equals(id)) {
            throw new ApiException(Errors.UNKNOWN_TOPIC_OR_PARTITION, "Topic " + spec.name()
                    + " was deleted right after it was created");
        }
        return created;
    }

    @Override
    public void checkCreateTopic(NewTopic spec) {
        plan(image(), spec);
    }

    private TopicRequests.Plan plan(MetadataImage current, NewTopic spec) {
        return TopicRequests.planNewTopic(current, spec, config.defaultPartitions(), config.defaultReplicationFactor(),
                new Random(random.nextLong()));
    }

    @Override
    public void deleteTopic(String name) {
        ensureOpen();
        guarded(() -> {
            for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
                List<String> children;
                try {
                    children = session.call(zk -> zk.getChildren(paths.topic(name), false));
                } catch (KeeperException.NoNodeException e) {
                    throw unknownTopic(name);
                } catch (KeeperException e) {
                    throw ZkSession.unexpected(e);
                }
                List<Op> ops = new ArrayList<>();
                for (String child : children) {
                    ops.add(Op.delete(paths.topic(name) + "/" + child, -1));
                }
                ops.add(Op.delete(paths.topic(name), -1));
                if (session.readOrNull(paths.idealState(name), new Stat()) != null) {
                    ops.add(Op.delete(paths.idealState(name), -1));
                }
                try {
                    session.call(zk -> zk.multi(ops));
                    return null;
                } catch (KeeperException.NotEmptyException | KeeperException.NoNodeException e) {
                    // partitions added or the topic deleted meanwhile: look again
                } catch (KeeperException e) {
                    throw ZkSession.unexpected(e);
                }
            }
            throw new ApiException(Errors.REQUEST_TIMED_OUT, "topic " + name + " kept changing while being deleted");
        });
        LOG.info("deleted topic {}", name);
        await(watcher.refreshTopic(name));
    }

    @Override
    public TopicImage createPartitions(String name, int totalCount, List<List<Integer>> newAssignments) {
        ensureOpen();
        return guarded(() -> {
            for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
                MetadataImage current = imageWithTopic(name);
                TopicRequests.Plan plan = TopicRequests.planNewPartitions(current, name, totalCount, newAssignments,
                        new Random(random.nextLong()));
                Stat topicStat = new Stat();
                byte[] topicData = session.readOrNull(paths.topic(name), topicStat);
                if (topicData == null) {
                    throw unknownTopic(name);
                }
                MetadataRecords.TopicRecord topic = MetadataRecords.decodeTopic(name, topicData);
                int existing = topic.partitionCount();
                if (existing != current.topic(name).partitionCount() || !topic.id().equals(current.topic(name).id())) {
                    await(watcher.refreshTopic(name)); // our image was behind: plan again
                    continue;
                }
                Stat idealStateStat = new Stat();
                byte[] idealStateData = session.readOrNull(paths.idealState(name), idealStateStat);
                if (idealStateData == null) {
                    throw new IllegalStateException("topic " + name + " has no Helix resource");
                }
                IdealState idealState = new IdealState(MetadataRecords.deserialize(idealStateData));
                MetadataRecords.addPartitions(idealState, name, existing, plan.assignments());
                MetadataRecords.TopicRecord grown = new MetadataRecords.TopicRecord(name, topic.id(), totalCount,
                        topic.internal(), topic.configs());
                List<Op> ops = new ArrayList<>();
                ops.add(Op.setData(paths.topic(name), MetadataRecords.encodeTopic(grown), topicStat.getVersion()));
                addPartitionOps(ops, name, topic.id(), existing, plan.assignments(), current);
                ops.add(Op.setData(paths.idealState(name), MetadataRecords.serialize(idealState.getRecord()),
                        idealStateStat.getVersion()));
                try {
                    session.call(zk -> zk.multi(ops));
                } catch (KeeperException.BadVersionException | KeeperException.NodeExistsException e) {
                    await(watcher.refreshTopic(name)); // changed meanwhile: plan again
                    continue;
                } catch (KeeperException.NoNodeException e) {
                    throw unknownTopic(name);
                } catch (KeeperException e) {
                    throw ZkSession.unexpected(e);
                }
                LOG.info("topic {} grown to {} partitions: {}", name, totalCount, plan.assignments());
                return await(watcher.refreshTopic(name)).topic(name);
            }
            throw new ApiException(Errors.REQUEST_TIMED_OUT, "topic " + name + " kept changing while being grown");
        });
    }

    @Override
    public void checkCreatePartitions(String name, int totalCount, List<List<Integer>> newAssignments) {
        TopicRequests.planNewPartitions(imageWithTopic(name), name, totalCount, newAssignments, new Random(random.nextLong()));
    }

    /**
     * The image, read again for {@code name} when it does not have the topic: another broker may just
     * have created it, and this broker's watch event may still be on its way.
     */
    private MetadataImage imageWithTopic(String name) {
        MetadataImage current = image();
        return current.topic(name) != null ? current : await(watcher.refreshTopic(name));
    }

    @Override
    public void alterEntityConfigs(String entity, Map<String, String> configs) {
        updateEntityConfigs(entity, current -> configs);
    }

    /**
     * Compare-and-set on the entity's znode version, retried on a lost race, so that two brokers
     * changing different keys of one entity (a user's SCRAM credential and its quota) both win.
     */
    @Override
    public Map<String, String> updateEntityConfigs(String entity,
                                                   UnaryOperator<Map<String, String>> change) {
        ensureOpen();
        String path = paths.entityConfig(entity);
        Map<String, String> written = guarded(() -> {
            for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
                try {
                    Stat stat = new Stat();
                    byte[] data = session.readOrNull(path, stat);
                    Map<String, String> current = data == null ? Map.of() : MetadataRecords.decodeEntityConfigs(data);
                    Map<String, String> next = Map.copyOf(change.apply(current));
                    byte[] encoded = MetadataRecords.encodeEntityConfigs(entity, next);
                    if (data == null) {
                        createIfAbsent(paths.entityConfigs(), new byte[0]);
                        if (!createIfAbsent(path, encoded)) {
                            continue;
                        }
                    } else {
                        int version = stat.getVersion();
                        session.call(zk -> zk.setData(path, encoded, version));
                    }
                    return next;
                } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
                    // Another writer got in between: read again.
                } catch (KeeperException e) {
                    throw ZkSession.unexpected(e);
                }
            }
            throw new ApiException(Errors.REQUEST_TIMED_OUT, "configs of " + entity + " kept changing while being altered");
        });
        LOG.info("configs of {} set (keys {})", entity.isEmpty() ? "the cluster" : entity, written.keySet());
        await(watcher.refreshEntityConfig(entity));
        return written;
    }

    /** Creates a persistent node; false if it already exists. */
    private boolean createIfAbsent(String path, byte[] data) throws KeeperException {
        try {
            session.call(zk -> zk.create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
            return true;
        } catch (KeeperException.NodeExistsException e) {
            return false;
        }
    }

    @Override
    public TopicImage alterTopicConfigs(String name, Map<String, String> overrides) {
        ensureOpen();
        return guarded(() -> {
            for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
                Stat stat = new Stat();
                byte[] data = session.readOrNull(paths.topic(name), stat);
                if (data == null) {
                    throw unknownTopic(name);
                }
                MetadataRecords.TopicRecord topic = MetadataRecords.decodeTopic(name, data);
                MetadataRecords.TopicRecord altered = new MetadataRecords.TopicRecord(name, topic.id(),
                        topic.partitionCount(), topic.internal(), overrides);
                byte[] encoded = MetadataRecords.encodeTopic(altered);
                try {
                    session.call(zk -> zk.setData(paths.topic(name), encoded, stat.getVersion()));
                } catch (KeeperException.BadVersionException e) {
                    continue;
                } catch (KeeperException.NoNodeException e) {
                    throw unknownTopic(name);
                } catch (KeeperException e) {
                    throw ZkSession.unexpected(e);
                }
                TopicImage result = await(watcher.refreshTopic(name)).topic(name);
                if (result == null) {
                    throw unknownTopic(name);
                }
                return result;
            }
            throw new ApiException(Errors.REQUEST_TIMED_OUT, "topic " + name + " kept changing");
        });
    }

    /**
     * The ISR change of a leader, as a compare-and-set on the partition's record: the caller must be
     * the leader at {@code expected}'s leader epoch (else FENCED_LEADER_EPOCH) and the record still at
     * {@code expected}'s partition epoch (else INVALID_UPDATE_VERSION); the ISR must keep the leader,
     * stay within the replicas, and add only live brokers (else INELIGIBLE_REPLICA).
     */
    @Override
    public PartitionState alterPartition(String topic, PartitionState expected, PartitionState proposed) {
        ensureOpen();
        checkProposal(topic, expected, proposed);
        int partition = expected.partition();
        PartitionState written = guarded(() -> {
            for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
                PartitionRecords.Versioned current = records.read(topic, partition);
                if (current == null) {
                    throw new ApiException(Errors.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this "
                            + "topic-partition: " + topic + "-" + partition);
                }
                PartitionState state = current.state();
                PartitionState intended = new PartitionState(partition, expected.leader(), expected.leaderEpoch(),
                        state.replicas(), proposed.isr(), expected.partitionEpoch() + 1, state.addingReplicas(),
                        state.removingReplicas());
                if (state.leaderEpoch() != expected.leaderEpoch() || state.leader() != expected.leader()) {
                    throw new ApiException(Errors.FENCED_LEADER_EPOCH, "leader " + expected.leader() + " at epoch "
                            + expected.leaderEpoch() + " of " + topic + "-" + partition + " is fenced: the leader is "
                            + state.leader() + " at epoch " + state.leaderEpoch());
                }
                if (state.partitionEpoch() != expected.partitionEpoch()) {
                    if (state.equals(intended) && attempt > 0) {
                        return state; // our own write, retried after a lost connection
                    }
                    throw new ApiException(Errors.INVALID_UPDATE_VERSION, "partition epoch " + expected.partitionEpoch()
                            + " of " + topic + "-" + partition + " is stale, current is " + state.partitionEpoch());
                }
                if (records.compareAndSet(topic, current, intended)) {
                    return intended;
                }
            }
            throw new ApiException(Errors.INVALID_UPDATE_VERSION, "partition " + topic + "-" + partition
                    + " kept changing");
        });
        await(watcher.refreshPartition(topic, partition));
        return written;
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
        MetadataImage current = image();
        for (int replica : proposed.isr()) {
            if (!expected.isr().contains(replica) && current.broker(replica) == null) {
                throw new ApiException(Errors.INELIGIBLE_REPLICA, "broker " + replica + " cannot join the ISR of "
                        + where + ": it is not live");
            }
        }
    }

    /**
     * Preferred or unclean elections, each a compare-and-set of the record by this broker ({@link
     * LeaderElection#preferred}, {@link LeaderElection#unclean}) with liveness from this broker's image.
     * The election rule keeps the new leader (it is live and in the ISR); Helix then demotes the old
     * leader and promotes the new one, whose promotion finds itself in the record and writes nothing.
     */
    @Override
    public Map<TopicPartitionKey, ApiError> electLeaders(ElectionType type, Collection<TopicPartitionKey> partitions) {
        ensureOpen();
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
    @Override
    public Map<TopicPartitionKey, ApiError> alterPartitionReassignments(
            Map<TopicPartitionKey, Optional<List<Integer>>> targets, boolean allowReplicationFactorChange) {
        ensureOpen();
        Map<TopicPartitionKey, ApiError> results = new LinkedHashMap<>();
        targets.forEach((key, target) -> {
            if (target.isEmpty()) {
                results.put(key, changePartition(key, state -> ReassignmentRules.cancel(state, liveInImage())));
                return;
            }
            List<Integer> replicas = List.copyOf(target.get());
            results.put(key, changePartition(key, state -> {
                TopicRequests.checkAssignment(replicas, TopicRequests.liveBrokers(image()));
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
            PartitionState after = guarded(() -> records.apply(key.topic(), key.partition(), change));
            if (after == null) {
                return unknownPartition(key);
            }
            await(watcher.refreshPartition(key.topic(), key.partition()));
            return ApiError.NONE;
        } catch (ApiException e) {
            return ApiError.of(e);
        }
    }

    /** On the controller thread: completes the reassignment of {@code key} if its record still calls for it. */
    private void completeReassignment(TopicPartitionKey key) {
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

    /** Every interval, on the controller thread; the next check is scheduled even if this one fails. */
    private void scheduleLeaderImbalanceCheck() {
        if (closed) {
            return;
        }
        CompletableFuture.delayedExecutor(config.leaderImbalanceCheckIntervalMs(), TimeUnit.MILLISECONDS,
                controllerWork).execute(() -> {
                    try {
                        if (isActiveController()) {
                            leaderBalancer.check(image());
                        }
                    } finally {
                        scheduleLeaderImbalanceCheck();
                    }
                });
    }

    /** Every {@link StatusUpdatePruner#INTERVAL_MS}, on the controller thread, by the active controller. */
    private void scheduleStatusUpdatePruning() {
        if (closed) {
            return;
        }
        CompletableFuture.delayedExecutor(StatusUpdatePruner.INTERVAL_MS, TimeUnit.MILLISECONDS, controllerWork)
                .execute(() -> {
                    try {
                        if (isActiveController()) {
                            statusUpdatePruner.prune();
                        }
                    } catch (RuntimeException e) {
                        LOG.warn("pruning Helix status updates failed: {}", e.toString());
                    } finally {
                        scheduleStatusUpdatePruning();
                    }
                });
    }

    /** Joined, open, unfenced, and Helix's controller: the one broker that completes and rebalances. */
    private boolean isActiveController() {
        return !closed && participant != null && !fence.isFenced() && image().controllerId() == nodeId;
    }

    private IntPredicate liveInImage() {
        MetadataImage current = image();
        return broker -> current.broker(broker) != null;
    }

    private static ApiError unknownPartition(TopicPartitionKey key) {
        return new ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic-partition: "
                + key);
    }

    /** The Helix state of a replica on this broker (for diagnostics and tests), or null. */
    String helixState(String topic, int partition) {
        return helixStates.get(topic + "-" + partition);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        RuntimeException failure = null;
        if (participant != null) {
            if (fence.isFenced()) {
                LOG.warn("broker {} leaves while fenced: its roles move when its session expires", nodeId);
            } else {
                try {
                    resignAll();
                } catch (RuntimeException e) {
                    // A controlled shutdown that cannot reach ZooKeeper degrades into a crash: the
                    // session expires and the controller moves leaderships anyway. Closing must finish.
                    failure = e;
                }
            }
            fence.joined(false);
        }
        closeResources();
        if (failure != null) {
            LOG.warn("broker {} left without resigning its roles (they move when its session expires)", nodeId, failure);
        }
    }

    private void closeResources() {
        HelixParticipant leaving = participant;
        participant = null;
        if (leaving != null) {
            leaving.close();
        }
        // never taken (the broker stopped before registering): close it whenever it is ready
        preparedParticipant.thenAccept(prepared -> {
            if (!preparedTaken) {
                prepared.close();
            }
        });
        controllerWork.shutdownNow();
        watcher.close();
        session.close();
    }

    /**
     * Before this broker goes live in a new Helix session (its first, or after an expiry), and at
     * a controlled shutdown: give up every leadership it holds in the records and leave every ISR
     * where it is not the last member. A restarted broker may have lost unflushed records; it
     * re-enters an ISR only when a leader sees it caught up, and is never elected meanwhile.
     */
    private void resignAll() {
        int changed = 0;
        for (TopicImage topic : image().topics()) {
            for (PartitionState state : topic.partitions()) {
                if (LeaderElection.resign(state, nodeId) == null) {
                    continue;
                }
                if (records.update(topic.name(), state.partition(), s -> LeaderElection.resign(s, nodeId)) != null) {
                    changed++;
                }
            }
        }
        LOG.info("broker {} resigned from {} partition(s)", nodeId, changed);
    }

    /**
     * The controller's rebalancer reads partition records from this image, but Helix runs its pipeline
     * only on changes of its own nodes. So when this broker is the controller and a topic or partition
     * record changed, it touches that topic's ideal state (a conditional write of the same content),
     * which makes Helix run the pipeline. Coalesced: one touch per burst of changes.
     */
    private void nudgeController(MetadataImage previous, MetadataImage current) {
        if (participant == null || current.controllerId() != nodeId) {
            return;
        }
        String changed = changedTopic(previous, current);
        if (changed == null) {
            return;
        }
        nudgeTopic = changed;
        if (nudgePending.compareAndSet(false, true)) {
            controllerWork.execute(() -> {
                nudgePending.set(false);
                touchIdealState(nudgeTopic);
            });
        }
    }

    private void touchIdealState(String topic) {
        Stat stat = new Stat();
        String path = paths.idealState(topic);
        try {
            byte[] data = session.readOrNull(path, stat);
            if (data != null) {
                session.call(zk -> zk.setData(path, data, stat.getVersion()));
            }
        } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
            // changed or deleted meanwhile: that change runs the pipeline itself
        } catch (KeeperException e) {
            throw ZkSession.unexpected(e);
        } catch (ZkUnavailableException e) {
            // The pipeline runs anyway when this broker reconnects (or another broker takes over).
            LOG.warn("could not ask the Helix controller to rebalance {}: {}", topic, e.toString());
        }
    }

    /** A topic that was added or changed between the two images, or null. */
    private static String changedTopic(MetadataImage previous, MetadataImage current) {
        for (TopicImage topic : current.topics()) {
            if (previous.topic(topic.name()) != topic) {
                return topic.name();
            }
        }
        return null;
    }

    private boolean uncleanElection(TopicImage topic) {
        String override = topic.configs().get(UNCLEAN_CONFIG);
        return override != null ? Boolean.parseBoolean(override.trim()) : config.uncleanLeaderElection();
    }

    private void addPartitionOps(List<Op> ops, String topic, UUID topicId, int first, List<List<Integer>> assignments,
                                 MetadataImage current) {
        for (int i = 0; i < assignments.size(); i++) {
            List<Integer> replicas = assignments.get(i);
            List<Integer> isr = new ArrayList<>();
            for (int replica : replicas) {
                if (current.broker(replica) != null) {
                    isr.add(replica);
                }
            }
            // Like Kafka's controller, the first live replica leads at once (epoch 0): clients can use
            // the partition as soon as the creation returns. Helix's transition to LEADER later finds
            // the record already naming that broker and writes nothing.
            PartitionState initial = new PartitionState(first + i, isr.isEmpty() ? PartitionState.NO_LEADER : isr.get(0),
                    0, replicas, isr.isEmpty() ? replicas : isr, 0);
            ops.add(create(paths.partition(topic, first + i), MetadataRecords.encodePartition(topic, topicId, initial)));
        }
    }

    private void backOff() {
        try {
            Thread.sleep(1 + random.nextInt(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ZkUnavailableException("interrupted", e);
        }
    }

    private static Op create(String path, byte[] data) {
        return Op.create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    }

    private static UUID newTopicId(MetadataImage current) {
        UUID id;
        do {
            id = UUID.randomUUID();
        } while (current.topic(id) != null);
        return id;
    }

    private MetadataImage await(CompletableFuture<MetadataImage> refresh) {
        return guarded(() -> MetadataWatcher.await(refresh, config.operationTimeoutMs()));
    }

    private <T> T guarded(Supplier<T> operation) {
        try {
            return operation.get();
        } catch (ZkUnavailableException e) {
            throw new ApiException(Errors.REQUEST_TIMED_OUT, e.getMessage(), e);
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("metadata store of broker " + nodeId + " is closed");
        }
    }

    private static ApiException unknownTopic(String name) {
        return new ApiException(Errors.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic: " + name);
    }

    /** Helix's transitions of this broker's replicas. */
    private final class Roles implements ReplicaRoles {
        @Override
        public void becomeLeader(String topic, int partition) {
            TopicImage image = image().topic(topic);
            boolean unclean = image != null && uncleanElection(image);
            PartitionState taken = records.update(topic, partition, s -> LeaderElection.promote(s, nodeId, unclean));
            if (taken == null) {
                // Nothing written: either the record already names this broker (it led from creation,
                // or an operator election or a reassignment made it leader) or it may not lead (not in the ISR, or the topic is gone).
                LOG.info("broker {} told to lead {}-{}: {}", nodeId, topic, partition,
                        alreadyLeads(topic, partition) ? "leads already" : "may not (not in the ISR, or the topic is gone)");
                return;
            }
            LOG.info("broker {} leads {}-{} at epoch {} (ISR {})", nodeId, topic, partition, taken.leaderEpoch(),
                    taken.isr());
            try {
                MetadataWatcher.await(watcher.refreshPartition(topic, partition), config.operationTimeoutMs());
            } catch (ZkUnavailableException slow) {
                // The record names this broker now: failing the transition would leave Helix's replica in ERROR
                // (no way out but a new session) while ZooKeeper says it leads. The image follows the record
                // when the refresh, or the watch, gets through.
                LOG.warn("broker {} leads {}-{} at epoch {}; its image does not show it yet: {}", nodeId, topic,
                        partition, taken.leaderEpoch(), slow.getMessage());
            }
        }

        /** For the log line only: the image may trail the record, so this never waits. */
        private boolean alreadyLeads(String topic, int partition) {
            TopicImage t = image().topic(topic);
            PartitionState state = t == null ? null : t.partition(partition);
            return state != null && state.leader() == nodeId;
        }

        @Override
        public void transitioned(String topic, int partition, String from, String to) {
            LOG.debug("broker {}: {}-{} {} -> {}", nodeId, topic, partition, from, to);
            if (LeaderFollowerModel.DROPPED.equals(to)) {
                helixStates.remove(topic + "-" + partition);
            } else {
                helixStates.put(topic + "-" + partition, to);
            }
        }
    }

    /** What this broker's Helix controller, when it is the active one, reads and asks for. */
    private final class Inputs implements ElectionInputs {
        @Override
        public TopicImage topic(String name) {
            return image().topic(name);
        }

        @Override
        public boolean uncleanElection(TopicImage topic) {
            return ZooKeeperMetadataStore.this.uncleanElection(topic);
        }

        @Override
        public void declareLeaderless(String topic, int partition, Set<Integer> live) {
            String key = topic + "-" + partition;
            if (closed || !pendingLeaderless.add(key)) {
                return;
            }
            controllerWork.execute(() -> writeLeaderless(topic, partition, live, key));
        }

        private void writeLeaderless(String topic, int partition, Set<Integer> live, String key) {
            boolean retry = false;
            try {
                PartitionState written = records.update(topic, partition, s -> {
                    TopicImage image = image().topic(topic);
                    PartitionState next = LeaderElection.next(s, live::contains,
                            image != null && ZooKeeperMetadataStore.this.uncleanElection(image));
                    return next.leader() == PartitionState.NO_LEADER ? next : null;
                });
                if (written != null) {
                    LOG.info("{}-{} has no eligible leader: leader epoch {}, ISR {}", topic, partition,
                            written.leaderEpoch(), written.isr());
                }
            } catch (ZkUnavailableException e) {
                // The partition must not keep naming a dead leader: try again once ZooKeeper answers.
                retry = !closed;
                LOG.warn("cannot mark {}-{} leaderless yet: {}", topic, partition, e.toString());
            } finally {
                if (retry) {
                    CompletableFuture.delayedExecutor(1, TimeUnit.SECONDS, controllerWork)
                            .execute(() -> writeLeaderless(topic, partition, live, key));
                } else {
                    pendingLeaderless.remove(key);
                }
            }
        }
    }
}

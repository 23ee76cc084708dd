package io.krill.controller.cluster;

import io.krill.controller.metadata.ApiError;
import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.ElectionType;
import io.krill.controller.metadata.IsrChange;
import io.krill.controller.metadata.IsrChangeResult;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.MetadataListener;
import io.krill.controller.metadata.MetadataStore;
import io.krill.controller.metadata.NewTopic;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicCreation;
import io.krill.controller.metadata.TopicImage;
import io.krill.controller.metadata.TopicPartitionKey;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cluster metadata in ZooKeeper, with Apache Helix tracking liveness and electing the controller: the
 * {@link MetadataStore} of a broker in a multi-broker cluster. Layout and formats: {@link ZkPaths},
 * {@link MetadataRecords} and docs/coordination.md.
 *
 * <p>Lifecycle: the constructor connects, sets the cluster up if it is new, and reads the whole
 * metadata; the broker can then read and change topics. {@link #registerBroker} (after the broker's
 * listeners are bound) writes the broker's endpoints and joins Helix as participant and controller
 * candidate: from then on the active controller ({@link LeaderController}) counts it live and may
 * elect it; it learns its partition roles from the image
 * ({@code leader == nodeId} leads at {@code leaderEpoch}; other replicas follow), and it must check
 * {@link #isFenced()} before acknowledging acks=all writes. {@link #close()} is a controlled
 * shutdown: it resigns leaderships and leaves ISRs, then leaves the cluster.
 *
 * <p>Writes are conditional: topics and their Helix resource are created, grown and deleted in single
 * ZooKeeper multi-ops; partition records change only by compare-and-set ({@link PartitionRecords});
 * producer-id blocks come from a version-checked counter; topic and entity configs are version-checked
 * read-modify-writes on ZooKeeper's asynchronous API ({@link ConditionalWrite}). A change returns (or its
 * future completes) once this broker's image shows it. ZooKeeper not answering within the operation
 * timeout is REQUEST_TIMED_OUT.
 *
 * <p>Operators' changes of leadership and replicas ({@link #electLeaders}, {@link
 * #alterPartitionReassignments}) are compare-and-sets of the records too, which the election rule then
 * keeps; the active controller completes reassignments ({@link ReassignmentCompleter}) and, with
 * {@code auto.leader.rebalance.enable}, moves leadership back to preferred replicas
 * ({@link PreferredLeaderBalancer}).
 *
 * <p>This class owns the lifecycle (connecting, joining Helix, controlled shutdown) and the
 * controller thread; the work is done by its parts, which share a {@link StoreContext}:
 * {@link TopicWriter}, {@link TopicConfigWriter}, {@link EntityConfigWriter}, {@link ProducerIdBlocks}, {@link IsrChangeWriter},
 * {@link OperatorCommands}; on the active controller {@link LeaderController} elects leaders in bulk
 * and {@link PeriodicControllerTasks} balances them.
 *
 * <p>Thread-safe: changes may come from any thread (the blocking ones never from a Netty event loop); images are
 * published and listeners told on the notification thread ({@link MetadataWatcher}); Helix calls in on
 * its own threads (the resignation before a new session goes live); the controller's own writes run on
 * {@code krill-controller-<nodeId>}; operators' changes that block (deletions, new partitions, elections,
 * reassignments) on {@code krill-admin-<nodeId>}, through their {@code ...Async} methods.
 */
public final class ZooKeeperMetadataStore implements MetadataStore {
    private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperMetadataStore.class);

    private final ZooKeeperStoreConfig config;
    private final int nodeId;
    private final ZkPaths paths;
    private final SessionFence fence;
    private final MetadataWatcher watcher;
    private final ZkSession session;
    private final PartitionRecords records;
    private final ExecutorService controllerWork;
    /**
     * Operators' changes that take several blocking ZooKeeper round trips (DeleteTopics, CreatePartitions,
     * ElectLeaders, AlterPartitionReassignments): run here one at a time, in arrival order, so that no
     * request thread waits for ZooKeeper and the controller's own work is not queued behind them.
     */
    private final ExecutorService adminWork;
    private final ReassignmentCompleter reassignmentCompleter;
    private final PeriodicControllerTasks periodicTasks;
    private final StoreContext context;
    private final TopicWriter topics;
    private final TopicConfigWriter topicConfigs;
    private final EntityConfigWriter entityConfigs;
    private final ProducerIdBlocks producerIds;
    private final IsrChangeWriter isrChanges;
    private final OperatorCommands operatorCommands;
    private final LeaderController leaderController;
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
    /**
     * This run started after an unclean shutdown and has not resigned yet: its first resignation also
     * takes it out of every ELR ({@link LeaderElection#resign}). Set before it joins, cleared once it has.
     */
    private volatile boolean lostUnflushed;

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
        this.adminWork = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "krill-admin-" + nodeId);
            thread.setDaemon(true);
            thread.setUncaughtExceptionHandler((t, e) -> LOG.error("unexpected failure on {}", t.getName(), e));
            return thread;
        });
        ZkSession.ensureChroot(config.zkConnect(), config.operationTimeoutMs());
        this.session = new ZkSession(config.zkConnect(), config.sessionTimeoutMs(), config.operationTimeoutMs(),
                watcher);
        this.records = new PartitionRecords(session, paths, nodeId);
        this.context = new StoreContext(config, paths, session, watcher, records, new Random(), () -> closed);
        this.topics = new TopicWriter(context);
        this.topicConfigs = new TopicConfigWriter(context);
        this.entityConfigs = new EntityConfigWriter(context);
        this.producerIds = new ProducerIdBlocks(context);
        this.isrChanges = new IsrChangeWriter(context);
        this.operatorCommands = new OperatorCommands(context);
        this.leaderController = new LeaderController(context, controllerWork, this::isActiveController);
        this.reassignmentCompleter = new ReassignmentCompleter(nodeId, controllerWork, this::isActiveController,
                operatorCommands::completeReassignment);
        this.periodicTasks = new PeriodicControllerTasks(context, controllerWork, this::isActiveController,
                this::electLeaders);
        try {
            prepareParticipant();
            session.awaitConnected(config.operationTimeoutMs());
            HelixCluster.ensure(session, paths, config.clusterId(), config.operationTimeoutMs());
            records.ensureDigestNodes();
            // The first full read is every topic and partition record: thousands of reads on a large
            // cluster, more than one operation's timeout under load.
            watcher.start(session, Math.max(30_000L, 6 * config.operationTimeoutMs()));
            String stored = watcher.image().clusterId();
            if (config.clusterId() != null && !config.clusterId().equals(stored)) {
                throw new IllegalStateException("cluster.id " + config.clusterId() + " does not match " + stored
                        + " stored in ZooKeeper cluster " + config.clusterName());
            }
            watcher.addListener(leaderController::onChange);
            watcher.addFencingListener(fenced -> {
                if (!fenced) {
                    leaderController.requestFullPass();
                }
            });
            HelixCluster.deleteLegacyResources(session, paths);
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

    /** How many changed partition records this broker's image took from digest nodes instead of reading them. */
    long recordsFromDigests() {
        return watcher.recordsFromDigests();
    }

    /** How many times a metadata or fencing listener threw (each is logged with its stack trace). */
    public long listenerFailures() {
        return watcher.listenerFailures();
    }

    @Override
    public void registerBroker(BrokerInfo broker) {
        registerBroker(broker, false);
    }

    @Override
    public void registerBroker(BrokerInfo broker, boolean restartedUncleanly) {
        if (restartedUncleanly && participant == null) {
            lostUnflushed = true;
        }
        if (broker.nodeId() != nodeId) {
            throw new IllegalArgumentException("this store is broker " + nodeId + "'s, not " + broker.nodeId() + "'s");
        }
        synchronized (registration) {
            context.ensureOpen();
            context.guarded(() -> {
                HelixCluster.registerInstance(session, paths, broker);
                return null;
            });
            if (participant == null) {
                HelixParticipant joining = takePreparedParticipant();
                try {
                    joining.join(() -> {
                        resignAll();
                        lostUnflushed = false;
                        awaitPreviousLiveInstance(joining);
                    });
                } catch (Exception e) {
                    joining.close();
                    throw new IllegalStateException("broker " + nodeId + " could not join Helix cluster "
                            + config.clusterName(), e);
                }
                participant = joining;
                fence.joined(true);
                periodicTasks.start();
                leaderController.start();
                LOG.info("broker {} joined cluster {} (Helix session {})", nodeId, config.clusterName(),
                        joining.sessionId());
            }
        }
        context.await(watcher.refreshBrokers());
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
     * broker ({@link ProducerIdBlocks}), so that only brokers race (and back off at random when they do).
     */
    @Override
    public long allocateProducerIds(int count) {
        return producerIds.allocate(count);
    }

    @Override
    public TopicImage createTopic(NewTopic spec) {
        return topics.createTopic(spec);
    }

    /** All topics' multi-ops in flight at once; completes on the notification thread, never blocks. */
    @Override
    public CompletableFuture<List<TopicCreation>> createTopics(List<NewTopic> specs) {
        return topics.createTopics(specs);
    }

    @Override
    public void checkCreateTopic(NewTopic spec) {
        topics.checkCreateTopic(spec);
    }

    @Override
    public void deleteTopic(String name) {
        topics.deleteTopic(name);
    }

    @Override
    public CompletableFuture<Void> deleteTopicAsync(String name) {
        return onAdminThread(() -> {
            deleteTopic(name);
            return null;
        });
    }

    @Override
    public TopicImage createPartitions(String name, int totalCount, List<List<Integer>> newAssignments) {
        return topics.createPartitions(name, totalCount, newAssignments);
    }

    @Override
    public CompletableFuture<TopicImage> createPartitionsAsync(String name, int totalCount,
                                                               List<List<Integer>> newAssignments) {
        return onAdminThread(() -> createPartitions(name, totalCount, newAssignments));
    }

    @Override
    public void checkCreatePartitions(String name, int totalCount, List<List<Integer>> newAssignments) {
        topics.checkCreatePartitions(name, totalCount, newAssignments);
    }

    /** A version-checked write of the topic's node ({@link TopicConfigWriter}); never blocks. */
    @Override
    public CompletableFuture<TopicImage> alterTopicConfigsAsync(String name, UnaryOperator<Map<String, String>> change) {
        return topicConfigs.alter(name, change);
    }

    /**
     * Compare-and-set on the entity's znode version, retried on a lost race, so that two brokers
     * changing different keys of one entity (a user's SCRAM credential and its quota) both win; never
     * blocks ({@link EntityConfigWriter}).
     */
    @Override
    public CompletableFuture<Map<String, String>> updateEntityConfigsAsync(String entity,
                                                                        UnaryOperator<Map<String, String>> change) {
        return entityConfigs.update(entity, change);
    }

    /**
     * The ISR change of a leader, as a compare-and-set on the partition's record: the caller must be
     * the leader at {@code expected}'s leader epoch (else FENCED_LEADER_EPOCH) and the record still at
     * {@code expected}'s partition epoch (else INVALID_UPDATE_VERSION); the ISR must keep the leader,
     * stay within the replicas, and add only live brokers (else INELIGIBLE_REPLICA).
     */
    @Override
    public PartitionState alterPartition(String topic, PartitionState expected, PartitionState proposed) {
        return isrChanges.alterPartition(topic, expected, proposed);
    }

    /** Many leaders' ISR changes in a few pipelined multi-ops and one image refresh. */
    @Override
    public List<IsrChangeResult> alterPartitions(List<IsrChange> changes) {
        return isrChanges.alterPartitions(changes);
    }

    /**
     * Preferred or unclean elections, each a compare-and-set of the record by this broker ({@link
     * LeaderElection#preferred}, {@link LeaderElection#unclean}) with liveness from this broker's image.
     * The election rule keeps the new leader (it is live and in the ISR); the old leader learns from its
     * image that it follows.
     */
    @Override
    public Map<TopicPartitionKey, ApiError> electLeaders(ElectionType type, Collection<TopicPartitionKey> partitions) {
        return operatorCommands.electLeaders(type, partitions);
    }

    /**
     * Starts, replaces or cancels reassignments ({@link ReassignmentRules}): each a compare-and-set of
     * the record; new replicas learn from the image that they follow. The active controller completes
     * them once their targets are in the ISR.
     */
    @Override
    public Map<TopicPartitionKey, ApiError> alterPartitionReassignments(
            Map<TopicPartitionKey, Optional<List<Integer>>> targets, boolean allowReplicationFactorChange) {
        return operatorCommands.alterPartitionReassignments(targets, allowReplicationFactorChange);
    }

    @Override
    public CompletableFuture<Map<TopicPartitionKey, ApiError>> electLeadersAsync(ElectionType type,
                                                                                 Collection<TopicPartitionKey> partitions) {
        return onAdminThread(() -> electLeaders(type, partitions));
    }

    @Override
    public CompletableFuture<Map<TopicPartitionKey, ApiError>> alterPartitionReassignmentsAsync(
            Map<TopicPartitionKey, Optional<List<Integer>>> targets, boolean allowReplicationFactorChange) {
        return onAdminThread(() -> alterPartitionReassignments(targets, allowReplicationFactorChange));
    }

    /** {@code change} on {@link #adminWork}; a store that is closing fails it with REQUEST_TIMED_OUT (retriable). */
    private <T> CompletableFuture<T> onAdminThread(Supplier<T> change) {
        try {
            return CompletableFuture.supplyAsync(change, adminWork);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(new ApiException(Errors.REQUEST_TIMED_OUT,
                    "broker " + nodeId + " is shutting down"));
        }
    }

    /** Joined, open, unfenced, and Helix's controller: the one broker that completes and rebalances. */
    private boolean isActiveController() {
        return !closed && participant != null && !fence.isFenced() && image().controllerId() == nodeId;
    }

    /**
     * Drops this store as a crashed process would: no resignation, the sessions simply stop (they
     * expire on the server after the session timeout). For tests of failover.
     */
    void abandon() {
        closed = true;
        closeResources();
    }

    /** One full election pass of the controller, now, on the calling thread (tests). */
    int controllerPass() {
        return leaderController.pass(true, Set.of());
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
        adminWork.shutdownNow();
        leaderController.close();
        watcher.close();
        session.close();
    }

    /**
     * After a kill -9 and a quick restart, this broker's live instance of its previous session is still
     * there until ZooKeeper expires that session. Helix, finding it, sleeps a fixed session timeout plus
     * 5 s before trying again (11 s with 6 s sessions), however soon the node goes. This waits for the
     * node itself, so the broker goes live as soon as the old session has expired; after Helix's own
     * bound it leaves the rest to Helix (which fails the join if the node is still there: another
     * process with this node id).
     */
    private void awaitPreviousLiveInstance(HelixParticipant joining) {
        String path = paths.liveInstances() + "/" + ZkPaths.instanceName(nodeId);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(config.sessionTimeoutMs() + 5_000L);
        boolean logged = false;
        while (!closed && System.nanoTime() < deadline) {
            Stat stat;
            try {
                stat = session.call(zk -> zk.exists(path, false));
            } catch (KeeperException e) {
                return; // Helix's own create will tell
            }
            if (stat == null || Long.toHexString(stat.getEphemeralOwner()).equals(joining.sessionId())) {
                return;
            }
            if (!logged) {
                LOG.info("broker {}: waiting for the live instance of its previous ZooKeeper session (0x{}) to expire",
                        nodeId, Long.toHexString(stat.getEphemeralOwner()));
                logged = true;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * The image once it shows this session's answered writes (its own ISR changes, just before a
     * shutdown): a resignation guesses every record's version from it, and a stale guess costs its whole
     * multi a read round. Falls back to the current image if the watcher does not catch up in time.
     */
    private MetadataImage imageAfterOwnWrites() {
        return watcher.imageAfterOwnWrites(config.operationTimeoutMs());
    }

    /**
     * Before this broker goes live in a new Helix session (its first, or after an expiry), and at
     * a controlled shutdown ({@link LeaderElection#resign}): every leadership it holds moves to another
     * live ISR member (or to nobody), and it leaves every ISR where it is not the last member, all in a
     * few pipelined multi-ops. A restarted broker may have lost unflushed records; it re-enters an ISR
     * only when a leader sees it caught up, and is never elected meanwhile. With eligible leader replicas
     * on it leaves every ISR, becoming eligible where the ISR left is below the minimum, and the first
     * resignation of a run that started after an unclean shutdown also leaves every ELR.
     */
    private void resignAll() {
        long started = System.nanoTime();
        MetadataImage current = imageAfterOwnWrites();
        long imaged = System.nanoTime();
        Set<Integer> others = new HashSet<>();
        current.brokers().forEach(b -> others.add(b.nodeId()));
        others.remove(nodeId);
        // Two rounds: the leaderships, which clients cannot use until they move, then the ISRs of the
        // partitions this broker only follows. Every broker learns of a round's records by reading its
        // multis' digests, and ZooKeeper answers a read only after the writes queued before it, so
        // follower multis sent with the leaderships, or right after they are applied, would hold every
        // other broker's view of the new leaders back by their own processing. The second round waits
        // until this broker's own image shows the first: its watcher read the digests after the other
        // brokers' watchers did (their events came first), so by then ZooKeeper has answered those reads
        // too (on a single server, which serves reads and writes in arrival order), and this broker's
        // Metadata answers name the new leaders from then on.
        List<TopicPartitionKey> led = new ArrayList<>();
        List<TopicPartitionKey> followed = new ArrayList<>();
        boolean uncleanly = lostUnflushed;
        java.util.function.BiFunction<String, PartitionState, PartitionState> rule = (name, state) -> {
            MetadataImage image = context.image();
            TopicImage topic = image.topic(name);
            return LeaderElection.resign(state, nodeId, others::contains,
                    topic == null ? ElrSettings.OFF : context.elrSettings(image, topic), uncleanly);
        };
        for (TopicImage topic : current.topics()) {
            ElrSettings elr = context.elrSettings(current, topic);
            for (PartitionState state : topic.partitions()) {
                if (LeaderElection.resign(state, nodeId, others::contains, elr, uncleanly) != null) {
                    (state.leader() == nodeId ? led : followed).add(new TopicPartitionKey(topic.name(),
                            state.partition()));
                }
            }
        }
        Map<TopicPartitionKey, PartitionState> written = new java.util.HashMap<>();
        written.putAll(records.updateAll(led, rule, PartitionRecords.asIn(current)));
        long leadershipsMoved = System.nanoTime();
        if (!written.isEmpty() && !followed.isEmpty()) {
            imageAfterOwnWrites();
        }
        written.putAll(records.updateAll(followed, rule, PartitionRecords.asIn(current)));
        int leaderless = 0;
        for (PartitionState state : written.values()) {
            if (state.leader() == PartitionState.NO_LEADER) {
                leaderless++;
            }
        }
        LOG.info("broker {} resigned from {} partition(s) in {} ms: its {} leadership(s) moved after {} ms (of which {} ms"
                + " waiting for an image with its own writes), then left {} ISR(s) ({} now without a leader)", nodeId,
                written.size(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), led.size(),
                TimeUnit.NANOSECONDS.toMillis(leadershipsMoved - started), TimeUnit.NANOSECONDS.toMillis(imaged - started),
                followed.size(), leaderless);
    }
}

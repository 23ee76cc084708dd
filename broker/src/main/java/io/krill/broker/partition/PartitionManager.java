package io.krill.broker.partition;

import io.krill.broker.config.BrokerConfig;
import io.krill.broker.config.TopicConfig;
import io.krill.controller.metadata.FinalizedFeatures;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.MetadataListener;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import io.krill.log.LogConfig;
import io.krill.log.LogManager;
import io.krill.log.PartitionLog;
import io.krill.log.TopicPartition;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partitions this broker hosts, kept in step with cluster metadata: a partition whose replicas
 * include this broker gets a log and a {@link Partition}; a deleted topic loses both. Request handlers
 * look partitions up here.
 *
 * <p>Cost per image: only topics whose {@link TopicImage} differs from the image applied last are looked
 * at (all of them when the broker config changed), so a change of one partition costs that topic, not
 * every hosted partition. New replicas' logs are created in parallel on {@code krill-replica-create-*}
 * threads, and the image is applied only once all exist.
 *
 * <p>Thread-safety: the map is concurrent; {@link #onChange} runs on the metadata store's notification
 * thread, one change at a time (it is synchronized against {@link #startup}); the creating threads
 * touch only the log manager and the partitions they build.
 */
public final class PartitionManager implements MetadataListener {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionManager.class);

    private final int nodeId;
    private final LogManager logManager;
    private final Supplier<BrokerConfig> brokerConfig;
    private final BooleanSupplier fenced;
    /**
     * Whether the image applied last has {@code eligible.leader.replicas.version} >= 1: the leaders' strict
     * min-ISR rule ({@link Partition}). Written by the applying thread before the image's states.
     */
    private volatile boolean strictMinIsr;
    private final ReplicaFollowing following;
    private final Consumer<TopicPartition> stateChanged;
    private final Map<TopicPartition, Partition> partitions = new ConcurrentHashMap<>();
    /** From this many new replicas in one image on, their logs are created in parallel ... */
    private static final int PARALLEL_CREATE_FROM = 8;
    /**
     * ... by this many threads. The work is file creation and fsync in one parent directory, which the
     * kernel serializes: measured with bench/scale.sh at 2,000 partitions on 3 brokers on 2 cores, 8 threads
     * took 1.5-2.4 s and 4.1-5.9 s of CPU to create them, 2 threads 1.0-1.15 s and 2.2-2.5 s, 1 thread
     * 1.0-1.1 s: two overlap one thread's fsync with the other's work, more only contend.
     */
    private static final int CREATE_THREADS = 2;
    /** Set at controlled shutdown: no partition is served as leader any more. */
    private volatile boolean leadingStopped;
    // Guarded by this object's monitor (the metadata thread):
    /** The image applied last, and the broker config it was applied with. */
    private MetadataImage applied;
    private BrokerConfig appliedBrokerConfig;
    /** Topics to look at again at the next image (a replica could not be created); also guarded by itself. */
    private final Set<String> retry = new HashSet<>();
    /** Effective config per topic, reused while it holds (so unchanged partitions are not updated). */
    private final Map<String, TopicConfig> topicConfigs = new HashMap<>();
    /** The hosted partitions by topic name. */
    private final Map<String, Set<TopicPartition>> hostedByTopic = new HashMap<>();
    /** The hosted partitions led by another broker: what the fetchers follow. */
    private final Map<TopicPartition, Partition> followed = new HashMap<>();
    private ExecutorService creators;

    /** A single node's partitions: never fenced, nothing to follow, nobody to tell. */
    public PartitionManager(int nodeId, LogManager logManager, BrokerConfig brokerConfig) {
        this(nodeId, logManager, () -> brokerConfig, () -> false, ReplicaFollowing.NONE, tp -> { });
    }

    /**
     * @param brokerConfig the effective broker configuration (dynamic topic defaults change with it)
     * @param fenced       whether this broker is cut off from the cluster (leaders then stop moving high watermarks)
     * @param following    the replica fetchers
     * @param stateChanged told after a hosted partition's state changed or a leader append (wakes requests
     *                     waiting on it)
     */
    public PartitionManager(int nodeId, LogManager logManager, Supplier<BrokerConfig> brokerConfig, BooleanSupplier fenced,
                            ReplicaFollowing following, Consumer<TopicPartition> stateChanged) {
        this.nodeId = nodeId;
        this.logManager = logManager;
        this.brokerConfig = brokerConfig;
        this.fenced = fenced;
        this.following = following;
        this.stateChanged = stateChanged;
    }

    /** Creates the partitions of the image this broker starts with. */
    public synchronized void startup(MetadataImage image) {
        apply(image);
    }

    @Override
    public synchronized void onChange(MetadataImage previous, MetadataImage current) {
        apply(current);
    }

    /**
     * Brings the hosted partitions in step with {@code current}, looking only at the topics that differ
     * from the image applied last (TopicImage objects are reused between images while a topic does not
     * change, so the comparison is by identity), or at every topic when the broker config changed.
     */
    private void apply(MetadataImage current) {
        boolean strict = current.finalizedFeatures().level(FinalizedFeatures.ELIGIBLE_LEADER_REPLICAS_VERSION) >= 1;
        if (strict != strictMinIsr) {
            strictMinIsr = strict;
            LOG.info("Eligible leader replicas are {}: high watermarks move {}", strict ? "on" : "off",
                    strict ? "only while the ISR is at least min.insync.replicas" : "with any ISR");
            if (!strict) {
                for (Partition partition : partitions.values()) {
                    if (partition.maybeIncrementHighWatermark()) {
                        stateChanged.accept(partition.topicPartition());
                    }
                }
            }
        }
        BrokerConfig brokerConfig = this.brokerConfig.get();
        MetadataImage before = applied;
        boolean everything = before == null || brokerConfig != appliedBrokerConfig;
        Set<String> changed;
        synchronized (retry) {
            changed = new HashSet<>(retry);
            retry.clear();
        }
        if (everything) {
            topicConfigs.clear();
            changed.addAll(hostedByTopic.keySet());
            current.topics().forEach(t -> changed.add(t.name()));
        } else {
            for (TopicImage topic : current.topics()) {
                if (before.topic(topic.name()) != topic) {
                    changed.add(topic.name());
                }
            }
            for (TopicImage topic : before.topics()) {
                if (current.topic(topic.name()) == null) {
                    changed.add(topic.name());
                }
            }
        }
        applied = current;
        appliedBrokerConfig = brokerConfig;
        if (changed.isEmpty()) {
            return;
        }
        try {
            apply(current, changed, brokerConfig);
        } catch (RuntimeException e) {
            synchronized (retry) {
                retry.addAll(changed); // looked at again at the next image
            }
            throw e;
        }
    }

    private void apply(MetadataImage current, Set<String> changed, BrokerConfig brokerConfig) {
        // 1. Partitions this broker no longer hosts, and those whose leadership changes: fetchers let go first.
        Set<TopicPartition> removed = new HashSet<>();
        Set<TopicPartition> roleChanged = new HashSet<>();
        for (String name : changed) {
            TopicImage topic = current.topic(name);
            for (Partition hosted : hostedOf(name)) {
                PartitionState now = topic == null || !topic.id().equals(hosted.topicId()) ? null
                        : topic.partition(hosted.topicPartition().partition());
                if (now == null || !now.replicas().contains(nodeId)) {
                    removed.add(hosted.topicPartition());
                } else if (now.leader() != hosted.state().leader() || now.leaderEpoch() != hosted.leaderEpoch()) {
                    roleChanged.add(hosted.topicPartition());
                }
            }
        }
        boolean followChanged = !removed.isEmpty() || !roleChanged.isEmpty();
        if (followChanged) {
            Set<TopicPartition> stopping = new HashSet<>(removed);
            stopping.addAll(roleChanged);
            following.stopFollowing(stopping);
        }
        for (TopicPartition tp : removed) {
            followed.remove(tp);
            if (partitions.remove(tp) != null) {
                unindex(tp);
                logManager.deleteLog(tp);
                LOG.info("Deleted replica {}: its topic is gone or its replicas no longer include broker {}", tp, nodeId);
                stateChanged.accept(tp);
            }
        }
        // 2. New and changed partitions; the new ones' logs are created in parallel.
        List<NewReplica> created = new ArrayList<>();
        for (String name : changed) {
            TopicImage topic = current.topic(name);
            if (topic == null) {
                topicConfigs.remove(name);
                continue;
            }
            TopicConfig config = topicConfig(topic, brokerConfig);
            LogConfig logConfig = null;
            for (PartitionState state : topic.partitions()) {
                if (!state.replicas().contains(nodeId)) {
                    continue;
                }
                TopicPartition tp = new TopicPartition(topic.name(), state.partition());
                Partition existing = partitions.get(tp);
                if (existing == null) {
                    if (logConfig == null) {
                        logConfig = LogConfigs.from(config);
                    }
                    created.add(new NewReplica(tp, topic.id(), state, config, logConfig));
                    continue;
                }
                if (existing.config() != config && !existing.config().overrides().equals(config.overrides())) {
                    existing.log().updateConfig(logConfig != null ? logConfig : (logConfig = LogConfigs.from(config)));
                }
                if (!existing.state().equals(state) || existing.config() != config) {
                    existing.update(state, config);
                    stateChanged.accept(tp);
                }
                followChanged |= track(existing);
            }
        }
        for (Partition partition : create(created)) {
            partitions.put(partition.topicPartition(), partition);
            hostedByTopic.computeIfAbsent(partition.topicPartition().topic(), t -> new HashSet<>())
                    .add(partition.topicPartition());
            followChanged |= track(partition);
        }
        // 3. The fetchers follow the partitions led elsewhere, from their current leaders.
        if (followChanged) {
            following.follow(new ArrayList<>(followed.values()));
        }
    }

    /** One replica to create: its log and its {@link Partition}. */
    private record NewReplica(TopicPartition tp, UUID topicId, PartitionState state, TopicConfig config,
                              LogConfig logConfig) {
    }

    /**
     * Creates the logs and partitions, in parallel when there are several (each log's files are
     * created and synced: milliseconds apiece). Returns once every one is done, so the metadata thread
     * still applies images in order. A replica that cannot be created is logged and tried again at the
     * next image.
     */
    private List<Partition> create(List<NewReplica> replicas) {
        if (replicas.isEmpty()) {
            return List.of();
        }
        List<Partition> done = new ArrayList<>(replicas.size());
        if (replicas.size() < PARALLEL_CREATE_FROM) {
            for (NewReplica replica : replicas) {
                Partition partition = createOne(replica);
                if (partition != null) {
                    done.add(partition);
                }
            }
            return done;
        }
        long started = System.nanoTime();
        List<CompletableFuture<Partition>> futures = new ArrayList<>(replicas.size());
        for (NewReplica replica : replicas) {
            futures.add(CompletableFuture.supplyAsync(() -> createOne(replica), creators()));
        }
        for (CompletableFuture<Partition> future : futures) {
            Partition partition = future.join(); // createOne never throws
            if (partition != null) {
                done.add(partition);
            }
        }
        LOG.info("Created {} replicas in {} ms", done.size(), (System.nanoTime() - started) / 1_000_000);
        return done;
    }

    private Partition createOne(NewReplica replica) {
        try {
            PartitionLog log = logManager.getOrCreateLog(replica.tp(), replica.logConfig());
            return new Partition(replica.tp(), replica.topicId(), nodeId, log, replica.state(), replica.config(), fenced,
                    () -> strictMinIsr, stateChanged);
        } catch (RuntimeException e) {
            LOG.error("Could not create replica {}; trying again at the next metadata change", replica.tp(), e);
            synchronized (retry) {
                retry.add(replica.tp().topic());
            }
            return null;
        }
    }

    private synchronized ExecutorService creators() {
        if (creators == null) {
            AtomicInteger count = new AtomicInteger();
            ThreadPoolExecutor pool = new ThreadPoolExecutor(CREATE_THREADS, CREATE_THREADS, 10, TimeUnit.SECONDS,
                    new LinkedBlockingQueue<>(), r -> {
                        Thread t = new Thread(r, "krill-replica-create-" + nodeId + "-" + count.incrementAndGet());
                        t.setDaemon(true);
                        return t;
                    });
            pool.allowCoreThreadTimeOut(true);
            creators = pool;
        }
        return creators;
    }

    /** Whether the set of partitions to follow changed (by membership) with {@code partition}'s state. */
    private boolean track(Partition partition) {
        PartitionState state = partition.state();
        TopicPartition tp = partition.topicPartition();
        if (state.hasLeader() && state.leader() != nodeId) {
            return followed.put(tp, partition) != partition;
        }
        return followed.remove(tp) != null;
    }

    /** The hosted partitions of topic {@code name} (of any topic id). */
    private List<Partition> hostedOf(String name) {
        List<Partition> hosted = new ArrayList<>();
        for (TopicPartition tp : hostedByTopic.getOrDefault(name, Set.of())) {
            Partition partition = partitions.get(tp);
            if (partition != null) {
                hosted.add(partition);
            }
        }
        return hosted;
    }

    private void unindex(TopicPartition tp) {
        Set<TopicPartition> ofTopic = hostedByTopic.get(tp.topic());
        if (ofTopic != null && ofTopic.remove(tp) && ofTopic.isEmpty()) {
            hostedByTopic.remove(tp.topic());
        }
    }

    /** The topic's effective config, the same object as long as its overrides and the broker config stay. */
    private TopicConfig topicConfig(TopicImage topic, BrokerConfig brokerConfig) {
        TopicConfig cached = topicConfigs.get(topic.name());
        if (cached != null && cached.overrides().equals(topic.configs())) {
            return cached;
        }
        TopicConfig config = TopicConfig.resolve(topic.configs(), brokerConfig);
        topicConfigs.put(topic.name(), config);
        return config;
    }

    /** Whether {@code partition} is the one hosted now under its name (not deleted, nor replaced by a re-creation). */
    public boolean isHosted(Partition partition) {
        return partitions.get(partition.topicPartition()) == partition;
    }

    /** The partition, or null when this broker does not host it. */
    public Partition partition(String topic, int partition) {
        return partitions.get(new TopicPartition(topic, partition));
    }

    /**
     * The partition, which must exist in {@code image} and be led here: UNKNOWN_TOPIC_OR_PARTITION when
     * the cluster has no such partition, NOT_LEADER_OR_FOLLOWER when another broker leads it.
     */
    public Partition leaderPartition(MetadataImage image, String topic, int partition) {
        inCluster(image, topic, partition);
        Partition hosted = partitions.get(new TopicPartition(topic, partition));
        if (hosted == null || !hosted.isLeader() || leadingStopped) {
            throw new ApiException(Errors.NOT_LEADER_OR_FOLLOWER, "Broker " + nodeId + " is not the leader of "
                    + topic + "-" + partition);
        }
        return hosted;
    }

    /**
     * The partition for a consumer's fetch of version 11 or later (KIP-392): led here, or followed here,
     * where the consumer reads up to this replica's high watermark. UNKNOWN_TOPIC_OR_PARTITION when the
     * cluster has no such partition, NOT_LEADER_OR_FOLLOWER when this broker holds no replica of it.
     */
    public Partition replicaPartition(MetadataImage image, String topic, int partition) {
        PartitionState state = inCluster(image, topic, partition);
        Partition hosted = partitions.get(new TopicPartition(topic, partition));
        if (hosted == null || leadingStopped || !state.replicas().contains(nodeId)) {
            throw new ApiException(Errors.NOT_LEADER_OR_FOLLOWER, "Broker " + nodeId + " has no replica of "
                    + topic + "-" + partition);
        }
        return hosted;
    }

    /** The partition's state in {@code image}; UNKNOWN_TOPIC_OR_PARTITION when the cluster has no such partition. */
    private static PartitionState inCluster(MetadataImage image, String topic, int partition) {
        TopicImage topicImage = image.topic(topic);
        PartitionState state = topicImage == null ? null : topicImage.partition(partition);
        if (state == null) {
            throw new ApiException(Errors.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic-partition: "
                    + topic + "-" + partition);
        }
        return state;
    }

    /**
     * Controlled shutdown: from now on every request for a partition answers NOT_LEADER_OR_FOLLOWER, so
     * clients look for the new leaders while this broker hands its leaderships over.
     */
    public void stopLeading() {
        leadingStopped = true;
    }

    public Collection<Partition> partitions() {
        return partitions.values();
    }
}

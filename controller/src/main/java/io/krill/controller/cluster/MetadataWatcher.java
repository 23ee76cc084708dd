package io.krill.controller.cluster;

import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.MetadataListener;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.helix.zookeeper.datamodel.ZNRecord;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this broker's {@link MetadataImage} current from ZooKeeper on one thread
 * ({@code krill-metadata-<nodeId>}) and tells listeners of new images, in order, on another
 * ({@code krill-metadata-apply-<nodeId>}, see {@link ImageNotifier}), so that a listener's slow work (the
 * partition manager creating two thousand logs for one CreateTopics) never holds back the reading of
 * ZooKeeper nor the image that request threads serve from. Driven by persistent watches, not
 * polling: on each event the thread re-reads the node it names (reads on one session are in order, so
 * a re-read is never older than the event; the topic nodes a batch of events names are read together
 * in pipelined rounds). Partition nodes are not watched: every multi that writes partition records
 * carries a digest of them ({@link DigestsSeen}), so a broker reads one node per multi and ZooKeeper
 * sends one event per multi instead of one per record. A new image is published after a batch:
 * the work queued when the batch began, so a burst of changes makes one image, while work that keeps
 * arriving (Helix writes dozens of watched nodes while a broker joins) cannot hold back the image, and
 * the callers waiting for it, until the burst ends. After every (re)connection
 * the whole tree is read again, because ZooKeeper does not replay persistent-watch events missed
 * while disconnected.
 *
 * <p>Two kinds of completion: the {@code refresh*} methods and {@link #barrier()} complete once this
 * broker's listeners have applied the image that shows the change (what a caller that goes on to use
 * the broker's own state needs); {@link #publishedBarrier()} and {@link #refreshTopicsPublished}
 * complete as soon as the image is published, as Kafka's brokers update their metadata cache before
 * the replica manager creates the logs.
 *
 * <p>Thread-safety: the cache below is confined to the watcher thread; {@link #image()} is a
 * volatile read; the {@code refresh*} and {@code submit} methods may be called from any thread.
 */
final class MetadataWatcher implements ZkSession.Listener, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MetadataWatcher.class);
    private static final long RETRY_DELAY_MS = 1_000;

    private final ZkPaths paths;
    private final SessionFence fence;
    private final String ownLiveInstance;
    private final Thread thread;
    private final LinkedBlockingQueue<Task> tasks = new LinkedBlockingQueue<>();
    private final List<MetadataListener> listeners = new CopyOnWriteArrayList<>();
    private final List<FencingListener> fencingListeners = new CopyOnWriteArrayList<>();
    private final ImageNotifier notifier;
    private volatile ZkSession session;
    private volatile MetadataImage image;
    private volatile boolean closed;
    private volatile long listenerFailures;

    // Confined to the notification thread.
    private String clusterId;
    private int controllerId = -1;
    private final Map<Integer, BrokerInfo> registered = new HashMap<>();
    private Set<Integer> live = Set.of();
    /** The topics and their partition records, and which topic nodes are watched. */
    private final TopicCache topics;
    private final Map<String, Map<String, String>> entityConfigs = new HashMap<>();
    private boolean dirty;
    /** The last image handed to the notifier. */
    private MetadataImage delivered;
    private final Set<String> changedTopics = new java.util.LinkedHashSet<>();
    /** Whether this batch's events say a topic node was created or deleted (the topics' list changed). */
    private boolean topicListChanged;
    /** The digests this batch's events named: how changed partition records are learned. */
    private final DigestsSeen digests = new DigestsSeen();
    private volatile long missedDigests;

    /**
     * A unit of work for the watcher thread; {@code done} completes with the next image, once it is
     * published ({@code published}) or once this broker's listeners have applied it.
     */
    private record Task(Runnable work, CompletableFuture<MetadataImage> done, boolean published) {
        Task(Runnable work, CompletableFuture<MetadataImage> done) {
            this(work, done, false);
        }
    }

    /** A batch slower than this is logged: what keeps other brokers' views behind at scale. */
    private static final long SLOW_BATCH_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    MetadataWatcher(ZkPaths paths, SessionFence fence, int nodeId) {
        this.paths = paths;
        this.topics = new TopicCache(paths, () -> session);
        this.fence = fence;
        this.ownLiveInstance = paths.liveInstances() + "/" + ZkPaths.instanceName(nodeId);
        this.image = new MetadataImage(null, -1, List.of(), List.of());
        this.thread = new Thread(this::run, "krill-metadata-" + nodeId);
        this.thread.setDaemon(true);
        this.delivered = image;
        this.notifier = new ImageNotifier(listeners, fencingListeners, this::listenerFailed, image,
                "krill-metadata-apply-" + nodeId);
    }

    /** Starts the notification thread on {@code zkSession} and returns after the first full read. */
    void start(ZkSession zkSession, long timeoutMs) {
        this.session = zkSession;
        notifier.start();
        thread.start();
        await(submit(this::resync), timeoutMs);
    }

    MetadataImage image() {
        return image;
    }

    void addListener(MetadataListener listener) {
        listeners.add(listener);
    }

    void addFencingListener(FencingListener listener) {
        fencingListeners.add(listener);
    }

    /** How many changed partition records were taken from digests instead of being read: for tests. */
    long recordsFromDigests() {
        return topics.recordsFromDigests();
    }

    /** How many times a missed digest made this watcher read every partition record again: for tests. */
    long missedDigests() {
        return missedDigests;
    }

    /** How many times a listener threw; each failure is logged with its stack trace. */
    long listenerFailures() {
        return listenerFailures;
    }

    /** Re-reads a topic (after this broker changed it) and completes once the image shows it. */
    CompletableFuture<MetadataImage> refreshTopic(String name) {
        return submit(() -> topics.reloadTopic(name, false));
    }

    /**
     * Completes after the image that follows everything queued so far: the events of this session's
     * writes that have been answered are in it.
     */
    CompletableFuture<MetadataImage> barrier() {
        return submit(() -> { });
    }

    /**
     * Like {@link #barrier()}, but completes as soon as the image is published, without waiting for
     * this broker's listeners to apply it.
     */
    CompletableFuture<MetadataImage> publishedBarrier() {
        return submit(() -> { }, true);
    }

    /**
     * The image once it shows this session's answered writes (their events came before the answers), or
     * the current image if the watcher has not published it within {@code timeoutMs}. For writers that
     * decide their next writes from the image, or that should let other brokers' reads of their digests
     * go first (see ZooKeeperMetadataStore's resignation).
     */
    MetadataImage imageAfterOwnWrites(long timeoutMs) {
        try {
            return publishedBarrier().get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            return image; // closing, or a slow ZooKeeper: the caller's version checks cover a stale image
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return image;
        }
    }

    /** Like {@link #refreshTopics}, but completes as soon as the image that shows them is published. */
    CompletableFuture<MetadataImage> refreshTopicsPublished(Collection<String> names) {
        List<String> copy = List.copyOf(names);
        return submit(() -> topics.reloadTopics(copy, false), true);
    }

    /** Re-reads several topics in one task and completes once the image shows them all. */
    CompletableFuture<MetadataImage> refreshTopics(Collection<String> names) {
        List<String> copy = List.copyOf(names);
        return submit(() -> topics.reloadTopics(copy, false));
    }

    CompletableFuture<MetadataImage> refreshEntityConfig(String entity) {
        return submit(() -> reloadEntityConfig(entity));
    }

    CompletableFuture<MetadataImage> refreshPartition(String topic, int partition) {
        return submit(() -> topics.reloadPartition(topic, partition));
    }

    CompletableFuture<MetadataImage> refreshBrokers() {
        return submit(() -> {
            reloadInstanceConfigs();
            reloadLive();
            reloadController();
        });
    }

    /** Tells fencing listeners of a change, in order with images: after those published before it. */
    void fencingChanged(boolean fenced) {
        if (closed) {
            return;
        }
        tasks.add(new Task(() -> notifier.fencingChanged(fenced), null));
    }

    /** Waits for {@code future}; a timeout or failure becomes a {@link ZkUnavailableException}. */
    static MetadataImage await(CompletableFuture<MetadataImage> future, long timeoutMs) {
        return awaitValue(future, timeoutMs);
    }

    /** Waits for {@code future}; a timeout or failure becomes a {@link ZkUnavailableException}. */
    static <T> T awaitValue(CompletableFuture<T> future, long timeoutMs) {
        try {
            return future.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ZkUnavailableException("interrupted while waiting for metadata", e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new ZkUnavailableException("metadata not refreshed within " + timeoutMs + " ms", e);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    private CompletableFuture<MetadataImage> submit(Runnable work) {
        return submit(work, false);
    }

    private CompletableFuture<MetadataImage> submit(Runnable work, boolean published) {
        CompletableFuture<MetadataImage> done = new CompletableFuture<>();
        if (closed) {
            done.completeExceptionally(new ZkUnavailableException("metadata store closed", null));
            return done;
        }
        tasks.add(new Task(work, done, published));
        return done;
    }

    // ZkSession.Listener, on ZooKeeper's event thread.

    @Override
    public void onConnected(boolean newSession) {
        fence.dataConnected(true);
        // After a disconnect, events may have been missed: read everything again.
        if (!closed) {
            tasks.add(new Task(this::resync, null));
        }
    }

    @Override
    public void onDisconnected() {
        fence.dataConnected(false);
        fence.liveInstanceOwner(0); // unknown until read again after reconnecting
    }

    @Override
    public void onExpired() {
        fence.dataConnected(false);
        fence.liveInstanceOwner(0);
    }

    @Override
    public void onNodeEvent(WatchedEvent event) {
        if (!closed) {
            tasks.add(new Task(() -> handle(event), null));
        }
    }

    @Override
    public void close() {
        closed = true;
        tasks.add(new Task(null, null));
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        notifier.close();
    }

    // The notification thread.

    private void run() {
        List<Task> done = new ArrayList<>();
        while (true) {
            Task task;
            try {
                task = tasks.take();
            } catch (InterruptedException e) {
                return;
            }
            boolean stop = false;
            int batch = tasks.size(); // the rest of this batch: what was queued when it began
            while (task != null) {
                if (task.work() == null) {
                    stop = true;
                    break;
                }
                if (execute(task)) {
                    done.add(task);
                }
                task = batch-- > 0 ? tasks.poll() : null;
            }
            long started = System.nanoTime();
            int changedTopicCount = changedTopics.size();
            long digestedBefore = topics.recordsFromDigests();
            readChanged();
            long read = System.nanoTime();
            MetadataImage published = publish();
            long applied = System.nanoTime();
            if (applied - started >= SLOW_BATCH_NANOS) {
                LOG.info("metadata: {} changed topic(s) and {} changed partition record(s) from digests"
                        + " read in {} ms, the new image built in {} ms", changedTopicCount,
                        topics.recordsFromDigests() - digestedBefore, TimeUnit.NANOSECONDS.toMillis(read - started),
                        TimeUnit.NANOSECONDS.toMillis(applied - read));
            }
            List<CompletableFuture<MetadataImage>> afterApply = null;
            for (Task finished : done) {
                if (finished.published()) {
                    finished.done().complete(published);
                } else {
                    if (afterApply == null) {
                        afterApply = new ArrayList<>();
                    }
                    afterApply.add(finished.done());
                }
            }
            done.clear();
            if (published != delivered || afterApply != null) {
                notifier.imagePublished(published, afterApply == null ? List.of() : afterApply);
                delivered = published;
            }
            if (stop) {
                failPending();
                return;
            }
        }
    }

    /**
     * What this batch's events named: the topics (a changed list of topics first, then every named
     * topic node in two pipelined rounds, their new partitions with them) and the digests of the multis
     * that wrote partition records (one pipelined round). A missed digest means reading every partition
     * record again.
     */
    private void readChanged() {
        if (changedTopics.isEmpty() && !topicListChanged && !digests.anyNamed()) {
            return;
        }
        List<String> names = new ArrayList<>(changedTopics);
        changedTopics.clear();
        boolean listChanged = topicListChanged;
        topicListChanged = false;
        try {
            List<DigestsSeen.Digest> read = digests.readNamed(session);
            if (listChanged) {
                Set<String> now = new HashSet<>(session.childrenOrEmpty(paths.topics()));
                for (String name : now) {
                    if (!topics.names().contains(name)) {
                        names.add(name);
                    }
                }
                for (String name : topics.names()) {
                    if (!now.contains(name)) {
                        names.add(name);
                    }
                }
            }
            topics.reloadTopics(new java.util.LinkedHashSet<>(names), false);
            boolean missed = !topics.applyDigests(read) | digests.takeMissed();
            if (missed) {
                missedDigests++;
                LOG.info("metadata: a multi's digest was rewritten before it was read; reading every partition record again");
                topics.reloadTopics(new ArrayList<>(topics.names()), true);
            }
        } catch (RuntimeException e) {
            LOG.warn("metadata refresh failed ({}); reading everything again in {} ms", e.toString(), RETRY_DELAY_MS);
            scheduleResync();
        }
    }

    /** Runs one task; false when it failed (its future is failed and a full re-read scheduled) or has no future. */
    private boolean execute(Task task) {
        try {
            task.work().run();
            return task.done() != null;
        } catch (RuntimeException e) {
            // The task's caller learns of the failure through its future; the cache may have missed a
            // change, so everything is read again once ZooKeeper answers.
            LOG.warn("metadata refresh failed ({}); reading everything again in {} ms", e.toString(), RETRY_DELAY_MS);
            if (task.done() != null) {
                task.done().completeExceptionally(e);
            }
            scheduleResync();
            return false;
        }
    }

    private void scheduleResync() {
        CompletableFuture.delayedExecutor(RETRY_DELAY_MS, TimeUnit.MILLISECONDS).execute(() -> {
            if (!closed) {
                tasks.add(new Task(this::resync, null));
            }
        });
    }

    private void failPending() {
        for (Task task; (task = tasks.poll()) != null; ) {
            if (task.done() != null) {
                task.done().completeExceptionally(new ZkUnavailableException("metadata store closed", null));
            }
        }
    }

    private MetadataImage publish() {
        boolean topicsChanged = topics.takeChanged();
        if (!dirty && !topicsChanged) {
            return image;
        }
        dirty = false;
        List<BrokerInfo> brokers = new ArrayList<>();
        for (BrokerInfo broker : registered.values()) {
            if (live.contains(broker.nodeId())) {
                brokers.add(broker);
            }
        }
        MetadataImage next = new MetadataImage(clusterId, controllerId, brokers, topics.images(), entityConfigs);
        image = next;
        return next;
    }

    private void listenerFailed(Object listener, RuntimeException e) {
        listenerFailures++;
        LOG.error("metadata listener {} failed", listener, e);
    }

    private void handle(WatchedEvent event) {
        String path = event.getPath();
        if (path == null) {
            return;
        }
        String topicsPrefix = paths.topics() + "/";
        Watcher.Event.EventType type = event.getType();
        if (path.equals(paths.topics())) {
            if (type == Watcher.Event.EventType.NodeChildrenChanged) {
                topicListChanged = true; // a topic created or deleted: the list is read with the batch
            }
        } else if (path.startsWith(topicsPrefix)) {
            // Topic nodes only: partition nodes are not watched (their changes come in digests). A topic
            // node's children change with its own data (growth) or deletion, which tell already.
            String name = path.substring(topicsPrefix.length());
            if (name.indexOf('/') < 0 && type != Watcher.Event.EventType.NodeChildrenChanged) {
                changedTopics.add(name); // read with the batch's other topics
            }
        } else if (path.startsWith(paths.partitionDigests() + "/")) {
            if (type == Watcher.Event.EventType.NodeDataChanged && event.getZxid() != WatchedEvent.NO_ZXID) {
                digests.named(path, event.getZxid());
            }
        } else if (path.startsWith(paths.entityConfigs() + "/")) {
            reloadEntityConfig(ZkPaths.entityOfNode(path.substring(paths.entityConfigs().length() + 1)));
        } else if (path.equals(paths.clusterId())) {
            reloadClusterId();
        } else if (path.startsWith(paths.liveInstances() + "/")) {
            if (event.getType() != Watcher.Event.EventType.NodeDataChanged) {
                reloadLive();
            }
        } else if (path.startsWith(paths.instanceConfigs() + "/")) {
            reloadInstanceConfig(path.substring(paths.instanceConfigs().length() + 1));
        } else if (path.equals(paths.controllerLeader())) {
            reloadController();
        }
    }

    /** Reads everything; the watches are (re-)added first so that no change slips in between. */
    private void resync() {
        ZkSession zk = session;
        // Not the partition nodes: a watch event per record to every broker was most of ZooKeeper's work
        // in a failover; changed records are learned from the digests of the multis that write them.
        zk.watchRecursively(List.of(paths.clusterId(), paths.entityConfigs(), paths.partitionDigests(),
                paths.liveInstances(), paths.instanceConfigs(), paths.controllerLeader()));
        zk.watchAll(List.of(paths.topics()));
        topics.forgetWatches();
        digests.clear();
        topicListChanged = false;
        reloadClusterId();
        reloadInstanceConfigs();
        reloadLive();
        reloadController();
        Set<String> names = new HashSet<>(zk.childrenOrEmpty(paths.topics()));
        topics.retainOnly(names);
        changedTopics.removeAll(names);
        topics.reloadTopics(names, true);
        entityConfigs.clear();
        for (String node : zk.childrenOrEmpty(paths.entityConfigs())) {
            reloadEntityConfig(ZkPaths.entityOfNode(node));
        }
        dirty = true;
    }

    private void reloadEntityConfig(String entity) {
        byte[] data = session.readOrNull(paths.entityConfig(entity), new Stat());
        Map<String, String> configs = data == null ? Map.of() : MetadataRecords.decodeEntityConfigs(data);
        Map<String, String> previous = configs.isEmpty() ? entityConfigs.remove(entity) : entityConfigs.put(entity, configs);
        if (!configs.equals(previous == null ? Map.of() : previous)) {
            dirty = true;
        }
    }

    private void reloadClusterId() {
        byte[] data = session.readOrNull(paths.clusterId(), new Stat());
        String id = data == null ? null : MetadataRecords.decodeClusterId(data);
        if (id != null && !id.equals(clusterId)) {
            clusterId = id;
            dirty = true;
        }
    }

    private void reloadInstanceConfigs() {
        Set<Integer> seen = new HashSet<>();
        for (String instance : session.childrenOrEmpty(paths.instanceConfigs())) {
            BrokerInfo broker = reloadInstanceConfig(instance);
            if (broker != null) {
                seen.add(broker.nodeId());
            }
        }
        if (registered.keySet().retainAll(seen)) {
            dirty = true;
        }
    }

    private BrokerInfo reloadInstanceConfig(String instance) {
        int nodeId = ZkPaths.nodeId(instance);
        if (nodeId < 0) {
            return null;
        }
        byte[] data = session.readOrNull(paths.instanceConfig(instance), new Stat());
        BrokerInfo broker = data == null ? null : MetadataRecords.readBroker(MetadataRecords.deserialize(data));
        BrokerInfo previous = broker == null ? registered.remove(nodeId) : registered.put(nodeId, broker);
        if (!java.util.Objects.equals(previous, broker)) {
            dirty = true;
        }
        return broker;
    }

    private void reloadLive() {
        Set<Integer> ids = new HashSet<>();
        for (String instance : session.childrenOrEmpty(paths.liveInstances())) {
            int nodeId = ZkPaths.nodeId(instance);
            if (nodeId >= 0) {
                ids.add(nodeId);
            }
        }
        if (!ids.equals(live)) {
            live = Set.copyOf(ids);
            dirty = true;
        }
        Stat own = new Stat();
        fence.liveInstanceOwner(session.readOrNull(ownLiveInstance, own) == null ? 0 : own.getEphemeralOwner());
    }

    private void reloadController() {
        byte[] data = session.readOrNull(paths.controllerLeader(), new Stat());
        int id = -1;
        if (data != null) {
            ZNRecord record = MetadataRecords.deserialize(data);
            id = ZkPaths.nodeId(record.getId());
        }
        if (id != controllerId) {
            controllerId = id;
            dirty = true;
        }
    }

    /**
     * Re-reads a topic node; its partitions too when {@code all} or when they are new (otherwise their
     * own events keep them current).
     */
}

package io.krill.controller.cluster;

import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.zookeeper.data.Stat;

/**
 * The topics of {@link MetadataWatcher}'s image as read from ZooKeeper: each topic's record and its
 * partitions' records with the zxids that order re-reads, which topic nodes carry a persistent watch,
 * and how the reads are batched (topic nodes, then partition nodes, in two pipelined rounds) and how a
 * multi's digest is placed.
 *
 * <p>Not thread-safe: confined to the watcher's thread, like the rest of its cache.
 */
final class TopicCache {
    private final ZkPaths paths;
    private final Supplier<ZkSession> sessions;
    private final Map<String, CachedTopic> topics = new HashMap<>();
    /** Topic nodes this session has a persistent watch on. */
    private final Set<String> watchedTopics = new HashSet<>();
    /** Whether a topic or partition changed since {@link #takeChanged()}. */
    private boolean dirty;
    private volatile long recordsFromDigests;

    TopicCache(ZkPaths paths, Supplier<ZkSession> sessions) {
        this.paths = paths;
        this.sessions = sessions;
    }

    /** Whether anything changed since the last call (the image is to be made again). */
    boolean takeChanged() {
        boolean changed = dirty;
        dirty = false;
        return changed;
    }

    Set<String> names() {
        return topics.keySet();
    }

    List<TopicImage> images() {
        List<TopicImage> images = new ArrayList<>(topics.size());
        for (CachedTopic topic : topics.values()) {
            images.add(topic.image());
        }
        return images;
    }

    /** Records placed from digests since start. */
    long recordsFromDigests() {
        return recordsFromDigests;
    }

    /** A new session: the server has forgotten the watches, which are added again as topics are read. */
    void forgetWatches() {
        watchedTopics.clear();
    }

    /** Drops the topics not in {@code present} (a full re-read's list). */
    void retainOnly(Set<String> present) {
        if (topics.keySet().retainAll(present)) {
            dirty = true;
        }
    }

    /**
     * Reads a topic again (its node, and its partition nodes unless the node shows them unchanged);
     * {@code all} re-reads every partition record whatever the zxids say.
     */
    void reloadTopic(String name, boolean all) {
        reloadTopics(List.of(name), all);
    }

    /**
     * {@link #reloadTopic} for several topics in two pipelined rounds, whatever their number: every
     * topic node, then every partition node to read. A burst of a hundred creations, or a resync, then
     * costs two round trips instead of two per topic, which on a loaded ZooKeeper (tens of ms each) was
     * most of a large CreateTopics.
     */
    void reloadTopics(Collection<String> names, boolean all) {
        if (names.isEmpty()) {
            return;
        }
        List<String> topicPaths = new ArrayList<>(names.size());
        List<String> toWatch = new ArrayList<>();
        for (String name : names) {
            topicPaths.add(paths.topic(name));
            if (!watchedTopics.contains(name)) {
                toWatch.add(paths.topic(name));
            }
        }
        // the watch before the read: a change in between is not missed
        sessions.get().watchAll(toWatch);
        for (String name : names) {
            watchedTopics.add(name);
        }
        Stat[] topicStats = newStats(topicPaths.size());
        byte[][] topicData = sessions.get().readAll(topicPaths, topicStats);
        List<TopicRead> reads = new ArrayList<>();
        List<String> partitionPaths = new ArrayList<>();
        int i = 0;
        for (String name : names) {
            byte[] data = topicData[i];
            Stat stat = topicStats[i++];
            CachedTopic cached = topics.get(name);
            if (data == null) {
                if (topics.remove(name) != null) {
                    dirty = true;
                }
                if (watchedTopics.remove(name)) {
                    sessions.get().unwatchLater(paths.topic(name)); // a re-creation is seen on the topics' list
                }
                continue;
            }
            if (!all && cached != null && stat.getMzxid() == cached.mzxid) {
                continue;
            }
            MetadataRecords.TopicRecord record = MetadataRecords.decodeTopic(name, data);
            boolean sameTopic = !all && cached != null && cached.record.id().equals(record.id());
            if (!all && !sameTopic && stat.getCzxid() == stat.getMzxid()
                    && record.initialStates().size() == record.partitionCount()) {
                // A new topic whose node is as created: its partition nodes were created in the same
                // multi (one zxid), and a later change of any comes in a digest whose event is after
                // this one.
                PartitionState[] partitions = record.initialStates().toArray(PartitionState[]::new);
                long[] partitionMzxids = new long[partitions.length];
                java.util.Arrays.fill(partitionMzxids, stat.getCzxid());
                topics.put(name, new CachedTopic(record, stat.getMzxid(), partitions, partitionMzxids));
                dirty = true;
                continue;
            }
            TopicRead read = new TopicRead(name, record, stat.getMzxid(), new PartitionState[record.partitionCount()],
                    new long[record.partitionCount()], partitionPaths.size(), new ArrayList<>());
            for (int p = 0; p < read.partitions.length; p++) {
                if (sameTopic && p < cached.partitions.length) {
                    read.partitions[p] = cached.partitions[p];
                    read.partitionMzxids[p] = cached.partitionMzxids[p];
                } else {
                    partitionPaths.add(paths.partition(name, p));
                    read.toRead.add(p);
                }
            }
            reads.add(read);
        }
        Stat[] stats = newStats(partitionPaths.size());
        byte[][] partitionData = sessions.get().readAll(partitionPaths, stats);
        next:
        for (TopicRead read : reads) {
            for (int k = 0; k < read.toRead.size(); k++) {
                int at = read.firstRead + k;
                if (partitionData[at] == null) {
                    // Deleted under us (a topic is created and deleted in one multi-op): the deletion's
                    // own event removes it.
                    continue next;
                }
                int p = read.toRead.get(k);
                read.partitions[p] = MetadataRecords.decodePartition(p, partitionData[at]);
                read.partitionMzxids[p] = stats[at].getMzxid();
            }
            topics.put(read.name, new CachedTopic(read.record, read.mzxid, read.partitions, read.partitionMzxids));
            dirty = true;
        }
    }

    /** One topic of {@link #reloadTopics} between its two rounds; its partition reads start at {@code firstRead}. */
    private record TopicRead(String name, MetadataRecords.TopicRecord record, long mzxid, PartitionState[] partitions,
                             long[] partitionMzxids, int firstRead, List<Integer> toRead) {
    }

    private static Stat[] newStats(int n) {
        Stat[] stats = new Stat[n];
        for (int i = 0; i < n; i++) {
            stats[i] = new Stat();
        }
        return stats;
    }

    void reloadPartition(String name, int partition) {
        CachedTopic cached = topics.get(name);
        if (cached == null || partition >= cached.partitions.length) {
            return; // the topic's own event (creation, growth) reads it
        }
        Stat stat = new Stat();
        applyPartition(name, partition, sessions.get().readOrNull(paths.partition(name, partition), stat), stat);
    }

    private void applyPartition(String name, int partition, byte[] data, Stat stat) {
        CachedTopic cached = topics.get(name);
        if (cached == null || partition >= cached.partitions.length) {
            return;
        }
        if (data == null || stat.getMzxid() <= cached.partitionMzxids[partition]) {
            return;
        }
        MetadataRecords.PartitionRecord record = MetadataRecords.decodePartitionRecord(partition, data);
        if (!record.topicId().equals(cached.record.id())) {
            reloadTopic(name, true); // the topic was deleted and created again
            return;
        }
        cached.setPartition(partition, record.state(), stat.getMzxid());
        dirty = true;
    }

    /**
     * Takes each digest's records into the cache, unless the cache already holds a later one of that
     * partition, or the record is of a deleted (or deleted and re-created) topic.
     *
     * @return false when a record could not be placed though its topic is the one cached (the caller
     *         reads everything again)
     */
    boolean applyDigests(List<DigestsSeen.Digest> read) {
        boolean placed = true;
        long fromDigests = 0;
        for (DigestsSeen.Digest digest : read) {
            for (PartitionDigest.Entry entry : digest.entries()) {
                CachedTopic cached = topics.get(entry.topic());
                if (cached == null || !entry.topicId().equals(cached.record.id())) {
                    continue; // deleted since; or the digest is of an earlier topic of that name
                }
                int partition = entry.state().partition();
                if (partition >= cached.partitions.length) {
                    placed = false; // cannot happen: a growth's own event comes first and was read above
                    continue;
                }
                if (digest.zxid() > cached.partitionMzxids[partition]) {
                    cached.setPartition(partition, entry.state(), digest.zxid());
                    dirty = true;
                }
                fromDigests++;
            }
        }
        recordsFromDigests += fromDigests;
        return placed;
    }
}

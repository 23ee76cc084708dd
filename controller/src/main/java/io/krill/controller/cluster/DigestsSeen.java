package io.krill.controller.cluster;

import io.krill.controller.metadata.TopicPartitionKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link PartitionDigest}s a watcher has seen: the digest nodes a batch of watch events named, read
 * in one pipelined round, and kept by the zxid of the multi that wrote them, so that a partition event
 * of the same multi finds its record here instead of reading it. A digest rewritten since its event
 * (its modification zxid differs), removed or unparsable is dropped: its records are read one by one.
 * The last {@value #KEPT} digests are kept, since a multi's events may straddle two batches (the
 * digest's event comes first).
 *
 * <p>Not thread-safe: confined to the metadata watcher's thread.
 */
final class DigestsSeen {
    private static final Logger LOG = LoggerFactory.getLogger(DigestsSeen.class);
    private static final int KEPT = 256;

    /** Digest nodes named by the current batch's events, with the zxid of the last event of each. */
    private final Map<String, Long> named = new LinkedHashMap<>();
    private final Map<Long, Map<TopicPartitionKey, PartitionDigest.Entry>> byZxid =
            new LinkedHashMap<>(16, 0.75f, false) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<Long, Map<TopicPartitionKey, PartitionDigest.Entry>> eldest) {
                    return size() > KEPT;
                }
            };

    /** A NodeDataChanged event of a digest node, with its zxid. */
    void named(String path, long zxid) {
        named.put(path, zxid);
    }

    boolean anyNamed() {
        return !named.isEmpty();
    }

    /** Reads the digests named since the last call, in one pipelined round, and keeps those still as written. */
    void readNamed(ZkSession session) {
        if (named.isEmpty()) {
            return;
        }
        List<String> paths = new ArrayList<>(named.keySet());
        List<Long> zxids = new ArrayList<>(named.values());
        named.clear();
        Stat[] stats = new Stat[paths.size()];
        for (int i = 0; i < stats.length; i++) {
            stats[i] = new Stat();
        }
        byte[][] data = session.readAll(paths, stats);
        for (int i = 0; i < data.length; i++) {
            long zxid = zxids.get(i);
            if (data[i] == null || stats[i].getMzxid() != zxid) {
                continue; // rewritten by a later multi since (or removed): its records are read one by one
            }
            List<PartitionDigest.Entry> entries = PartitionDigest.decode(data[i]);
            if (entries == null) {
                LOG.warn("digest node {} does not parse; reading its records one by one", paths.get(i));
                continue;
            }
            Map<TopicPartitionKey, PartitionDigest.Entry> byKey = new HashMap<>(entries.size() * 2);
            for (PartitionDigest.Entry entry : entries) {
                byKey.put(new TopicPartitionKey(entry.topic(), entry.state().partition()), entry);
            }
            byZxid.put(zxid, byKey);
        }
    }

    /** The record the multi of transaction {@code zxid} wrote for {@code key}, if its digest was read; else null. */
    PartitionDigest.Entry find(TopicPartitionKey key, long zxid) {
        Map<TopicPartitionKey, PartitionDigest.Entry> digest = byZxid.get(zxid);
        return digest == null ? null : digest.get(key);
    }
}

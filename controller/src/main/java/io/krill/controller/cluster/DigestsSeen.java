package io.krill.controller.cluster;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link PartitionDigest}s that a batch of watch events named: how a watcher learns of changed
 * partition records, since partition nodes are not watched (a watch event for each record to each
 * broker was most of ZooKeeper's work in a failover). Every multi that writes partition records starts
 * with a set-data of one of its writer's digest nodes, so the digest's event says which multi (its
 * zxid) and the digest holds exactly that multi's records. The named digests are read in one pipelined
 * round. A digest that no longer holds the multi its event announced (the writer has reused the slot
 * since, it was named twice in one batch, it is gone or does not parse) is <em>missed</em>: which
 * records that multi wrote is then unknown, and the watcher must read every partition record again.
 *
 * <p>Not thread-safe: confined to the metadata watcher's thread.
 */
final class DigestsSeen {
    private static final Logger LOG = LoggerFactory.getLogger(DigestsSeen.class);

    /** Digest nodes named by the current batch's events, with the zxid of each event. */
    private final Map<String, Long> named = new LinkedHashMap<>();
    private boolean missed;

    /** A digest as read: the zxid of the multi that wrote it, and the records it wrote. */
    record Digest(long zxid, List<PartitionDigest.Entry> entries) {
    }

    /** A NodeDataChanged event of a digest node, with its zxid. */
    void named(String path, long zxid) {
        Long before = named.put(path, zxid);
        if (before != null && before != zxid) {
            missed = true; // the node holds only the later multi's records now
        }
    }

    boolean anyNamed() {
        return !named.isEmpty();
    }

    /** Reads the digests named since the last call, in one pipelined round; those not as written are missed. */
    List<Digest> readNamed(ZkSession session) {
        if (named.isEmpty()) {
            return List.of();
        }
        List<String> paths = new ArrayList<>(named.keySet());
        List<Long> zxids = new ArrayList<>(named.values());
        named.clear();
        Stat[] stats = new Stat[paths.size()];
        for (int i = 0; i < stats.length; i++) {
            stats[i] = new Stat();
        }
        byte[][] data = session.readAll(paths, stats);
        List<Digest> digests = new ArrayList<>(data.length);
        for (int i = 0; i < data.length; i++) {
            long zxid = zxids.get(i);
            if (data[i] == null || stats[i].getMzxid() != zxid) {
                missed = true; // rewritten by a later multi since (or removed)
                continue;
            }
            List<PartitionDigest.Entry> entries = PartitionDigest.decode(data[i]);
            if (entries == null) {
                LOG.warn("digest node {} does not parse", paths.get(i));
                missed = true;
                continue;
            }
            digests.add(new Digest(zxid, entries));
        }
        return digests;
    }

    /** Whether a digest was missed since the last call (the caller then reads every record again). */
    boolean takeMissed() {
        boolean was = missed;
        missed = false;
        return was;
    }

    /** Forgets what was named and missed: everything is about to be read again. */
    void clear() {
        named.clear();
        missed = false;
    }
}

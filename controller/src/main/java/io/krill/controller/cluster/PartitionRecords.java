package io.krill.controller.cluster;

import io.krill.controller.metadata.PartitionState;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * Reads and compare-and-sets partition-state records: every write carries the ZooKeeper version it
 * was computed from, so of two writers racing on one partition (a leader changing its ISR, a replica
 * taking leadership, the controller declaring a partition leaderless) exactly one wins and the other
 * recomputes from the winner's record. This is what fences a zombie leader: its next ISR change fails.
 *
 * <p>Thread-safe (stateless over a thread-safe session).
 */
final class PartitionRecords {
    private static final int MAX_ATTEMPTS = 20;

    private final ZkSession session;
    private final ZkPaths paths;

    /** A record as read, with what a conditional write of it needs. */
    record Versioned(PartitionState state, UUID topicId, int version) {
    }

    PartitionRecords(ZkSession session, ZkPaths paths) {
        this.session = session;
        this.paths = paths;
    }

    /** The partition's record, or null when the topic or partition does not exist. */
    Versioned read(String topic, int partition) {
        Stat stat = new Stat();
        byte[] data = session.readOrNull(paths.partition(topic, partition), stat);
        if (data == null) {
            return null;
        }
        return new Versioned(MetadataRecords.decodePartition(partition, data), MetadataRecords.topicIdOf(data),
                stat.getVersion());
    }

    /**
     * Writes {@code proposed} if the record is still at {@code read}'s version.
     *
     * @return false when another writer got there first (re-read and decide again)
     */
    boolean compareAndSet(String topic, Versioned read, PartitionState proposed) {
        byte[] data = MetadataRecords.encodePartition(topic, read.topicId(), proposed);
        String path = paths.partition(topic, proposed.partition());
        try {
            session.call(zk -> zk.setData(path, data, read.version()));
            return true;
        } catch (KeeperException.BadVersionException e) {
            return false;
        } catch (KeeperException.NoNodeException e) {
            return false;
        } catch (KeeperException e) {
            throw ZkSession.unexpected(e);
        }
    }

    /**
     * Applies {@code change} to the freshly read record and writes the result conditionally, again
     * on a lost race. {@code change} returns null to leave the record as it is.
     *
     * @return the state written, or null when nothing was written (no such partition, or declined)
     */
    PartitionState update(String topic, int partition, UnaryOperator<PartitionState> change) {
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            Versioned current = read(topic, partition);
            if (current == null) {
                return null;
            }
            PartitionState next = change.apply(current.state());
            if (next == null || next.equals(current.state())) {
                return null;
            }
            if (compareAndSet(topic, current, next)) {
                return next;
            }
        }
        throw new IllegalStateException("partition " + topic + "-" + partition + " kept changing under "
                + MAX_ATTEMPTS + " conditional writes");
    }
}

package io.krill.controller.cluster;

import io.krill.controller.metadata.PartitionState;
import java.util.List;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.apache.helix.model.IdealState;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.data.Stat;

/**
 * Reads and compare-and-sets partition-state records: every write carries the ZooKeeper version it
 * was computed from, so of two writers racing on one partition (a leader changing its ISR, a replica
 * taking leadership, the controller declaring a partition leaderless) exactly one wins and the other
 * recomputes from the winner's record. This is what fences a zombie leader: its next ISR change fails.
 * A change of the replicas (a reassignment) also rewrites the partition's preference list in the topic's
 * Helix ideal state, in the same ZooKeeper multi-op and version-checked as well.
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

    /**
     * Like {@link #update}, for changes that may move replicas: when the replicas change, the record and
     * the partition's preference list in the topic's ideal state are written in one multi-op, each
     * version-checked, so Helix's view of who hosts the partition never disagrees with the record for
     * long and a concurrent change of the ideal state (another partition's reassignment, a growth of the
     * topic) is never lost. {@code change} may throw to refuse; it returns null to leave the record.
     *
     * @return the state after the call (the current one when nothing was written), or null when the
     *         partition does not exist
     */
    PartitionState apply(String topic, int partition, UnaryOperator<PartitionState> change) {
        PartitionState intended = null;
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            Versioned current = read(topic, partition);
            if (current == null) {
                return null;
            }
            if (current.state().equals(intended)) {
                return intended; // our write, retried after a lost connection, had landed the first time
            }
            PartitionState next = change.apply(current.state());
            if (next == null || next.equals(current.state())) {
                return current.state();
            }
            intended = next;
            if (next.replicas().equals(current.state().replicas())) {
                if (compareAndSet(topic, current, next)) {
                    return next;
                }
                continue;
            }
            if (compareAndSetWithReplicas(topic, current, next)) {
                return next;
            }
        }
        throw new IllegalStateException("partition " + topic + "-" + partition + " kept changing under "
                + MAX_ATTEMPTS + " conditional writes");
    }

    private boolean compareAndSetWithReplicas(String topic, Versioned read, PartitionState proposed) {
        String idealStatePath = paths.idealState(topic);
        Stat idealStateStat = new Stat();
        byte[] idealStateData = session.readOrNull(idealStatePath, idealStateStat);
        if (idealStateData == null) {
            return false; // the topic is being deleted: the next read finds no record
        }
        IdealState idealState = new IdealState(MetadataRecords.deserialize(idealStateData));
        MetadataRecords.setReplicas(idealState, topic, proposed.partition(), proposed.replicas());
        List<Op> ops = List.of(
                Op.setData(paths.partition(topic, proposed.partition()),
                        MetadataRecords.encodePartition(topic, read.topicId(), proposed), read.version()),
                Op.setData(idealStatePath, MetadataRecords.serialize(idealState.getRecord()),
                        idealStateStat.getVersion()));
        try {
            session.call(zk -> zk.multi(ops));
            return true;
        } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
            return false;
        } catch (KeeperException e) {
            throw ZkSession.unexpected(e);
        }
    }
}

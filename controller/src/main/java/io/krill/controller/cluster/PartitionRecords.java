package io.krill.controller.cluster;

import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import io.krill.controller.metadata.TopicPartitionKey;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;

/**
 * Reads and compare-and-sets partition-state records: every write carries the ZooKeeper version it
 * was computed from, so of two writers racing on one partition (a leader changing its ISR, a replica
 * taking leadership, the controller declaring a partition leaderless) exactly one wins and the other
 * recomputes from the winner's record. This is what fences a zombie leader: its next ISR change fails.
 * Many partitions change at once ({@link #updateAll}: a failover, a resignation) in a few pipelined
 * multi-ops rather than two round trips each.
 *
 * <p>Thread-safe (stateless over a thread-safe session).
 */
final class PartitionRecords {
    private static final int MAX_ATTEMPTS = 20;
    /** Set-data ops per multi: a partition record is a few hundred bytes, far below jute.maxbuffer (1 MB). */
    static final int OPS_PER_MULTI = 500;

    /**
     * Digest nodes per writer: a writer's multis take them in turn, so a digest is overwritten only after
     * this many more multis of the same broker, by when readers have long read it (a reader that is later
     * still reads the records themselves).
     */
    static final int DIGEST_SLOTS = 64;

    private final ZkSession session;
    private final ZkPaths paths;
    private final int nodeId;
    private final java.util.concurrent.atomic.AtomicInteger nextDigestSlot = new java.util.concurrent.atomic.AtomicInteger();

    /** A record as read, with what a conditional write of it needs. */
    record Versioned(PartitionState state, UUID topicId, int version) {
    }

    /**
     * The records as {@code image} has them, for {@link #updateAll(Collection, BiFunction, Function)}'s
     * first round: the partition epoch stands for the version.
     */
    static Function<TopicPartitionKey, Versioned> asIn(MetadataImage image) {
        return key -> {
            TopicImage topic = image.topic(key.topic());
            PartitionState state = topic == null ? null : topic.partition(key.partition());
            return state == null ? null : new Versioned(state, topic.id(), state.partitionEpoch());
        };
    }

    PartitionRecords(ZkSession session, ZkPaths paths, int nodeId) {
        this.session = session;
        this.paths = paths;
        this.nodeId = nodeId;
    }

    /**
     * Creates this broker's digest nodes where missing (one pipelined read, one multi). Every write of a
     * partition record carries a {@link PartitionDigest} in its multi: other brokers do not watch
     * partition nodes and learn of changed records only from digests, so this runs before the first
     * write, and again whenever a digest node has gone.
     */
    void ensureDigestNodes() {
        session.createPath(paths.partitionDigests());
        List<String> slots = new ArrayList<>(DIGEST_SLOTS);
        Stat[] stats = new Stat[DIGEST_SLOTS];
        for (int slot = 0; slot < DIGEST_SLOTS; slot++) {
            slots.add(paths.partitionDigest(nodeId, slot));
            stats[slot] = new Stat();
        }
        byte[][] existing = session.readAll(slots, stats);
        List<Op> creates = new ArrayList<>();
        for (int slot = 0; slot < DIGEST_SLOTS; slot++) {
            if (existing[slot] == null) {
                creates.add(Op.create(slots.get(slot), new byte[0], org.apache.zookeeper.ZooDefs.Ids.OPEN_ACL_UNSAFE,
                        org.apache.zookeeper.CreateMode.PERSISTENT));
            }
        }
        if (!creates.isEmpty()) {
            KeeperException failure = session.multiAll(List.of(creates)).get(0);
            if (failure != null && !(failure instanceof KeeperException.NodeExistsException)) {
                throw ZkSession.unexpected(failure);
            }
            if (failure != null) {
                ensureDigestNodes(); // another process of this node id created some meanwhile: create the rest
            }
        }
    }

    /** The partition's record, or null when the topic or partition does not exist. */
    Versioned read(String topic, int partition) {
        Stat stat = new Stat();
        byte[] data = session.readOrNull(paths.partition(topic, partition), stat);
        if (data == null) {
            return null;
        }
        MetadataRecords.PartitionRecord record = MetadataRecords.decodePartitionRecord(partition, data);
        return new Versioned(record.state(), record.topicId(), stat.getVersion());
    }

    /**
     * Writes {@code proposed} if the record is still at {@code read}'s version, with its digest in the
     * same multi.
     *
     * @return false when another writer got there first or the connection was lost (re-read and decide
     *         again)
     */
    boolean compareAndSet(String topic, Versioned read, PartitionState proposed) {
        String path = paths.partition(topic, proposed.partition());
        String digest = nextDigestPath();
        List<Op> ops = List.of(
                Op.setData(digest, PartitionDigest.encode(List.of(new PartitionDigest.Entry(topic, read.topicId(), proposed))), -1),
                Op.setData(path, MetadataRecords.encodePartition(topic, read.topicId(), proposed), read.version()));
        KeeperException failure = session.multiAll(List.of(ops)).get(0);
        if (failure == null) {
            return true;
        }
        if (failure instanceof KeeperException.NoNodeException && digest.equals(failure.getPath())) {
            ensureDigestNodes(); // removed by hand? Without it no other broker would see the write
            return compareAndSet(topic, read, proposed);
        }
        if (failure instanceof KeeperException.BadVersionException || failure instanceof KeeperException.NoNodeException
                || ZkSession.isRetriable(failure.code())) {
            return false; // lost a race, or the connection (the write may have landed: the re-read tells)
        }
        throw ZkSession.unexpected(failure);
    }

    /** This writer's next digest node: the slots are taken in turn. */
    private String nextDigestPath() {
        return paths.partitionDigest(nodeId, Math.floorMod(nextDigestSlot.getAndIncrement(), DIGEST_SLOTS));
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
     * Like {@link #update}, for operators' changes: a write retried after a lost connection that had
     * landed the first time is recognised. {@code change} may throw to refuse; it returns null to leave
     * the record.
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
            if (compareAndSet(topic, current, next)) {
                return next;
            }
        }
        throw new IllegalStateException("partition " + topic + "-" + partition + " kept changing under "
                + MAX_ATTEMPTS + " conditional writes");
    }

    /**
     * {@link #update} for many partitions at once: reads every record in one pipelined round, applies
     * {@code change} (topic, fresh state; null to leave it), writes the results as version-checked
     * set-data ops in multi-ops of at most {@link #OPS_PER_MULTI}, all in flight together, and goes round
     * again for the partitions of any multi that lost a race (a multi is atomic: none of its ops were
     * applied) or the connection (it may have been applied: the re-read tells). The multis only batch;
     * partitions do not change together.
     *
     * @return the states written, by partition (absent: no such partition, declined, or unchanged)
     */
    Map<TopicPartitionKey, PartitionState> updateAll(Collection<TopicPartitionKey> partitions,
                                                     BiFunction<String, PartitionState, PartitionState> change) {
        return updateAll(partitions, change, key -> null);
    }

    /**
     * As {@link #updateAll(Collection, BiFunction)}, with the first round of reads replaced by what
     * {@code known} says of each partition (the caller's image; null: read it). The partition epoch is
     * taken for the record's ZooKeeper version, which holds for records Krill writes (created at 0, every
     * write bumps both); a guess that is wrong or stale fails its multi's version check, and that multi's
     * partitions are read in the next round like any lost race. Saves one read per partition when the
     * image is current, as it is for a controller's pass or a broker's own resignation.
     */
    Map<TopicPartitionKey, PartitionState> updateAll(Collection<TopicPartitionKey> partitions,
                                                     BiFunction<String, PartitionState, PartitionState> change,
                                                     Function<TopicPartitionKey, Versioned> known) {
        Map<TopicPartitionKey, PartitionState> written = new LinkedHashMap<>();
        List<TopicPartitionKey> pending = new ArrayList<>(new LinkedHashSet<>(partitions));
        for (int attempt = 0; attempt < MAX_ATTEMPTS && !pending.isEmpty(); attempt++) {
            Versioned[] current = new Versioned[pending.size()];
            List<Integer> toRead = new ArrayList<>();
            for (int i = 0; i < current.length; i++) {
                current[i] = attempt == 0 ? known.apply(pending.get(i)) : null;
                if (current[i] == null) {
                    toRead.add(i);
                }
            }
            if (!toRead.isEmpty()) {
                List<String> nodePaths = new ArrayList<>(toRead.size());
                Stat[] stats = new Stat[toRead.size()];
                for (int j = 0; j < stats.length; j++) {
                    TopicPartitionKey key = pending.get(toRead.get(j));
                    nodePaths.add(paths.partition(key.topic(), key.partition()));
                    stats[j] = new Stat();
                }
                byte[][] data = session.readAll(nodePaths, stats);
                for (int j = 0; j < data.length; j++) {
                    if (data[j] != null) {
                        int i = toRead.get(j);
                        MetadataRecords.PartitionRecord record = MetadataRecords.decodePartitionRecord(
                                pending.get(i).partition(), data[j]);
                        current[i] = new Versioned(record.state(), record.topicId(), stats[j].getVersion());
                    }
                }
            }
            // Each multi goes out as soon as it is full: ZooKeeper applies the first while the rest are
            // encoded, and callers that put what matters most first (a resignation's leaderships) get it
            // applied first.
            Batch batch = new Batch();
            for (int i = 0; i < pending.size(); i++) {
                if (current[i] == null) {
                    continue; // no such partition
                }
                TopicPartitionKey key = pending.get(i);
                PartitionState next = change.apply(key.topic(), current[i].state());
                if (next == null || next.equals(current[i].state())) {
                    continue;
                }
                batch.add(key, current[i], next);
            }
            batch.sendLast();
            List<List<TopicPartitionKey>> multiKeys = batch.keys;
            List<List<PartitionState>> multiStates = batch.states;
            List<String> digestPaths = batch.digestPaths;
            List<KeeperException> failures = session.awaitMultis(batch.sent);
            List<TopicPartitionKey> retry = new ArrayList<>();
            for (int m = 0; m < failures.size(); m++) {
                KeeperException failure = failures.get(m);
                if (failure == null) {
                    for (int k = 0; k < multiKeys.get(m).size(); k++) {
                        written.put(multiKeys.get(m).get(k), multiStates.get(m).get(k));
                    }
                } else if (ZkSession.isConflict(failure) || ZkSession.isRetriable(failure.code())) {
                    if (failure instanceof KeeperException.NoNodeException && digestPaths.contains(failure.getPath())) {
                        ensureDigestNodes(); // a digest node was removed (by hand?): without it no broker sees the records
                    }
                    retry.addAll(multiKeys.get(m));
                } else {
                    throw ZkSession.unexpected(failure);
                }
            }
            pending = retry;
        }
        if (!pending.isEmpty()) {
            throw new IllegalStateException(pending.size() + " partition(s), " + pending.get(0) + " first, kept changing"
                    + " under " + MAX_ATTEMPTS + " rounds of conditional writes");
        }
        return written;
    }

    /**
     * The multis of one round of {@link #updateAll}: filled op by op, each sent when full with a digest of
     * its records first (so that its watch event comes before theirs). Confined to the calling thread.
     */
    private final class Batch {
        final List<CompletableFuture<List<OpResult>>> sent = new ArrayList<>();
        final List<List<TopicPartitionKey>> keys = new ArrayList<>();
        final List<List<PartitionState>> states = new ArrayList<>();
        final List<String> digestPaths = new ArrayList<>();
        private List<Op> ops = new ArrayList<>();
        private List<PartitionDigest.Entry> entries = new ArrayList<>();

        void add(TopicPartitionKey key, Versioned current, PartitionState next) {
            if (ops.isEmpty()) {
                keys.add(new ArrayList<>());
                states.add(new ArrayList<>());
            }
            ops.add(Op.setData(paths.partition(key.topic(), key.partition()),
                    MetadataRecords.encodePartition(key.topic(), current.topicId(), next), current.version()));
            entries.add(new PartitionDigest.Entry(key.topic(), current.topicId(), next));
            keys.get(keys.size() - 1).add(key);
            states.get(states.size() - 1).add(next);
            if (ops.size() >= OPS_PER_MULTI) {
                send();
            }
        }

        void sendLast() {
            if (!ops.isEmpty()) {
                send();
            }
        }

        private void send() {
            String path = nextDigestPath();
            ops.add(0, Op.setData(path, PartitionDigest.encode(entries), -1));
            digestPaths.add(path);
            sent.add(session.multiAsync(ops));
            ops = new ArrayList<>();
            entries = new ArrayList<>();
        }
    }
}

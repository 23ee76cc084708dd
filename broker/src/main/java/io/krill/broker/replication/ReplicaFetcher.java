package io.krill.broker.replication;

import io.krill.broker.partition.Partition;
import io.krill.broker.security.InterBrokerChannel;
import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.MetadataImage;
import io.krill.log.LogException;
import io.krill.log.TopicPartition;
import io.krill.log.epoch.EpochEndOffset;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.FetchRequest;
import io.krill.wire.message.FetchResponse;
import io.krill.wire.message.ListOffsetsRequest;
import io.krill.wire.message.ListOffsetsResponse;
import io.krill.wire.message.OffsetForLeaderEpochRequest;
import io.krill.wire.message.OffsetForLeaderEpochResponse;
import io.krill.wire.protocol.Records;
import io.krill.wire.record.CorruptRecordException;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One replica fetcher thread: fetches the partitions this broker follows from one leader broker over one
 * connection, with Kafka's Fetch protocol as a replica (replica id set), and appends the batches as they
 * come (offsets and epochs unchanged), in an incremental fetch session ({@link ReplicaFetchSession}): a
 * request names only partitions whose offsets moved, a response only partitions with news. A partition
 * starts in truncation: the leader is asked, with OffsetForLeaderEpoch, where this replica's latest
 * epoch ends in its log (KIP-101/279), and anything
 * after that is dropped before the first fetch, so a replica never keeps records its leader lacks.
 *
 * <p>Errors of one partition (a stale leader epoch, the leader moved) pause that partition for
 * {@code replica.fetch.backoff.ms}; metadata then moves it to another fetcher. A connection error pauses
 * the whole fetcher and reconnects, looking the leader's inter-broker endpoint up again.
 *
 * <p>Thread-safety: the partition map is guarded by {@link #lock}, which the fetcher also holds while it
 * applies a response, so {@link #remove} returns only once no append to those partitions is under way.
 * Network waits happen outside the lock.
 */
final class ReplicaFetcher implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaFetcher.class);
    private static final short FETCH_VERSION = 12;
    private static final short OFFSET_FOR_LEADER_EPOCH_VERSION = 4;
    private static final short LIST_OFFSETS_VERSION = 6;

    private final int sourceBroker;
    private final ReplicationContext context;
    private final String name;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Map<TopicPartition, Follower> partitions = new LinkedHashMap<>();
    private final Thread thread;
    private volatile boolean running = true;
    private volatile InterBrokerChannel channel;
    /** The incremental fetch session with the leader; the fetcher thread's own. */
    private final ReplicaFetchSession session = new ReplicaFetchSession();

    /** A followed partition: fixed to one leader epoch; a new epoch means a new Follower. */
    private static final class Follower {
        final Partition partition;
        final int leaderEpoch;
        boolean truncating = true;
        long pausedUntilMs;

        Follower(Partition partition, int leaderEpoch) {
            this.partition = partition;
            this.leaderEpoch = leaderEpoch;
        }
    }

    ReplicaFetcher(int sourceBroker, int index, ReplicationContext context) {
        this.sourceBroker = sourceBroker;
        this.context = context;
        this.name = "replica-fetcher-" + context.nodeId() + "-from-" + sourceBroker + "-" + index;
        this.thread = new Thread(this, name);
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    void add(Partition partition, int leaderEpoch) {
        lock.lock();
        try {
            partitions.put(partition.topicPartition(), new Follower(partition, leaderEpoch));
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    void remove(TopicPartition tp) {
        lock.lock();
        try {
            partitions.remove(tp);
        } finally {
            lock.unlock();
        }
    }

    boolean isEmpty() {
        lock.lock();
        try {
            return partitions.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    /** Stops the thread and waits for it. */
    void shutdown() {
        running = false;
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        InterBrokerChannel current = channel;
        if (current != null) {
            current.close();
        }
        try {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void run() {
        while (running) {
            try {
                List<Follower> truncating = new ArrayList<>();
                List<Follower> fetching = new ArrayList<>();
                if (!awaitWork(truncating, fetching)) {
                    continue;
                }
                InterBrokerChannel connection = connect();
                if (!truncating.isEmpty()) {
                    truncate(connection, truncating);
                }
                if (!fetching.isEmpty()) {
                    fetch(connection, fetching);
                }
            } catch (IOException e) {
                if (running) {
                    LOG.info("{}: connection to broker {} failed ({}); retrying in {} ms", name, sourceBroker,
                            e.getMessage(), context.backoffMs());
                }
                disconnect();
                pause(context.backoffMs());
            }
        }
        disconnect();
    }

    /** Waits until some partition is due; fills the two lists; false if it should look again. */
    private boolean awaitWork(List<Follower> truncating, List<Follower> fetching) {
        lock.lock();
        try {
            long now = System.currentTimeMillis();
            long nextDue = Long.MAX_VALUE;
            for (Follower f : partitions.values()) {
                if (f.pausedUntilMs > now) {
                    nextDue = Math.min(nextDue, f.pausedUntilMs);
                } else if (f.truncating) {
                    truncating.add(f);
                } else {
                    fetching.add(f);
                }
            }
            if (!truncating.isEmpty() || !fetching.isEmpty()) {
                return true;
            }
            long waitMs = nextDue == Long.MAX_VALUE ? 1000 : Math.max(1, nextDue - now);
            changed.await(waitMs, TimeUnit.MILLISECONDS);
            return false;
        } catch (InterruptedException e) {
            running = false;
            return false;
        } finally {
            lock.unlock();
        }
    }

    private void pause(long ms) {
        lock.lock();
        try {
            if (running) {
                changed.await(ms, TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            running = false;
        } finally {
            lock.unlock();
        }
    }

    private InterBrokerChannel connect() throws IOException {
        InterBrokerChannel current = channel;
        if (current != null) {
            return current;
        }
        MetadataImage image = context.metadata().image();
        BrokerInfo leader = image.broker(sourceBroker);
        if (leader == null) {
            throw new IOException("broker " + sourceBroker + " is not live");
        }
        BrokerInfo.Endpoint endpoint = leader.endpoint(context.listenerName());
        if (endpoint == null) {
            if (leader.endpoints().isEmpty()) {
                throw new IOException("broker " + sourceBroker + " has no endpoint");
            }
            endpoint = leader.endpoints().values().iterator().next();
        }
        InterBrokerChannel opened = InterBrokerChannel.connect(context.connector(), new InetSocketAddress(endpoint.host(), endpoint.port()),
                context.socketTimeoutMs(), context.receiveBufferBytes(), name, context.maxResponseBytes());
        channel = opened;
        if (!running) {
            opened.close();
            throw new IOException("fetcher stopped");
        }
        return opened;
    }

    private void disconnect() {
        session.failed();
        InterBrokerChannel current = channel;
        channel = null;
        if (current != null) {
            current.close();
        }
    }

    // ------------------------------------------------------------------ truncation (KIP-101/279)

    private void truncate(InterBrokerChannel connection, List<Follower> followers) throws IOException {
        Map<String, OffsetForLeaderEpochRequest.OffsetForLeaderTopic> topics = new LinkedHashMap<>();
        List<Follower> asked = new ArrayList<>();
        for (Follower f : followers) {
            OptionalInt latest = f.partition.log().latestEpoch();
            if (latest.isEmpty()) {
                markFetching(f, null);
                continue;
            }
            asked.add(f);
            topics.computeIfAbsent(f.partition.topicPartition().topic(),
                    t -> new OffsetForLeaderEpochRequest.OffsetForLeaderTopic().setTopic(t))
                    .partitions().add(new OffsetForLeaderEpochRequest.OffsetForLeaderPartition()
                            .setPartition(f.partition.topicPartition().partition())
                            .setCurrentLeaderEpoch(f.leaderEpoch)
                            .setLeaderEpoch(latest.getAsInt()));
        }
        if (asked.isEmpty()) {
            return;
        }
        OffsetForLeaderEpochRequest request = new OffsetForLeaderEpochRequest()
                .setReplicaId(context.nodeId())
                .setTopics(new ArrayList<>(topics.values()));
        OffsetForLeaderEpochResponse response = connection.call(ApiKeys.OFFSET_FOR_LEADER_EPOCH,
                OFFSET_FOR_LEADER_EPOCH_VERSION, request);
        Map<TopicPartition, OffsetForLeaderEpochResponse.EpochEndOffset> answers = new HashMap<>();
        for (OffsetForLeaderEpochResponse.OffsetForLeaderTopicResult topic : response.topics()) {
            for (OffsetForLeaderEpochResponse.EpochEndOffset p : topic.partitions()) {
                answers.put(new TopicPartition(topic.topic(), p.partition()), p);
            }
        }
        lock.lock();
        try {
            for (Follower f : asked) {
                if (partitions.get(f.partition.topicPartition()) != f) {
                    continue;
                }
                OffsetForLeaderEpochResponse.EpochEndOffset answer = answers.get(f.partition.topicPartition());
                if (answer == null || answer.errorCode() != Errors.NONE.code()) {
                    pauseLocked(f, answer == null ? "no answer" : Errors.forCode(answer.errorCode()).name());
                    continue;
                }
                markFetching(f, answer);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Truncates to where this replica's log stops agreeing with the leader's: the leader's end offset for
     * the largest epoch both know, capped by this replica's own end of that epoch.
     */
    private void markFetching(Follower f, OffsetForLeaderEpochResponse.EpochEndOffset answer) {
        Partition partition = f.partition;
        if (answer != null) {
            long target;
            if (answer.endOffset() < 0) {
                target = partition.highWatermark();
            } else {
                target = answer.endOffset();
                OptionalInt latest = partition.log().latestEpoch();
                if (latest.isPresent() && answer.leaderEpoch() != latest.getAsInt()) {
                    EpochEndOffset local = partition.log().endOffsetForEpoch(answer.leaderEpoch());
                    if (local.endOffset() >= 0) {
                        target = Math.min(target, local.endOffset());
                    }
                }
            }
            if (target < partition.logEndOffset()) {
                LOG.info("{}: truncating {} from {} to {} (leader epoch {} ends at {} on broker {})", name,
                        partition.topicPartition(), partition.logEndOffset(), target, answer.leaderEpoch(),
                        answer.endOffset(), sourceBroker);
                partition.truncateTo(target);
            }
        }
        f.truncating = false;
    }

    // ------------------------------------------------------------------ fetching

    private void fetch(InterBrokerChannel connection, List<Follower> followers) throws IOException {
        session.begin();
        for (Follower f : followers) {
            Partition partition = f.partition;
            session.add(partition.topicPartition(), partition.topicId(), f.leaderEpoch, partition.logEndOffset(),
                    partition.logStartOffset(), context.fetchMaxBytes());
        }
        FetchRequest request = session.request(new FetchRequest()
                .setReplicaId(context.nodeId())
                .setMaxWaitMs(context.fetchWaitMaxMs())
                .setMinBytes(context.fetchMinBytes())
                .setMaxBytes(context.fetchResponseMaxBytes())
                .setIsolationLevel((byte) 0));
        // a failed call ends in disconnect(), which makes the session's next request a full one
        FetchResponse response = connection.call(ApiKeys.FETCH, FETCH_VERSION, request);
        Errors whole = session.answered(response);
        if (ReplicaFetchSession.endsSession(whole)) {
            LOG.info("{}: fetch session {} ended ({}); starting a new one", name, request.sessionId(), whole);
            return;
        }
        if (whole != Errors.NONE) {
            throw new IOException("fetch failed as a whole: " + whole);
        }
        List<Follower> outOfRange = new ArrayList<>();
        lock.lock();
        try {
            for (FetchResponse.FetchableTopicResponse topic : response.responses()) {
                for (FetchResponse.PartitionData data : topic.partitions()) {
                    TopicPartition tp = new TopicPartition(topic.topic(), data.partitionIndex());
                    Follower f = partitions.get(tp);
                    ReplicaFetchSession.Sent sent = session.sent(tp);
                    // the answer is for the partition as it was asked: same epoch, and the log not moved since
                    if (f == null || f.truncating || sent == null || sent.leaderEpoch != f.leaderEpoch
                            || f.partition.logEndOffset() != sent.fetchOffset) {
                        continue;
                    }
                    Errors error = Errors.forCode(data.errorCode());
                    if (error == Errors.OFFSET_OUT_OF_RANGE) {
                        outOfRange.add(f);
                    } else if (error != Errors.NONE) {
                        pauseLocked(f, error.name());
                    } else {
                        apply(f, data);
                    }
                }
            }
        } finally {
            lock.unlock();
        }
        for (Follower f : outOfRange) {
            resetOutOfRange(connection, f);
        }
    }

    /** Appends one partition's fetched batches and takes the leader's high watermark and log start. */
    private void apply(Follower f, FetchResponse.PartitionData data) {
        Partition partition = f.partition;
        if (partition.leaderEpoch() != f.leaderEpoch) {
            return;
        }
        try {
            Records records = data.records();
            ByteBuf bytes = records == null ? null : records.buffer();
            if (bytes != null && bytes.isReadable()) {
                partition.appendRecordsAsFollower(bytes);
            }
            long leaderStart = data.logStartOffset();
            if (leaderStart > partition.logStartOffset()) {
                if (leaderStart <= partition.logEndOffset()) {
                    partition.log().deleteRecordsBefore(leaderStart);
                } else {
                    partition.truncateFullyAndStartAt(leaderStart);
                }
            }
            partition.updateFollowerHighWatermark(data.highWatermark());
        } catch (LogException | CorruptRecordException e) {
            // The batches disagree with this log (it moved under us, or the leader sent bad data): start
            // over from truncation after a pause rather than append anything out of place.
            LOG.warn("{}: cannot append to {} ({}); truncating again", name, partition.topicPartition(), e.getMessage());
            f.truncating = true;
            f.pausedUntilMs = System.currentTimeMillis() + context.backoffMs();
        }
    }

    /**
     * The leader does not have our fetch offset: either it has less than this replica (an unclean
     * election), which truncates to its end, or its log now starts after ours ends, which restarts this
     * log at the leader's start.
     */
    private void resetOutOfRange(InterBrokerChannel connection, Follower f) throws IOException {
        long leaderEnd = listOffset(connection, f, -1L);
        long leaderStart = listOffset(connection, f, -2L);
        lock.lock();
        try {
            if (partitions.get(f.partition.topicPartition()) != f || leaderEnd < 0 || leaderStart < 0) {
                pauseLocked(f, "offset out of range, leader offsets unknown");
                return;
            }
            Partition partition = f.partition;
            if (leaderEnd < partition.logEndOffset()) {
                LOG.warn("{}: {} is ahead of its leader (end {} > {}): truncating", name, partition.topicPartition(),
                        partition.logEndOffset(), leaderEnd);
                partition.truncateTo(leaderEnd);
            } else if (partition.logEndOffset() < leaderStart) {
                LOG.info("{}: {} ends at {}, before its leader's log start {}: restarting there", name,
                        partition.topicPartition(), partition.logEndOffset(), leaderStart);
                partition.truncateFullyAndStartAt(leaderStart);
            }
        } finally {
            lock.unlock();
        }
    }

    private long listOffset(InterBrokerChannel connection, Follower f, long timestamp) throws IOException {
        TopicPartition tp = f.partition.topicPartition();
        ListOffsetsRequest request = new ListOffsetsRequest().setReplicaId(context.nodeId())
                .setTopics(List.of(new ListOffsetsRequest.ListOffsetsTopic().setName(tp.topic())
                        .setPartitions(List.of(new ListOffsetsRequest.ListOffsetsPartition()
                                .setPartitionIndex(tp.partition())
                                .setCurrentLeaderEpoch(f.leaderEpoch)
                                .setTimestamp(timestamp)))));
        ListOffsetsResponse response = connection.call(ApiKeys.LIST_OFFSETS, LIST_OFFSETS_VERSION, request);
        for (ListOffsetsResponse.ListOffsetsTopicResponse topic : response.topics()) {
            for (ListOffsetsResponse.ListOffsetsPartitionResponse p : topic.partitions()) {
                if (p.errorCode() == Errors.NONE.code()) {
                    return p.offset();
                }
            }
        }
        return -1;
    }

    private void pauseLocked(Follower f, String why) {
        LOG.debug("{}: pausing {} at epoch {}: {}", name, f.partition.topicPartition(), f.leaderEpoch, why);
        f.pausedUntilMs = System.currentTimeMillis() + context.backoffMs();
    }

    @Override
    public String toString() {
        return name;
    }
}

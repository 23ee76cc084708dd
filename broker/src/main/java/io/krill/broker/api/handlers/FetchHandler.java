package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.ErrorMapping;
import io.krill.broker.api.Request;
import io.krill.broker.fetch.FetchContext;
import io.krill.broker.fetch.FetchSessionCache;
import io.krill.broker.fetch.FetchTarget;
import io.krill.broker.net.LogSliceRecords;
import io.krill.broker.partition.Partition;
import io.krill.broker.quota.ClientQuotas;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.TopicImage;
import io.krill.log.AbortedTxn;
import io.krill.log.LogReadResult;
import io.krill.log.TopicPartition;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.FetchRequest;
import io.krill.wire.message.FetchResponse;
import io.krill.wire.protocol.ApiMessage;
import io.krill.wire.protocol.ByteBufRecords;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * Fetch for consumers: whole batches from each partition's log, up to the high watermark (or the last
 * stable offset under read_committed, with the aborted transactions in range), within the partition and
 * request byte limits, the first batch always whole so consumers progress. Log data is sent from the
 * segment files with sendfile ({@link LogSliceRecords}). When less than {@code min.bytes} is there the
 * request waits, as a {@link DelayedFetch} woken by appends, up to {@code max.wait.ms}.
 *
 * <p>A fetch with a replica id comes from a follower: it reads up to the log end, not the high
 * watermark, and its fetch offset tells this leader how far the follower got (see
 * {@link Partition#recordFollowerFetch}), which moves the high watermark and the ISR.
 *
 * <p>Fetch from follower (KIP-392): a consumer's fetch of version 11 or later is served by any replica,
 * a follower reading up to its own high watermark; with {@code replica.selector.class} Kafka's
 * RackAwareReplicaSelector the leader answers a consumer whose {@code rack_id} names another replica's
 * rack with that replica as {@code preferred_read_replica} and no records, at once.
 *
 * <p>Fetch sessions (KIP-227): from v7 a request's session id and epoch make a {@link FetchContext}
 * ({@link FetchSessionCache}): an incremental fetch reads every partition of its session and answers only
 * those with something new, so a consumer of thousands of mostly idle partitions, or a follower, sends and
 * receives what changed, not every partition every round trip.
 *
 * <p>Authorization as Kafka's: a consumer needs READ on each topic, a follower CLUSTER_ACTION on the
 * cluster; otherwise TOPIC_AUTHORIZATION_FAILED per partition.
 *
 * <p>Thread-safe: its state is the session cache, which guards itself.
 */
public final class FetchHandler extends AbstractApiHandler {
    private static final byte READ_COMMITTED = 1;

    private final BrokerContext context;
    private final ClientQuotas quotas;
    private final FetchSessionCache sessions;

    public FetchHandler(BrokerContext context) {
        this(context, ClientQuotas.DISABLED, new FetchSessionCache(1000, context.metadata()::image));
    }

    /**
     * @param quotas   the consumer_byte_rate quotas, which throttle consumers that go over them
     * @param sessions the broker's fetch sessions
     */
    public FetchHandler(BrokerContext context, ClientQuotas quotas, FetchSessionCache sessions) {
        super(ApiKeys.FETCH, 4, 17);
        this.context = context;
        this.quotas = quotas;
        this.sessions = sessions;
    }

    @Override
    public void handle(Request request) {
        FetchRequest body = request.body();
        FetchContext fetch = sessions.contextFor(body, request.version(), replicaId(request) >= 0,
                System.currentTimeMillis());
        if (fetch.error() != Errors.NONE) {
            request.respond(fetch.throttled());
            return;
        }
        Read read = read(request, fetch, true);
        boolean inSession = fetch.waitsInSession();
        if (body.maxWaitMs() <= 0 || read.bytes >= body.minBytes() || read.errors || read.redirected
                || (read.partitions.isEmpty() && !inSession)) {
            respond(request, fetch, read);
            return;
        }
        read.discard();
        DelayedFetch delayed = new DelayedFetch(body.maxWaitMs(), request, fetch, this, read, context.partitions(),
                replicaId(request) >= 0, body.isolationLevel() == READ_COMMITTED);
        // a consumer's incremental fetch is woken by its session, which hears of every change of its partitions
        fetch.park(delayed);
        context.fetchPurgatory().tryCompleteElseWatch(delayed, inSession ? List.of() : read.partitions);
    }

    /** One pass over the requested partitions: the response as it would be now, and what it holds. */
    static final class Read {
        final FetchResponse response = new FetchResponse();
        /** What was read, in the order of the response's partitions, and which had more to read. */
        final List<FetchTarget> targets;
        final BitSet more = new BitSet();
        final List<TopicPartition> partitions = new ArrayList<>();
        /** The {@link Partition} read for each of {@link #partitions} (a leader, or for a consumer of v11+ any replica), and what was asked of it. */
        final List<Partition> leaders = new ArrayList<>();
        final List<FetchRequest.FetchPartition> asked = new ArrayList<>();
        final List<LogSliceRecords> records = new ArrayList<>();
        final java.util.Map<String, Long> bytesByTopic = new java.util.HashMap<>(2);
        long bytes;
        /** Bytes the response may still take (max.bytes, and the quota's bound for a consumer). */
        int remaining;
        boolean errors;
        /** A partition was answered with a preferred read replica: the consumer is to go there now. */
        boolean redirected;

        Read(List<FetchTarget> targets, int remaining) {
            this.targets = targets;
            this.remaining = remaining;
        }

        void discard() {
            for (LogSliceRecords r : records) {
                r.discard();
            }
        }
    }

    /** What every partition of one read shares. */
    private record Reading(Request request, Read read, MetadataImage image, short version, int replicaId,
                           boolean follower, boolean readCommitted, boolean recordFollowerProgress, long now) {
    }

    /**
     * @param fetch                  what the request reads: its own partitions, or its session's
     * @param recordFollowerProgress on the first read of a follower's fetch: its fetch offsets are its log
     *                               end offsets (re-reads of a waiting fetch must not count again)
     */
    Read read(Request request, FetchContext fetch, boolean recordFollowerProgress) {
        FetchRequest body = request.body();
        short version = request.version();
        int replicaId = replicaId(request);
        boolean follower = replicaId >= 0;
        long now = System.currentTimeMillis();
        Authorization authorization = context.authorization();
        boolean clusterAction = !follower || authorization.cluster(request, AclOperation.CLUSTER_ACTION);
        int remaining = body.maxBytes();
        if (!follower) {
            // As Kafka: never more than the quota allows in a window, or the fetch is sure to be throttled.
            remaining = (int) Math.min(remaining, quotas.maxFetchBytes(request, now));
        }
        Read read = new Read(fetch.targets(), remaining);
        Reading reading = new Reading(request, read, context.metadata().image(), version, replicaId, follower,
                !follower && body.isolationLevel() == READ_COMMITTED, recordFollowerProgress, now);
        FetchTarget previous = null;
        FetchResponse.FetchableTopicResponse topicResponse = null;
        TopicImage topic = null;
        boolean readable = false;
        for (int i = 0; i < read.targets.size(); i++) {
            FetchTarget target = read.targets.get(i);
            if (previous == null || !previous.sameTopic(target)) {
                // a run of partitions of one topic answers under one topic, as requested
                topic = version >= 13 ? reading.image.topic(target.topicId()) : reading.image.topic(target.topic());
                topicResponse = new FetchResponse.FetchableTopicResponse()
                        .setTopic(target.topic())
                        .setTopicId(target.topicId());
                read.response.responses().add(topicResponse);
                String name = topic != null ? topic.name() : version >= 13 ? null : target.topic();
                readable = follower ? clusterAction
                        : name == null || authorization.topic(request, AclOperation.READ, name);
            }
            previous = target;
            FetchResponse.PartitionData data = new FetchResponse.PartitionData()
                    .setPartitionIndex(target.asked().partition());
            topicResponse.partitions().add(data);
            target.reading();
            boolean more = readable && readPartition(reading, topic, target.asked(), data);
            if (!readable) {
                fail(data, Errors.TOPIC_AUTHORIZATION_FAILED);
                read.errors = true;
            }
            read.more.set(i, more);
            target.read(data, more);
        }
        return read;
    }

    /**
     * Reads one partition into {@code data}; returns whether more is readable than the read took (the
     * request's or the partition's byte limit cut it short).
     */
    private boolean readPartition(Reading reading, TopicImage topic, FetchRequest.FetchPartition wanted,
                                  FetchResponse.PartitionData data) {
        Read read = reading.read;
        short version = reading.version;
        if (topic == null) {
            fail(data, version >= 13 ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION);
            read.errors = true;
            return false;
        }
        boolean follower = reading.follower;
        try {
            // KIP-392: a consumer of version 11 or later may read from a follower; a follower reads
            // from the leader only.
            boolean anyReplica = !follower && version >= 11;
            Partition partition = anyReplica
                    ? context.partitions().replicaPartition(reading.image, topic.name(), wanted.partition())
                    : context.partitions().leaderPartition(reading.image, topic.name(), wanted.partition());
            FetchRequest body = reading.request.body();
            int preferred = anyReplica ? preferredReadReplica(partition, body.rackId(), wanted.fetchOffset(),
                    reading.image) : -1;
            if (preferred >= 0) {
                Partition.checkLeaderEpoch(wanted.currentLeaderEpoch(), partition.state());
                data.setPreferredReadReplica(preferred).setHighWatermark(partition.highWatermark())
                        .setLastStableOffset(partition.lastStableOffset())
                        .setLogStartOffset(partition.logStartOffset()).setRecords(ByteBufRecords.EMPTY);
                read.redirected = true;
                return false;
            }
            read.partitions.add(partition.topicPartition());
            read.leaders.add(partition);
            read.asked.add(wanted);
            if (follower) {
                Partition.checkLeaderEpoch(wanted.currentLeaderEpoch(), partition.state());
                if (reading.recordFollowerProgress) {
                    recordFollowerFetch(partition, reading.replicaId, wanted.fetchOffset(), reading.now);
                }
            }
            int limit = Math.max(0, Math.min(wanted.partitionMaxBytes(), read.remaining));
            LogReadResult result = anyReplica
                    ? partition.readFromReplica(wanted.fetchOffset(), limit, wanted.currentLeaderEpoch(),
                            read.bytes == 0)
                    : partition.read(wanted.fetchOffset(), limit, follower, wanted.currentLeaderEpoch(),
                            read.bytes == 0);
            long lso = partition.lastStableOffset();
            long highWatermark = partition.highWatermark();
            data.setHighWatermark(highWatermark)
                    .setLastStableOffset(lso)
                    .setLogStartOffset(result.logStartOffset());
            if (reading.readCommitted && result.nextOffset() > lso) {
                // Under read_committed nothing at or past the LSO may go out: re-read bounded by it.
                result.records().close();
                result = partition.log().read(wanted.fetchOffset(), limit, lso, read.bytes == 0);
            }
            // As Kafka: the aborted transactions in range under read_committed, null otherwise.
            data.setAbortedTransactions(reading.readCommitted
                    ? aborted(partition, wanted.fetchOffset(), result.nextOffset()) : null);
            long bound = follower ? result.logEndOffset() : reading.readCommitted ? lso : highWatermark;
            boolean more = result.nextOffset() < bound;
            int size = result.records().sizeInBytes();
            if (size == 0) {
                // most partitions of a wide fetch: nothing to send from a file
                result.records().close();
                data.setRecords(ByteBufRecords.EMPTY);
                return more;
            }
            LogSliceRecords records = new LogSliceRecords(result.records());
            data.setRecords(records);
            read.records.add(records);
            read.bytes += size;
            if (!follower) {
                read.bytesByTopic.merge(topic.name(), (long) size, Long::sum);
            }
            read.remaining -= size;
            return more;
        } catch (RuntimeException e) {
            Errors error = ErrorMapping.toError(e, reading.request);
            failRead(data, error);
            if (version >= 16 && (error == Errors.NOT_LEADER_OR_FOLLOWER
                    || error == Errors.FENCED_LEADER_EPOCH)) {
                pointToLeader(read.response, data, reading.image, topic, wanted.partition(),
                        reading.request.connection().listenerName());
            }
            read.errors = true;
            return false;
        }
    }

    /**
     * KIP-951, as Kafka from v16: a consumer told NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH learns the
     * partition's current leader and epoch (this broker's replica's view, else the metadata image's) and
     * the leader's endpoint on the request's listener, so that it need not wait for a Metadata refresh.
     * A leader that is unknown or has no such endpoint is named without one, as Kafka does.
     */
    private void pointToLeader(FetchResponse response, FetchResponse.PartitionData data, MetadataImage image,
                               TopicImage topic, int partitionIndex, String listenerName) {
        CurrentLeader leader = CurrentLeader.of(context.partitions(), image, topic, partitionIndex, listenerName);
        data.setCurrentLeader(new FetchResponse.LeaderIdAndEpoch().setLeaderId(leader.leaderId())
                .setLeaderEpoch(leader.leaderEpoch()));
        if (leader.endpoint() == null
                || response.nodeEndpoints().stream().anyMatch(n -> n.nodeId() == leader.leaderId())) {
            return;
        }
        response.nodeEndpoints().add(new FetchResponse.NodeEndpoint().setNodeId(leader.leaderId())
                .setHost(leader.endpoint().host()).setPort(leader.endpoint().port()).setRack(leader.broker().rack()));
    }

    /**
     * KIP-392 with {@code replica.selector.class} Kafka's RackAwareReplicaSelector, on the leader: the
     * replica a consumer in {@code clientRack} should read from instead, or -1 for this leader. The
     * leader stays the choice when it is in the client's rack; otherwise, of the live ISR members in that
     * rack whose log reaches the fetch offset, the one furthest ahead.
     */
    private int preferredReadReplica(Partition partition, String clientRack, long fetchOffset, MetadataImage image) {
        if (clientRack == null || clientRack.isEmpty() || !partition.isLeader()
                || !context.config().replication().rackAwareReplicaSelector()) {
            return -1;
        }
        BrokerInfo self = image.broker(context.nodeId());
        if (self != null && clientRack.equals(self.rack())) {
            return -1;
        }
        int best = -1;
        long bestEnd = -1;
        for (int replica : partition.state().isr()) {
            BrokerInfo broker = replica == context.nodeId() ? null : image.broker(replica);
            if (broker == null || !clientRack.equals(broker.rack())) {
                continue;
            }
            long end = partition.followerEndOffset(replica);
            if (end >= fetchOffset && end > bestEnd) {
                best = replica;
                bestEnd = end;
            }
        }
        return best;
    }

    /** The fetching replica's id (a broker), or -1 for a consumer. */
    private static int replicaId(Request request) {
        FetchRequest body = request.body();
        return request.version() >= 15 ? body.replicaState().replicaId() : body.replicaId();
    }

    /**
     * A follower's fetch offset is its log end offset: the high watermark may move (waking acks=all
     * produces and consumers' fetches), and a follower caught up to it joins the ISR.
     */
    private void recordFollowerFetch(Partition partition, int replicaId, long fetchOffset, long now) {
        Partition.FollowerFetchOutcome outcome = partition.recordFollowerFetch(replicaId, fetchOffset, now);
        if (outcome.highWatermarkMoved()) {
            context.producePurgatory().checkAndComplete(partition.topicPartition());
            context.fetchPurgatory().checkAndComplete(partition.topicPartition());
        }
        if (outcome.shouldJoinIsr()) {
            context.isrChanger().requestJoin(partition, replicaId);
        }
    }

    /**
     * Sends what {@code read} found and counts the bytes going out. A consumer that this response would
     * take over its consumer_byte_rate gets, as from Kafka, an empty response with the throttle time
     * instead (its client accepts an empty full response when it carries a throttle time), and the bytes
     * are not counted.
     */
    void respond(Request request, FetchContext fetch, Read read) {
        if (read.bytes > 0 && replicaId(request) < 0) {
            long now = System.currentTimeMillis();
            int throttleMs = quotas.recordFetch(request, read.bytes, now);
            if (throttleMs > 0) {
                quotas.unrecordFetch(request, read.bytes, now);
                read.discard();
                request.throttle(throttleMs);
                request.respond(fetch.throttled());
                return;
            }
        }
        read.bytesByTopic.forEach(context.metrics()::fetched);
        request.respond(fetch.answer(read.targets, read.response, read.more, records -> {
            if (records instanceof LogSliceRecords slice) {
                slice.discard();
            }
        }));
    }

    private static List<FetchResponse.AbortedTransaction> aborted(Partition partition, long from, long to) {
        List<FetchResponse.AbortedTransaction> list = new ArrayList<>();
        for (AbortedTxn txn : partition.log().collectAbortedTransactions(from, to)) {
            list.add(new FetchResponse.AbortedTransaction().setProducerId(txn.producerId())
                    .setFirstOffset(txn.firstOffset()));
        }
        return list;
    }

    /**
     * A partition answered with an error carries an empty record set, not a null one, as Kafka's does:
     * librdkafka fails the whole response on a null one ("invalid MessageSetSize -1") and retries it in a
     * loop, so its consumer never gets to act on the error (auto.offset.reset after OFFSET_OUT_OF_RANGE).
     */
    private static void fail(FetchResponse.PartitionData data, Errors error) {
        data.setErrorCode(error.code()).setHighWatermark(-1).setLastStableOffset(-1).setLogStartOffset(-1)
                .setRecords(ByteBufRecords.EMPTY);
    }

    /**
     * As {@link #fail}, for an error met reading the partition (not leader, fenced epoch, offset out of
     * range): Kafka answers those from its log read, with no aborted-transaction list (null), while the
     * errors it finds before reading (authorization, unknown topic or partition) carry an empty one.
     */
    private static void failRead(FetchResponse.PartitionData data, Errors error) {
        fail(data, error);
        if (error != Errors.UNKNOWN_TOPIC_OR_PARTITION) {
            data.setAbortedTransactions(null);
        }
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        return new FetchResponse().setErrorCode(error.code());
    }
}

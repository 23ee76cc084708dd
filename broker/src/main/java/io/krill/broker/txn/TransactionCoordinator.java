package io.krill.broker.txn;

import io.krill.broker.BrokerContext;
import io.krill.broker.coordinator.CoordinatorLog;
import io.krill.broker.coordinator.CoordinatorTimer;
import io.krill.broker.coordinator.ExecutorCoordinatorTimer;
import io.krill.broker.coordinator.PartitionCoordinatorLog;
import io.krill.broker.security.InterBrokerConnector;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.MetadataListener;
import io.krill.log.TopicPartition;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.DescribeTransactionsResponse;
import io.krill.wire.message.ListTransactionsResponse;
import io.krill.wire.record.RecordBatch;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transaction coordinator of this broker: for each partition of {@code __transaction_state} it
 * leads, the transactional ids that hash to it ({@code abs(transactionalId.hashCode()) % partitions},
 * Kafka's), their producer ids and epochs, and the state of their transactions, kept as records of that
 * partition ({@link TransactionRecords}) and rebuilt from it when the partition is loaded.
 *
 * <p><b>Partitions.</b> As a {@link MetadataListener} the coordinator hands each image to its
 * {@link TransactionPartitionLoader}, which loads each partition it comes to lead (on the
 * {@code txn-coordinator} thread; requests get COORDINATOR_LOAD_IN_PROGRESS meanwhile) and forgets those it
 * no longer leads (NOT_COORDINATOR). The partition's leader epoch at election is the
 * coordinator epoch stamped on the markers it writes, so leaders refuse markers of a deposed
 * coordinator. After a load, transactions found prepared (PrepareCommit, PrepareAbort) have their
 * markers written again: a coordinator that died mid-commit is finished by its successor, never half.
 *
 * <p><b>Flow (Kafka's transaction protocols 1 and 2).</b> InitProducerId gives
 * a transactional id a producer id (new ones from the {@link ProducerIdManager}) and bumps its epoch,
 * fencing older producers; an open transaction is aborted first (the epoch is bumped for that too, and
 * the caller told CONCURRENT_TRANSACTIONS until the abort completes); an exhausted epoch rotates to a new
 * producer id; a producer id and epoch in the request (KIP-360) are checked and a retried bump is
 * answered the same. AddPartitionsToTxn/AddOffsetsToTxn open the transaction and record its partitions.
 * EndTxn writes PrepareCommit/PrepareAbort, answers, and has the {@link MarkerWriter} write markers to
 * every partition; once all are acknowledged the transaction is CompleteCommit/CompleteAbort. Every
 * transition is written (acks=all) before it takes effect; one at a time per transactional id, others
 * get CONCURRENT_TRANSACTIONS. Transaction version 2 (KIP-890 part 2): partitions are added implicitly by
 * the leaders a Produce v12+ reaches and the group coordinator of a TxnOffsetCommit v5+, and EndTxn v5
 * ends every transaction at the next epoch, answering the producer with it ({@link EndResult}).
 *
 * <p><b>Timers.</b> Every {@code transaction.abort.timed.out.transaction.cleanup.interval.ms} open
 * transactions older than their timeout are fenced (epoch bumped) and aborted. Every
 * {@code transaction.remove.expired.transaction.cleanup.interval.ms} transactional ids idle for
 * {@code transactional.id.expiration.ms} are tombstoned and forgotten.
 *
 * <p><b>Thread-safety.</b> Shards and their maps are concurrent; each transactional id's
 * {@link TransactionMetadata} is guarded by its own monitor and no code holds two. Log writes complete
 * inline (one node) or later on the coordinator thread; marker completions arrive on the marker
 * sender's threads; each re-checks under the monitor that its shard and transition are still current.
 */
public final class TransactionCoordinator implements MetadataListener, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionCoordinator.class);
    static final long RETRY_BACKOFF_MS = 100;

    private final int nodeId;
    private final TransactionConfig config;
    private final CoordinatorLog log;
    private final CoordinatorTimer timer;
    private final LongSupplier producerIds;
    private final MarkerWriter markers;
    private final TransactionPartitionLoader loader;
    private final List<AutoCloseable> owned = new ArrayList<>();

    /** The answer to InitProducerId. */
    public record InitResult(Errors error, long producerId, short producerEpoch) {
        static InitResult failed(Errors error) {
            return new InitResult(error, RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH);
        }
    }

    /** The answer to EndTxn: from v5 (transaction version 2) the producer id and epoch to go on with. */
    public record EndResult(Errors error, long producerId, short producerEpoch) {
        static EndResult failed(Errors error) {
            return new EndResult(error, RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH);
        }
    }

    /**
     * The broker's coordinator: its log is this broker's partitions of {@code __transaction_state}, its
     * timer a {@code txn-coordinator} thread, markers go out through a {@link TransactionMarkerSender};
     * {@link #close()} stops both. Call {@link #startup} after registering it as a metadata listener.
     */
    public static TransactionCoordinator forBroker(BrokerContext context, ProducerIdManager producerIds) {
        return forBroker(context, producerIds, InterBrokerConnector.plaintext());
    }

    /** @param connector opens the marker senders' connections on the inter-broker listener */
    public static TransactionCoordinator forBroker(BrokerContext context, ProducerIdManager producerIds,
                                                   InterBrokerConnector connector) {
        TransactionConfig config = TransactionConfig.from(context.config());
        ExecutorCoordinatorTimer timer = new ExecutorCoordinatorTimer("txn-coordinator");
        PartitionCoordinatorLog log = new PartitionCoordinatorLog(TransactionStateTopic.NAME, context.metadata(),
                context.partitions(), context.producePurgatory(), timer, config.requestTimeoutMs(), 0,
                config.stateLogLoadBufferSize());
        TransactionMarkerSender sender = new TransactionMarkerSender(context.nodeId(), context.metadata()::image,
                context.config().listeners().interBrokerListenerName(), connector, config.requestTimeoutMs() + 10_000,
                timer);
        TransactionCoordinator coordinator = new TransactionCoordinator(context.nodeId(), config, log, timer,
                producerIds::nextProducerId, sender);
        coordinator.owned.add(sender);
        coordinator.owned.add(timer);
        return coordinator;
    }

    /** @param producerIds hands out unused producer ids (the broker's {@link ProducerIdManager}) */
    TransactionCoordinator(int nodeId, TransactionConfig config, CoordinatorLog log, CoordinatorTimer timer,
                           LongSupplier producerIds, MarkerWriter markers) {
        this.nodeId = nodeId;
        this.config = config;
        this.log = log;
        this.timer = timer;
        this.producerIds = producerIds;
        this.markers = markers;
        this.loader = new TransactionPartitionLoader(nodeId, log, timer, config.stateLogNumPartitions(),
                this::completePrepared);
    }

    public TransactionConfig config() {
        return config;
    }

    // ------------------------------------------------------------------ partitions

    /** Follows the image the broker starts with and starts the timeout and expiry checks. */
    public void startup(MetadataImage image) {
        loader.follow(image);
        every(config.abortTimedOutIntervalMs(), this::abortTimedOutTransactions);
        every(config.removeExpiredIntervalMs(), this::expireTransactionalIds);
    }

    @Override
    public void onChange(MetadataImage previous, MetadataImage current) {
        loader.follow(current);
    }

    /** The partition of {@code __transaction_state} that holds {@code transactionalId}. */
    public int partitionFor(String transactionalId) {
        return TransactionStateTopic.partitionFor(transactionalId, loader.partitionCount());
    }

    /** Whether this broker coordinates {@code transactionalId} and has loaded it. */
    public boolean isCoordinatorFor(String transactionalId) {
        TransactionShard shard = loader.shard(partitionFor(transactionalId));
        return shard != null && shard.loaded;
    }

    /** Whether {@code partition} is loaded and served (for tests and tools). */
    public boolean isLoaded(int partition) {
        TransactionShard shard = loader.shard(partition);
        return shard != null && shard.loaded;
    }

    /**
     * After a load: the transactions the previous coordinator left prepared (PrepareCommit, PrepareAbort) have
     * their markers written again, so a coordinator that died mid-commit is finished by its successor.
     */
    private void completePrepared(TransactionShard shard) {
        for (TransactionMetadata md : shard.txns.values()) {
            TransactionValue current;
            synchronized (md) {
                current = md.current();
            }
            if (current.state().isPreparing()) {
                LOG.info("Completing the {} of transactional id {} left prepared by the previous coordinator",
                        current.state() == TransactionState.PREPARE_COMMIT ? "commit" : "abort", md.transactionalId());
                sendMarkers(shard, md, current);
            }
        }
    }

    private TransactionShard shardFor(String transactionalId) {
        if (log.isFenced()) {
            // Cut off from the cluster: another broker may have loaded this id's newer state, and an
            // answer from ours (say, "already committed") could be wrong. Clients look up the coordinator.
            throw new ApiException(Errors.NOT_COORDINATOR, "Broker " + nodeId + " is cut off from the cluster; "
                    + "another broker may coordinate " + transactionalId);
        }
        TransactionShard shard = loader.shard(partitionFor(transactionalId));
        if (shard == null) {
            throw new ApiException(Errors.NOT_COORDINATOR, "This broker is not the transaction coordinator of "
                    + transactionalId);
        }
        if (!shard.loaded) {
            throw new ApiException(Errors.COORDINATOR_LOAD_IN_PROGRESS, "The transaction coordinator of "
                    + transactionalId + " is loading");
        }
        return shard;
    }

    long now() {
        return timer.milliseconds();
    }

    // ------------------------------------------------------------------ InitProducerId

    /**
     * InitProducerId with a transactional id. {@code expectedProducerId}/{@code expectedEpoch} are the
     * producer's current ones (KIP-360, v3+), or -1 on a first initialization.
     */
    public void initProducerId(String transactionalId, int timeoutMs, long expectedProducerId, short expectedEpoch,
                               Consumer<InitResult> callback) {
        if (transactionalId.isEmpty()) {
            callback.accept(InitResult.failed(Errors.INVALID_REQUEST));
            return;
        }
        if (timeoutMs <= 0 || timeoutMs > config.maxTimeoutMs()) {
            callback.accept(InitResult.failed(Errors.INVALID_TRANSACTION_TIMEOUT));
            return;
        }
        TransactionShard shard;
        try {
            shard = shardFor(transactionalId);
        } catch (ApiException e) {
            callback.accept(InitResult.failed(e.error()));
            return;
        }
        TransactionMetadata md = shard.txns.get(transactionalId);
        if (md == null) {
            long producerId = producerIds.getAsLong();
            TransactionValue fresh = new TransactionValue(producerId, RecordBatch.NO_PRODUCER_ID,
                    RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_PRODUCER_EPOCH, timeoutMs, TransactionState.EMPTY,
                    Set.of(), -1, now());
            TransactionMetadata created = new TransactionMetadata(transactionalId, fresh);
            TransactionMetadata raced = shard.txns.putIfAbsent(transactionalId, created);
            md = raced == null ? created : raced;
        }
        boolean expected = expectedProducerId != RecordBatch.NO_PRODUCER_ID;
        synchronized (md) {
            if (md.hasPendingTransition()) {
                callback.accept(InitResult.failed(Errors.CONCURRENT_TRANSACTIONS));
                return;
            }
            TransactionValue v = md.current();
            if (expected && !(v.producerEpoch() == RecordBatch.NO_PRODUCER_EPOCH
                    || expectedProducerId == v.producerId()
                    || (expectedProducerId == v.previousProducerId() && expectedEpoch >= TransactionValue.MAX_EPOCH))) {
                callback.accept(InitResult.failed(Errors.PRODUCER_FENCED));
                return;
            }
            switch (v.state()) {
                case PREPARE_COMMIT, PREPARE_ABORT -> callback.accept(InitResult.failed(Errors.CONCURRENT_TRANSACTIONS));
                case ONGOING -> fenceAndAbort(shard, md, error -> callback.accept(
                        InitResult.failed(error == Errors.NONE ? Errors.CONCURRENT_TRANSACTIONS : error)));
                case EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT -> {
                    TransactionValue next;
                    if (v.isEpochExhausted() && (!expected || expectedEpoch == v.producerEpoch())) {
                        long rotated = producerIds.getAsLong();
                        LOG.info("Producer epoch of transactional id {} exhausted: producer id {} replaces {}",
                                transactionalId, rotated, v.producerId());
                        next = new TransactionValue(rotated, v.producerId(), (short) 0,
                                expected ? v.producerEpoch() : RecordBatch.NO_PRODUCER_EPOCH, timeoutMs,
                                TransactionState.EMPTY, Set.of(), -1, now());
                    } else if (expected && v.producerEpoch() != RecordBatch.NO_PRODUCER_EPOCH
                            && expectedEpoch != v.producerEpoch()) {
                        if (expectedEpoch == v.lastProducerEpoch()) {
                            // A retry of the bump we made: the producer missed our answer.
                            callback.accept(new InitResult(Errors.NONE, v.producerId(), v.producerEpoch()));
                        } else {
                            callback.accept(InitResult.failed(Errors.PRODUCER_FENCED));
                        }
                        return;
                    } else {
                        short lastEpoch = expected ? v.producerEpoch() : RecordBatch.NO_PRODUCER_EPOCH;
                        next = new TransactionValue(v.producerId(), v.previousProducerId(), (short) (v.producerEpoch() + 1),
                                lastEpoch, timeoutMs, TransactionState.EMPTY, Set.of(), -1, now());
                    }
                    TransactionValue written = next;
                    write(shard, md, next, error -> {
                        if (error == Errors.NONE) {
                            LOG.info("Initialized transactional id {} with producer id {} and epoch {} on {}-{}",
                                    transactionalId, written.producerId(), written.producerEpoch(),
                                    TransactionStateTopic.NAME, shard.partition);
                            callback.accept(new InitResult(Errors.NONE, written.producerId(), written.producerEpoch()));
                        } else {
                            callback.accept(InitResult.failed(error));
                        }
                    });
                }
                default -> callback.accept(InitResult.failed(Errors.CONCURRENT_TRANSACTIONS));
            }
        }
    }

    // ------------------------------------------------------------------ AddPartitionsToTxn / AddOffsetsToTxn

    /**
     * Adds {@code partitions} to the producer's transaction, opening it if none is: answered once
     * written. Errors are for the whole set.
     */
    public void addPartitions(String transactionalId, long producerId, short producerEpoch,
                              Set<TopicPartition> partitions, Consumer<Errors> callback) {
        addPartitions(transactionalId, producerId, producerEpoch, partitions, false, callback);
    }

    /**
     * As {@link #addPartitions(String, long, short, Set, Consumer)}; {@code implicit} when a partition leader
     * or group coordinator adds the partition for a Produce v12+ or TxnOffsetCommit v5+ of transaction
     * version 2 (KIP-890 part 2): a transaction opened so is ended with an epoch bump.
     */
    public void addPartitions(String transactionalId, long producerId, short producerEpoch,
                              Set<TopicPartition> partitions, boolean implicit, Consumer<Errors> callback) {
        if (transactionalId == null || transactionalId.isEmpty()) {
            callback.accept(Errors.INVALID_REQUEST);
            return;
        }
        TransactionShard shard;
        try {
            shard = shardFor(transactionalId);
        } catch (ApiException e) {
            callback.accept(e.error());
            return;
        }
        TransactionMetadata md = shard.txns.get(transactionalId);
        if (md == null) {
            callback.accept(Errors.INVALID_PRODUCER_ID_MAPPING);
            return;
        }
        synchronized (md) {
            TransactionValue v = md.current();
            if (v.producerId() != producerId) {
                callback.accept(Errors.INVALID_PRODUCER_ID_MAPPING);
            } else if (v.producerEpoch() != producerEpoch) {
                callback.accept(Errors.PRODUCER_FENCED);
            } else if (md.hasPendingTransition() && md.pending().state() == TransactionState.ONGOING
                    && md.pending().producerId() == producerId && md.pending().producerEpoch() == producerEpoch) {
                // Another add of this transaction is being written (leaders of several partitions add at
                // once with transaction version 2): take this one up when it is, instead of a retry.
                md.afterTransition(() -> addPartitions(transactionalId, producerId, producerEpoch, partitions,
                        implicit, callback));
            } else if (md.hasPendingTransition() || v.state().isPreparing()) {
                callback.accept(Errors.CONCURRENT_TRANSACTIONS);
            } else if (v.state() == TransactionState.ONGOING && v.partitions().containsAll(partitions)) {
                callback.accept(Errors.NONE);
            } else if (v.state() != TransactionState.ONGOING && !v.state().isIdle()) {
                callback.accept(Errors.INVALID_TXN_STATE);
            } else {
                Set<TopicPartition> all = new HashSet<>(v.partitions());
                all.addAll(partitions);
                long now = now();
                boolean opening = v.state() != TransactionState.ONGOING;
                long start = opening ? now : v.txnStartTimestamp();
                byte version = opening ? (byte) (implicit ? 2 : 1) : v.transactionVersion();
                TransactionValue next = new TransactionValue(v.producerId(), v.previousProducerId(), v.producerEpoch(),
                        v.lastProducerEpoch(), v.timeoutMs(), TransactionState.ONGOING, all, start, now,
                        RecordBatch.NO_PRODUCER_ID, version);
                write(shard, md, next, callback);
            }
        }
    }

    /**
     * Whether each of {@code partitions} is in the producer's open transaction (AddPartitionsToTxn v4+
     * verify-only, sent by partition leaders and group coordinators before a transaction's first write
     * to a partition, KIP-890 part 1): NONE or TRANSACTION_ABORTABLE per partition (the leader tells
     * older clients INVALID_TXN_STATE instead), or one error for all: INVALID_PRODUCER_ID_MAPPING for an
     * unknown id or another producer id, PRODUCER_FENCED for another epoch, CONCURRENT_TRANSACTIONS
     * while the transaction is being ended, NOT_COORDINATOR or COORDINATOR_LOAD_IN_PROGRESS. As Kafka's
     * coordinator; unlike it, an end (Prepare*) still being written already counts, since Krill has no
     * verification guard to stop a write that slips in before the markers.
     */
    public Map<TopicPartition, Errors> verify(String transactionalId, long producerId, short producerEpoch,
                                              Set<TopicPartition> partitions) {
        Errors error;
        Map<TopicPartition, Errors> result = new LinkedHashMap<>();
        try {
            if (transactionalId == null || transactionalId.isEmpty()) {
                throw new ApiException(Errors.INVALID_REQUEST, "no transactional id");
            }
            TransactionShard shard = shardFor(transactionalId);
            TransactionMetadata md = shard.txns.get(transactionalId);
            if (md == null) {
                throw new ApiException(Errors.INVALID_PRODUCER_ID_MAPPING, "unknown transactional id");
            }
            synchronized (md) {
                TransactionValue v = md.current();
                if (v.producerId() != producerId) {
                    error = Errors.INVALID_PRODUCER_ID_MAPPING;
                } else if (v.producerEpoch() != producerEpoch) {
                    error = Errors.PRODUCER_FENCED;
                } else if (v.state().isPreparing() || (md.hasPendingTransition() && md.pending().state().isPreparing())) {
                    error = Errors.CONCURRENT_TRANSACTIONS;
                } else {
                    boolean open = v.state() == TransactionState.ONGOING;
                    for (TopicPartition tp : partitions) {
                        result.put(tp, open && v.partitions().contains(tp) ? Errors.NONE : Errors.TRANSACTION_ABORTABLE);
                    }
                    return result;
                }
            }
        } catch (ApiException e) {
            error = e.error();
        }
        for (TopicPartition tp : partitions) {
            result.put(tp, error);
        }
        return result;
    }

    // ------------------------------------------------------------------ EndTxn

    /** EndTxn v0-4 from the producer (transaction version 1): answered once PrepareCommit/PrepareAbort is written. */
    public void endTransaction(String transactionalId, long producerId, short producerEpoch, boolean commit,
                               Consumer<Errors> callback) {
        endTransaction(transactionalId, producerId, producerEpoch, commit, false, result -> callback.accept(result.error()));
    }

    /**
     * EndTxn from the producer: answered once PrepareCommit/PrepareAbort is written; markers follow. With
     * {@code bumpEpoch} (EndTxn v5, transaction version 2, KIP-890 part 2) the transaction is ended at the
     * producer's epoch + 1, so its markers fence every late write of the transaction, and the answer gives
     * the producer that epoch (or, when the epoch is exhausted, a new producer id at epoch 0; the old one
     * stays known for retries). A version 2 abort with no transaction open still bumps the epoch, fencing
     * writes the producer may have in flight. A retry of an end that was made (the producer's epoch is the
     * one before the bump) is answered as the first time once complete, CONCURRENT_TRANSACTIONS until then.
     */
    public void endTransaction(String transactionalId, long producerId, short producerEpoch, boolean commit,
                               boolean bumpEpoch, Consumer<EndResult> callback) {
        if (transactionalId == null || transactionalId.isEmpty()) {
            callback.accept(EndResult.failed(Errors.INVALID_REQUEST));
            return;
        }
        TransactionShard shard;
        try {
            shard = shardFor(transactionalId);
        } catch (ApiException e) {
            callback.accept(EndResult.failed(e.error()));
            return;
        }
        TransactionMetadata md = shard.txns.get(transactionalId);
        if (md == null) {
            callback.accept(EndResult.failed(Errors.INVALID_PRODUCER_ID_MAPPING));
            return;
        }
        synchronized (md) {
            TransactionValue v = md.current();
            if (bumpEpoch && EpochBump.isRetry(v, producerId, producerEpoch)) {
                callback.accept(EpochBump.retriedAnswer(v, md.hasPendingTransition(), commit));
                return;
            }
            if (v.producerId() != producerId) {
                callback.accept(EndResult.failed(Errors.INVALID_PRODUCER_ID_MAPPING));
                return;
            }
            if (producerEpoch != v.producerEpoch()) {
                callback.accept(EndResult.failed(Errors.PRODUCER_FENCED));
                return;
            }
            if (md.hasPendingTransition() || (bumpEpoch && v.state().isPreparing())) {
                // Version 2: the previous transaction's markers (which gave the producer this epoch) are still
                // being written; this end is the next transaction's and waits for them.
                callback.accept(EndResult.failed(Errors.CONCURRENT_TRANSACTIONS));
                return;
            }
            TransactionState prepare = commit ? TransactionState.PREPARE_COMMIT : TransactionState.PREPARE_ABORT;
            if (bumpEpoch && commit && v.state() != TransactionState.ONGOING) {
                // Not a retry (that carries the epoch before the bump): at this epoch nothing was added, or
                // it is another coordinator's. NONE here would tell the producer its writes committed.
                callback.accept(EndResult.failed(Errors.INVALID_TXN_STATE));
                return;
            }
            if (bumpEpoch && (v.state() == TransactionState.ONGOING || v.state().isIdle())) {
                TransactionValue prepared = bumped(v, prepare);
                long nextId = prepared.nextProducerId() != RecordBatch.NO_PRODUCER_ID ? prepared.nextProducerId()
                        : prepared.producerId();
                short nextEpoch = prepared.nextProducerId() != RecordBatch.NO_PRODUCER_ID ? 0 : prepared.producerEpoch();
                prepare(shard, md, prepared, error -> callback.accept(error == Errors.NONE
                        ? new EndResult(Errors.NONE, nextId, nextEpoch) : EndResult.failed(error)));
                return;
            }
            Consumer<Errors> v1 = error -> callback.accept(EndResult.failed(error));
            switch (v.state()) {
                case ONGOING -> prepare(shard, md, v.withState(prepare, now()), v1);
                case COMPLETE_COMMIT -> v1.accept(commit ? Errors.NONE : Errors.INVALID_TXN_STATE);
                case COMPLETE_ABORT -> v1.accept(commit ? Errors.INVALID_TXN_STATE : Errors.NONE);
                case PREPARE_COMMIT -> v1.accept(commit ? Errors.CONCURRENT_TRANSACTIONS : Errors.INVALID_TXN_STATE);
                case PREPARE_ABORT -> v1.accept(commit ? Errors.INVALID_TXN_STATE : Errors.CONCURRENT_TRANSACTIONS);
                default -> v1.accept(Errors.INVALID_TXN_STATE);
            }
        }
    }

    /**
     * The Prepare* state that ends {@code v}'s transaction (or, for an abort, fences the idle producer) at
     * the next epoch, with a new producer id to go on with when that epoch is the last one.
     */
    private TransactionValue bumped(TransactionValue v, TransactionState prepare) {
        long next = EpochBump.exhausts(v) ? producerIds.getAsLong() : RecordBatch.NO_PRODUCER_ID;
        if (next != RecordBatch.NO_PRODUCER_ID) {
            LOG.info("Producer epoch of producer id {} exhausted: it continues as producer id {} after this transaction",
                    v.producerId(), next);
        }
        return EpochBump.prepared(v, prepare, next, now());
    }

    /**
     * Fences the producer of an open transaction (epoch + 1, so its late writes are refused) and aborts
     * the transaction with the new epoch. Caller holds {@code md}'s monitor; the state is Ongoing and no
     * transition is pending.
     */
    private void fenceAndAbort(TransactionShard shard, TransactionMetadata md, Consumer<Errors> callback) {
        TransactionValue v = md.current();
        short epoch = v.producerEpoch() == Short.MAX_VALUE ? v.producerEpoch() : (short) (v.producerEpoch() + 1);
        TransactionValue next = new TransactionValue(v.producerId(), v.previousProducerId(), epoch,
                RecordBatch.NO_PRODUCER_EPOCH, v.timeoutMs(), TransactionState.PREPARE_ABORT, v.partitions(),
                v.txnStartTimestamp(), now(), RecordBatch.NO_PRODUCER_ID, v.transactionVersion());
        prepare(shard, md, next, callback);
    }

    /** Writes a Prepare* state, answers, then has the markers written. Caller holds {@code md}'s monitor. */
    private void prepare(TransactionShard shard, TransactionMetadata md, TransactionValue prepared, Consumer<Errors> callback) {
        write(shard, md, prepared, error -> {
            callback.accept(error);
            if (error == Errors.NONE) {
                sendMarkers(shard, md, prepared);
            }
        });
    }

    private void sendMarkers(TransactionShard shard, TransactionMetadata md, TransactionValue prepared) {
        synchronized (md) {
            if (!loader.isCurrent(shard) || md.current() != prepared || !md.claimMarkers()) {
                return;
            }
        }
        boolean commit = prepared.state() == TransactionState.PREPARE_COMMIT;
        markers.write(new MarkerWriter.Markers(md.transactionalId(), prepared.producerId(), prepared.producerEpoch(),
                        commit, shard.coordinatorEpoch, prepared.partitions(), () -> loader.isCurrent(shard),
                        prepared.bumpsEpochPerTransaction() ? (byte) 2 : (byte) 1),
                () -> complete(shard, md, prepared));
    }

    /** Every marker of {@code prepared} is written: the transaction is complete. Retries a failed write. */
    private void complete(TransactionShard shard, TransactionMetadata md, TransactionValue prepared) {
        synchronized (md) {
            if (!loader.isCurrent(shard) || md.current() != prepared) {
                return;
            }
            if (md.hasPendingTransition()) {
                timer.schedule(RETRY_BACKOFF_MS, () -> complete(shard, md, prepared));
                return;
            }
            TransactionState done = prepared.state() == TransactionState.PREPARE_COMMIT
                    ? TransactionState.COMPLETE_COMMIT : TransactionState.COMPLETE_ABORT;
            boolean rotating = prepared.nextProducerId() != RecordBatch.NO_PRODUCER_ID;
            TransactionValue next = new TransactionValue(
                    rotating ? prepared.nextProducerId() : prepared.producerId(),
                    rotating ? prepared.producerId() : prepared.previousProducerId(),
                    rotating ? 0 : prepared.producerEpoch(), prepared.lastProducerEpoch(), prepared.timeoutMs(), done,
                    Set.of(), prepared.txnStartTimestamp(), now(), RecordBatch.NO_PRODUCER_ID,
                    prepared.transactionVersion());
            write(shard, md, next, error -> {
                if (error == Errors.NONE) {
                    LOG.debug("Transactional id {}: {}", md.transactionalId(), done.displayName());
                } else if (loader.isCurrent(shard)) {
                    LOG.info("Writing {} of transactional id {} failed with {}; retrying", done.displayName(),
                            md.transactionalId(), error);
                    timer.schedule(RETRY_BACKOFF_MS, () -> complete(shard, md, prepared));
                }
            });
        }
    }

    // ------------------------------------------------------------------ state writes

    /**
     * Writes {@code next} as the transactional id's state; it becomes current once the in-sync replicas
     * have it, and {@code done} learns the outcome (already mapped to the coordinator's errors). Caller
     * holds {@code md}'s monitor and checked that no transition is pending.
     */
    private void write(TransactionShard shard, TransactionMetadata md, TransactionValue next, Consumer<Errors> done) {
        md.beginTransition(next);
        byte[] value = next.state() == TransactionState.DEAD ? null : TransactionRecords.value(next);
        log.append(shard.partition, List.of(new CoordinatorLog.Entry(TransactionRecords.key(md.transactionalId()),
                value))).whenComplete((ok, failure) -> {
                    Errors error;
                    List<Runnable> waiting;
                    synchronized (md) {
                        waiting = md.takeWaiting();
                        if (failure != null) {
                            md.abandonTransition();
                            error = writeError(failure);
                        } else if (!loader.isCurrent(shard)) {
                            md.abandonTransition();
                            error = Errors.NOT_COORDINATOR;
                        } else {
                            md.completeTransition(next);
                            if (next.state() == TransactionState.DEAD) {
                                shard.txns.remove(md.transactionalId(), md);
                            }
                            error = Errors.NONE;
                        }
                    }
                    done.accept(error);
                    waiting.forEach(Runnable::run);
                });
    }

    private static Errors writeError(Throwable failure) {
        Throwable cause = failure.getCause() != null && !(failure instanceof ApiException) ? failure.getCause() : failure;
        if (!(cause instanceof ApiException api)) {
            LOG.error("Unexpected failure writing {}", TransactionStateTopic.NAME, failure);
            return Errors.UNKNOWN_SERVER_ERROR;
        }
        return api.error() == Errors.RECORD_LIST_TOO_LARGE ? Errors.UNKNOWN_SERVER_ERROR : api.error();
    }

    // ------------------------------------------------------------------ timers

    /** Runs {@code work} every {@code intervalMs} on the coordinator's timer until the coordinator closes. */
    private void every(long intervalMs, Runnable work) {
        timer.schedule(intervalMs, () -> {
            if (loader.isClosed()) {
                return;
            }
            try {
                work.run();
            } finally {
                every(intervalMs, work);
            }
        });
    }

    /** Each transactional id of every loaded partition, with its metadata's lock held. */
    private void forEachLoaded(java.util.function.BiConsumer<TransactionShard, TransactionMetadata> action) {
        for (TransactionShard shard : loader.shards()) {
            if (!shard.loaded) {
                continue;
            }
            for (TransactionMetadata md : shard.txns.values()) {
                synchronized (md) {
                    action.accept(shard, md);
                }
            }
        }
    }

    /** Fences and aborts every open transaction older than its timeout. */
    void abortTimedOutTransactions() {
        long now = now();
        forEachLoaded((shard, md) -> {
            TransactionValue v = md.current();
            if (v.state() != TransactionState.ONGOING || md.hasPendingTransition()
                    || v.txnStartTimestamp() + v.timeoutMs() > now) {
                return;
            }
            LOG.info("Aborting the transaction of transactional id {} (producer id {}, epoch {}): open for more "
                    + "than its timeout of {} ms", md.transactionalId(), v.producerId(), v.producerEpoch(),
                    v.timeoutMs());
            fenceAndAbort(shard, md, error -> {
                if (error != Errors.NONE) {
                    LOG.info("Aborting the timed-out transaction of {} failed with {}; will retry",
                            md.transactionalId(), error);
                }
            });
        });
    }

    /** Forgets transactional ids without a transaction that have not changed for transactional.id.expiration.ms. */
    void expireTransactionalIds() {
        long now = now();
        forEachLoaded((shard, md) -> {
            TransactionValue v = md.current();
            if (!v.state().isIdle() || md.hasPendingTransition()
                    || v.lastUpdateTimestamp() + config.transactionalIdExpirationMs() > now) {
                return;
            }
            write(shard, md, v.withState(TransactionState.DEAD, now), error -> {
                if (error == Errors.NONE) {
                    LOG.info("Transactional id {} expired", md.transactionalId());
                }
            });
        });
    }

    // ------------------------------------------------------------------ admin (TransactionListing)

    /** DescribeTransactions for one transactional id. */
    public DescribeTransactionsResponse.TransactionState describe(String transactionalId) {
        return TransactionListing.describe(this, transactionalId);
    }

    /**
     * ListTransactions over the partitions this broker coordinates. Empty filters match everything;
     * {@code minDurationMs} < 0 matches every transaction, else only those whose (last) transaction
     * started more than that long ago, as Kafka filters; {@code pattern} null matches every id.
     * COORDINATOR_LOAD_IN_PROGRESS while a partition loads.
     */
    public ListTransactionsResponse list(Set<String> states, Set<Long> producerIds, long minDurationMs,
                                         Pattern pattern) {
        return TransactionListing.list(this, states, producerIds, minDurationMs, pattern);
    }

    /**
     * The metadata of {@code transactionalId}, or null if this coordinator does not know it.
     *
     * @throws ApiException NOT_COORDINATOR or COORDINATOR_LOAD_IN_PROGRESS
     */
    TransactionMetadata metadataOf(String transactionalId) {
        return shardFor(transactionalId).txns.get(transactionalId);
    }

    /** Hands {@code action} the metadata of every loaded partition; false if some partition is still loading. */
    boolean forEachLoadedTransaction(Consumer<TransactionMetadata> action) {
        boolean allLoaded = true;
        for (TransactionShard shard : loader.shards()) {
            if (!shard.loaded) {
                allLoaded = false;
                continue;
            }
            shard.txns.values().forEach(action);
        }
        return allLoaded;
    }

    /** Stops serving, then the marker sender and the timer thread; a failure to stop them is thrown after all were tried. */
    @Override
    public void close() {
        loader.close();
        RuntimeException failure = null;
        for (AutoCloseable resource : owned) {
            try {
                resource.close();
            } catch (Exception e) {
                RuntimeException wrapped = e instanceof RuntimeException r ? r
                        : new IllegalStateException("closing " + resource + " failed", e);
                if (failure == null) {
                    failure = wrapped;
                } else {
                    failure.addSuppressed(wrapped);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}

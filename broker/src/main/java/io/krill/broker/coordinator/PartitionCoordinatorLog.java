package io.krill.broker.coordinator;

import io.krill.broker.api.ErrorMapping;
import io.krill.broker.partition.Partition;
import io.krill.broker.partition.PartitionManager;
import io.krill.broker.purgatory.DelayedOperation;
import io.krill.broker.purgatory.DelayedOperationPurgatory;
import io.krill.controller.metadata.MetadataStore;
import io.krill.log.AppendInfo;
import io.krill.log.AppendOrigin;
import io.krill.log.LogReadResult;
import io.krill.log.PartitionLog;
import io.krill.log.TopicPartition;
import io.krill.log.producer.ProducerStateEntry;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.record.CompressionType;
import io.krill.wire.record.ControlRecordType;
import io.krill.wire.record.ControlRecords;
import io.krill.wire.record.RecordBatch;
import io.krill.wire.record.RecordBatchBuilder;
import io.krill.wire.record.RecordBatches;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The {@link CoordinatorLog} over this broker's partitions of a coordinator's internal topic
 * ({@code __consumer_offsets} for groups, {@code __transaction_state} for transactions): an append is
 * one record batch (compressed with the coordinator's codec) appended as the leader
 * with acks=all semantics, committed once the partition's high watermark passes it (on one node at
 * once; on a cluster a delayed operation in the produce purgatory waits, up to
 * {@code offsets.commit.timeout.ms}). Replays read the log in {@code offsets.load.buffer.size} chunks.
 *
 * <p>Append errors are mapped to the coordinator's: not the leader -> NOT_COORDINATOR; no such
 * partition, too few in-sync replicas, timeout -> COORDINATOR_NOT_AVAILABLE; a batch too large ->
 * RECORD_LIST_TOO_LARGE (callers map it further).
 *
 * <p>Thread-safe.
 */
public final class PartitionCoordinatorLog implements CoordinatorLog {
    private final String topic;
    private final MetadataStore metadata;
    private final PartitionManager partitions;
    private final DelayedOperationPurgatory<TopicPartition> purgatory;
    private final CoordinatorTimer timer;
    private final long commitTimeoutMs;
    private final CompressionType compression;
    private final int loadBufferSize;

    /** The log of a coordinator whose records live in the partitions of {@code topic}. */
    public PartitionCoordinatorLog(String topic, MetadataStore metadata, PartitionManager partitions,
                                   DelayedOperationPurgatory<TopicPartition> purgatory, CoordinatorTimer timer,
                                   long commitTimeoutMs, int compressionCodec, int loadBufferSize) {
        this.topic = topic;
        this.metadata = metadata;
        this.partitions = partitions;
        this.purgatory = purgatory;
        this.timer = timer;
        this.commitTimeoutMs = commitTimeoutMs;
        this.compression = CompressionType.forId(compressionCodec);
        this.loadBufferSize = loadBufferSize;
    }

    @Override
    public CompletableFuture<Void> append(int partitionIndex, List<Entry> entries) {
        return append(partitionIndex, RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH, entries);
    }

    @Override
    public CompletableFuture<Void> appendTransactional(int partitionIndex, long producerId, short producerEpoch,
                                                       List<Entry> entries) {
        return append(partitionIndex, producerId, producerEpoch, entries);
    }

    private CompletableFuture<Void> append(int partitionIndex, long producerId, short producerEpoch,
                                           List<Entry> entries) {
        CompletableFuture<Void> future = new CompletableFuture<>();
        try {
            Partition partition = partitions.leaderPartition(metadata.image(), topic, partitionIndex);
            long now = timer.milliseconds();
            ByteBuf batch;
            try (RecordBatchBuilder builder = new RecordBatchBuilder()) {
                builder.compression(compression);
                if (producerId != RecordBatch.NO_PRODUCER_ID) {
                    // No sequence: the coordinator's origin skips sequence checks, as Kafka's does.
                    builder.producer(producerId, producerEpoch, RecordBatch.NO_SEQUENCE).transactional(true);
                }
                for (Entry entry : entries) {
                    builder.append(now, entry.key(), entry.value());
                }
                batch = builder.build();
            }
            AppendInfo info;
            try {
                info = partition.appendRecordsToLeader(batch, -1, AppendOrigin.COORDINATOR);
            } finally {
                batch.release();
            }
            DelayedWrite write = new DelayedWrite(partition, info.lastOffset() + 1, future);
            purgatory.tryCompleteElseWatch(write, List.of(partition.topicPartition()));
            write.handOff();
        } catch (RuntimeException e) {
            future.completeExceptionally(new ApiException(coordinatorError(ErrorMapping.toError(e, "coordinator append")),
                    e.getMessage()));
        }
        return future;
    }

    static Errors coordinatorError(Errors error) {
        return switch (error) {
            case NOT_LEADER_OR_FOLLOWER, KAFKA_STORAGE_ERROR, FENCED_LEADER_EPOCH -> Errors.NOT_COORDINATOR;
            case UNKNOWN_TOPIC_OR_PARTITION, NOT_ENOUGH_REPLICAS, NOT_ENOUGH_REPLICAS_AFTER_APPEND, REQUEST_TIMED_OUT,
                    LEADER_NOT_AVAILABLE -> Errors.COORDINATOR_NOT_AVAILABLE;
            case MESSAGE_TOO_LARGE, RECORD_LIST_TOO_LARGE, INVALID_FETCH_SIZE -> Errors.RECORD_LIST_TOO_LARGE;
            case PRODUCER_FENCED -> Errors.INVALID_PRODUCER_EPOCH;
            default -> error;
        };
    }

    @Override
    public boolean isFenced() {
        return metadata.isFenced();
    }

    @Override
    public boolean hasOngoingTransaction(int partitionIndex, long producerId, short producerEpoch) {
        Partition partition = partitions.partition(topic, partitionIndex);
        return partition != null && partition.log().producerState(producerId)
                .map(state -> state.hasOngoingTxn() && state.producerEpoch() == producerEpoch).orElse(false);
    }

    @Override
    public void replay(int partitionIndex, Replayer replayer) {
        Partition partition = partitions.partition(topic, partitionIndex);
        if (partition == null) {
            throw new ApiException(Errors.NOT_COORDINATOR, "partition " + partitionIndex + " of "
                    + topic + " is not hosted here");
        }
        PartitionLog log = partition.log();
        long offset = log.logStartOffset();
        long end = log.logEndOffset();
        while (offset < end) {
            try (LogReadResult read = log.read(offset, loadBufferSize, end, true)) {
                if (read.isEmpty()) {
                    break;
                }
                ByteBuf bytes = read.records().readAll();
                RecordBatches.forEach(bytes, bytes.readerIndex(), bytes.writerIndex(), batch -> {
                    long producerId = batch.producerId();
                    if (batch.isControl()) {
                        batch.forEachRecord(record -> {
                            ControlRecordType type = ControlRecords.type(record);
                            if (type.isTransactionMarker()) {
                                replayer.replayMarker(producerId, type == ControlRecordType.COMMIT);
                            }
                            return true;
                        });
                    } else {
                        boolean transactional = batch.isTransactional();
                        batch.forEachRecord(record -> {
                            if (record.hasKey()) {
                                byte[] key = copy(record.key());
                                byte[] value = record.hasValue() ? copy(record.value()) : null;
                                if (transactional) {
                                    replayer.replayTransactional(producerId, key, value);
                                } else {
                                    replayer.replay(key, value);
                                }
                            }
                            return true;
                        });
                    }
                    return true;
                });
                if (read.nextOffset() <= offset) {
                    break;
                }
                offset = read.nextOffset();
            } catch (IOException e) {
                throw new UncheckedIOException("replay of " + topic + "-" + partitionIndex, e);
            }
        }
    }

    private static byte[] copy(ByteBuf buf) {
        byte[] bytes = new byte[buf.readableBytes()];
        buf.getBytes(buf.readerIndex(), bytes);
        return bytes;
    }

    /**
     * Waits for the high watermark to pass an appended batch. Completes the future inline when that is
     * already so (one node); later completions hop to the coordinator thread, so that no request or
     * purgatory thread runs group code while holding other locks.
     */
    private final class DelayedWrite extends DelayedOperation {
        private final Partition partition;
        private final long requiredOffset;
        private final CompletableFuture<Void> future;
        private final Thread caller = Thread.currentThread();
        private volatile boolean handedOff;

        DelayedWrite(Partition partition, long requiredOffset, CompletableFuture<Void> future) {
            super(commitTimeoutMs);
            this.partition = partition;
            this.requiredOffset = requiredOffset;
            this.future = future;
        }

        void handOff() {
            handedOff = true;
        }

        @Override
        public boolean tryComplete() {
            if (!partition.isLeader() || partition.highWatermark() >= requiredOffset) {
                return forceComplete();
            }
            return false;
        }

        @Override
        protected void onComplete() {
            Runnable complete;
            if (partition.highWatermark() >= requiredOffset) {
                complete = () -> future.complete(null);
            } else {
                Errors error = partition.isLeader() ? Errors.COORDINATOR_NOT_AVAILABLE : Errors.NOT_COORDINATOR;
                complete = () -> future.completeExceptionally(new ApiException(error, "write to "
                        + partition.topicPartition() + " was not replicated in time"));
            }
            if (!handedOff && Thread.currentThread() == caller) {
                complete.run();
            } else {
                timer.execute(complete);
            }
        }
    }
}

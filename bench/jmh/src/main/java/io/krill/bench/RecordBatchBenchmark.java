package io.krill.bench;

import io.krill.wire.record.CompressionType;
import io.krill.wire.record.CorruptRecordException;
import io.krill.wire.record.RecordBatch;
import io.krill.wire.record.RecordBatchBuilder;
import io.krill.wire.record.RecordVisitor;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The broker's produce hot path on one uncompressed 64 KiB batch of 1 KiB records, as a producer sends
 * it: check the batch (header, CRC-32C over ~64 KiB) and stamp its offset and leader epoch in place;
 * walk its records; or both. The batch holds 62 records (65,099 bytes): divide ns/op by 62 for a
 * per-record figure.
 *
 * <p>The batch sits in a pooled buffer, direct as it arrives from the network or heap. Each benchmark
 * instance is used by one JMH thread.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RecordBatchBenchmark {
    /** Bytes of a produce batch, header included. */
    static final int BATCH_BYTES = 64 * 1024;
    static final int VALUE_BYTES = 1024;
    static final int KEY_BYTES = 16;

    @Param({"direct", "heap"})
    public String memory;

    private ByteBuf buffer;
    private final RecordBatch batch = new RecordBatch();
    private int size;
    private long nextOffset;
    private long sink;
    private final RecordVisitor sumRecords = record -> {
        sink += record.offset() + record.timestamp() + record.keySize() + record.valueSize();
        return true;
    };

    @Setup(Level.Trial)
    public void buildBatch() {
        Random random = new Random(42);
        byte[] key = new byte[KEY_BYTES];
        byte[] value = new byte[VALUE_BYTES];
        try (RecordBatchBuilder builder = new RecordBatchBuilder()) {
            builder.compression(CompressionType.NONE).producer(1000, (short) 0, 0);
            long now = System.currentTimeMillis();
            // Fill up to 64 KiB: each record is its 1 KiB value, its key and ~8 bytes of framing.
            while (builder.uncompressedSizeInBytes() + VALUE_BYTES + KEY_BYTES + 16 <= BATCH_BYTES) {
                random.nextBytes(key);
                random.nextBytes(value);
                builder.append(now++, key, value);
            }
            ByteBuf built = builder.build();
            try {
                size = built.readableBytes();
                buffer = "direct".equals(memory) ? PooledByteBufAllocator.DEFAULT.directBuffer(size)
                        : PooledByteBufAllocator.DEFAULT.heapBuffer(size);
                buffer.writeBytes(built);
            } finally {
                built.release();
            }
        }
        batch.wrap(buffer, 0);
        batch.validate(size);
    }

    @TearDown(Level.Trial)
    public void release() {
        buffer.release();
    }

    /** Validate (header + CRC-32C) and assign offsets and leader epoch in place: what a leader does per batch. */
    @Benchmark
    public long validateAndAssignOffsets() {
        RecordBatch b = batch.wrap(buffer, 0);
        b.validate(size);
        if (!b.hasContiguousOffsets()) {
            throw new CorruptRecordException("producer batch with offset gaps");
        }
        long base = nextOffset;
        b.setBaseOffset(base);
        b.setPartitionLeaderEpoch(7);
        nextOffset = base + b.lastOffsetDelta() + 1;
        return nextOffset;
    }

    /** Walk every record in place (parse and bounds-check each), reading the fields a validator reads. */
    @Benchmark
    public long iterateRecords() {
        batch.wrap(buffer, 0).forEachRecord(sumRecords);
        return sink;
    }

    /** Both: validate, check every record, assign offsets. */
    @Benchmark
    public long validateIterateAndAssign() {
        RecordBatch b = batch.wrap(buffer, 0);
        b.validate(size);
        b.forEachRecord(sumRecords);
        long base = nextOffset;
        b.setBaseOffset(base);
        b.setPartitionLeaderEpoch(7);
        nextOffset = base + b.lastOffsetDelta() + 1;
        return nextOffset + sink;
    }
}

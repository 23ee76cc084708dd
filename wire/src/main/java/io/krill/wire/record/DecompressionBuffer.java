package io.krill.wire.record;

import io.krill.wire.record.compression.Compression;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The scratch buffer that compressed batches are inflated into before their records are read, reused
 * from batch to batch and bounded: a batch that inflates past {@link #maxBytes()} is refused with
 * {@link CorruptRecordException}, so a decompression bomb costs at most that much memory.
 *
 * <p>After a large batch the buffer is released instead of kept, so one outlier does not pin its size
 * for the life of the owner ({@link #RETAINED_CAPACITY}).
 *
 * <p>Not thread-safe: one per thread (a request handler, the log cleaner). Close it to release its buffer.
 */
public final class DecompressionBuffer implements AutoCloseable {
    /**
     * Default limit. Kafka's default {@code message.max.bytes} is 1 MiB of compressed data; 128 MiB leaves
     * room for very compressible payloads and larger configured limits.
     */
    public static final int DEFAULT_MAX_BYTES = 128 << 20;
    /** Capacity kept between batches; a larger buffer is released after use. */
    public static final int RETAINED_CAPACITY = 4 << 20;
    private static final int INITIAL_CAPACITY = 64 * 1024;
    /** Keeps {@code maxBytes} plus a decompression window addressable as an int. */
    private static final int SLACK = 1 << 20;

    private final ByteBufAllocator allocator;
    private final int maxBytes;
    private ByteBuf buffer;

    /** A heap scratch buffer from the default allocator, bounded by {@link #DEFAULT_MAX_BYTES}. */
    public DecompressionBuffer() {
        this(ByteBufAllocator.DEFAULT, DEFAULT_MAX_BYTES);
    }

    public DecompressionBuffer(ByteBufAllocator allocator, int maxBytes) {
        if (maxBytes <= 0 || maxBytes > Integer.MAX_VALUE - SLACK) {
            throw new IllegalArgumentException("maxBytes " + maxBytes);
        }
        this.allocator = allocator;
        this.maxBytes = maxBytes;
    }

    public int maxBytes() {
        return maxBytes;
    }

    /**
     * Decompresses {@code length} bytes of {@code source} from absolute index {@code index} with
     * {@code codec} into this scratch, replacing what it held.
     *
     * @return the scratch, its readable bytes being the decompressed data; valid until the next call,
     *         {@link #recycle()} or {@link #close()}
     * @throws CorruptRecordException if the data is malformed or inflates past {@link #maxBytes()}
     */
    public ByteBuf decompress(Compression codec, ByteBuf source, int index, int length) {
        if (buffer == null) {
            buffer = allocator.heapBuffer(Math.min(INITIAL_CAPACITY, maxBytes + 1));
        }
        buffer.clear();
        codec.decompress(source.slice(index, length), buffer, maxBytes);
        return buffer;
    }

    /** Releases the scratch if it grew past {@link #RETAINED_CAPACITY}; called after each batch. */
    public void recycle() {
        if (buffer != null && buffer.capacity() > RETAINED_CAPACITY) {
            ByteBuf large = buffer;
            buffer = null;
            large.release();
        }
    }

    /** Current capacity of the scratch, 0 if none is held. */
    public int capacity() {
        return buffer == null ? 0 : buffer.capacity();
    }

    @Override
    public void close() {
        if (buffer != null) {
            ByteBuf held = buffer;
            buffer = null;
            held.release();
        }
    }
}

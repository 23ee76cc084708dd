package io.krill.wire.record.compression;

import io.krill.wire.record.CompressionType;
import io.krill.wire.record.CorruptRecordException;
import io.netty.buffer.ByteBuf;

/**
 * One codec of the record batch's records section, in the exact framing Kafka clients write and read:
 * gzip (RFC 1952, multi-member), snappy in xerial's framing (raw snappy also read), LZ4 in the LZ4 frame
 * format with independent blocks, zstd frames. The log's compactor and the broker re-encode batches with
 * these; {@link io.krill.wire.record.RecordBatch#forEachRecord} reads with them.
 *
 * <p>Implementations are immutable and thread-safe.
 */
public interface Compression {

    CompressionType type();

    /**
     * Appends the compressed form of {@code src}'s readable bytes to {@code dst}, growing it as needed.
     * {@code src}'s indexes are left unchanged.
     */
    void compress(ByteBuf src, ByteBuf dst);

    /**
     * Appends the decompressed form of {@code src}'s readable bytes to {@code dst}, writing at most
     * {@code maxBytes}: the bound that turns a decompression bomb into an error instead of an
     * out-of-memory. {@code src}'s indexes are left unchanged.
     *
     * @return the number of bytes appended
     * @throws CorruptRecordException if {@code src} is malformed, truncated, fails a checksum, or
     *                                decompresses to more than {@code maxBytes}
     */
    int decompress(ByteBuf src, ByteBuf dst, int maxBytes);

    /** The codec for {@code type} at its default level. */
    static Compression of(CompressionType type) {
        switch (type) {
            case NONE:
                return NoCompression.INSTANCE;
            case GZIP:
                return GzipCompression.DEFAULT;
            case SNAPPY:
                return SnappyCompression.INSTANCE;
            case LZ4:
                return Lz4Compression.DEFAULT;
            case ZSTD:
                return ZstdCompression.DEFAULT;
            default:
                throw new IllegalArgumentException("no codec for " + type);
        }
    }
}

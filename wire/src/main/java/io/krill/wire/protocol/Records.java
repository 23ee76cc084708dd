package io.krill.wire.protocol;

import io.netty.buffer.ByteBuf;

/**
 * The value of a {@code records} field: a run of record batches that a message carries opaquely.
 * Generated messages only ask for its length and tell it to write itself, so the bytes need not be
 * in memory: this is what lets the broker answer Fetch straight from segment files.
 *
 * <p>In-memory records ({@link ByteBufRecords}) write their bytes. File-backed records, implemented
 * in the broker, may instead note {@code out.writerIndex()} in a collector they were built with and
 * write nothing; the response encoder then splices a {@code FileRegion} of {@link #sizeInBytes()}
 * bytes in at that index. That is why a message's {@link Message#size(short) size()} counts
 * {@code sizeInBytes()} while the buffer it was written to may end up shorter.
 *
 * <p>Implementations must report the same size for as long as they sit in a message, and should be
 * immutable (then they are thread-safe). The generated {@code equals}/{@code hashCode} delegate to the
 * implementation's.
 */
public interface Records {

    /** The number of bytes these records occupy on the wire, without the length prefix. */
    int sizeInBytes();

    /**
     * Writes exactly {@link #sizeInBytes()} bytes at {@code out}'s writer index, or, for records
     * sent out of band (a file region), records that index and writes nothing. Called once per
     * encoding, after the length prefix; repeatable.
     */
    void writeTo(ByteBuf out);

    /**
     * The bytes, for records held in memory (such as those read from a request); null when they
     * are not (file-backed records), in which case the caller must go through {@link #writeTo}.
     */
    default ByteBuf buffer() {
        return null;
    }
}

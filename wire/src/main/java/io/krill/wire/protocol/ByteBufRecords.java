package io.krill.wire.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.Objects;

/**
 * {@link Records} held in a {@link ByteBuf}: what generated messages read (a slice of the input
 * buffer) and what a sender sets for records it has in memory.
 *
 * <p>Immutable wrapper: it keeps its own view (indices) of the readable bytes given to
 * {@link #of}, so later reads of the original buffer do not change it. It does not own or retain
 * the buffer: the bytes stay valid only while the buffer they came from is neither released nor
 * overwritten. Thread-safe as long as nobody writes those bytes.
 */
public final class ByteBufRecords implements Records {
    /**
     * No records: what a response carries where it has none to send but the field is not to be null
     * (a Fetch partition with an error, as Kafka answers it: librdkafka rejects a null record set).
     */
    public static final ByteBufRecords EMPTY = new ByteBufRecords(io.netty.buffer.Unpooled.EMPTY_BUFFER);

    private final ByteBuf buf;

    private ByteBufRecords(ByteBuf buf) {
        this.buf = buf;
    }

    /**
     * Wraps the readable bytes of {@code buf} without copying or retaining them; {@code buf}'s
     * indices are not moved.
     */
    public static ByteBufRecords of(ByteBuf buf) {
        return new ByteBufRecords(Objects.requireNonNull(buf, "buf").slice());
    }

    @Override
    public int sizeInBytes() {
        return buf.readableBytes();
    }

    @Override
    public void writeTo(ByteBuf out) {
        out.writeBytes(buf, buf.readerIndex(), buf.readableBytes());
    }

    /**
     * The bytes, as a new view sharing their memory and reference count (not retained): its indices
     * are the caller's to move, which does not affect these records.
     */
    @Override
    public ByteBuf buffer() {
        return buf.duplicate();
    }

    /** Equal to another {@code ByteBufRecords} with the same bytes, like {@link ByteBuf#equals}. */
    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof ByteBufRecords other && ByteBufUtil.equals(buf, other.buf);
    }

    @Override
    public int hashCode() {
        return ByteBufUtil.hashCode(buf);
    }

    /** The length only, so that logging a message never dumps record batches. */
    @Override
    public String toString() {
        return "ByteBufRecords[" + buf.readableBytes() + " bytes]";
    }
}

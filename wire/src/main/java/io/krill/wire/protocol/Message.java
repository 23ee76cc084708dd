package io.krill.wire.protocol;

import io.netty.buffer.ByteBuf;
import java.util.List;

/**
 * A protocol struct generated from a Kafka message schema: a whole message or one of its nested
 * structs. Implementations are mutable and not thread-safe; one owner at a time.
 *
 * <p>Zero-copy fields ({@code records}, read as {@link ByteBufRecords}, and {@code bytes} marked
 * {@code zeroCopy}) read as slices of the input buffer sharing its reference count: they stay valid
 * only while that buffer is neither released nor overwritten, and a message holding them must not
 * outlive it.
 */
public interface Message {

    /**
     * Reads this message from {@code buf} at its reader index, advancing it past the message. Fields
     * absent at {@code version} get their defaults; unknown tagged fields are kept for re-encoding.
     *
     * @throws MalformedMessageException for any malformed input or an undefined version
     */
    void read(ByteBuf buf, short version);

    /**
     * Writes this message at {@code buf}'s writer index; exactly {@link #size(short)} bytes, less
     * those of any {@link Records} that send themselves out of band (file-backed records note where
     * they belong instead of writing). If it throws, part of the message may have been written: reset
     * the writer index or drop the buffer.
     *
     * @throws UnwritableMessageException if the message cannot be encoded at {@code version}
     */
    void write(ByteBuf buf, short version);

    /**
     * The exact encoded size at {@code version}: the bytes {@link #write} produces plus those of
     * records it leaves to be sent out of band.
     */
    int size(short version);

    short lowestSupportedVersion();

    short highestSupportedVersion();

    /** True when every field has its schema default and there are no unknown tagged fields. */
    boolean hasDefaultValues();

    /** Tagged fields read but not known to the schema, in wire order; mutable, created on demand. */
    List<RawTaggedField> unknownTaggedFields();
}

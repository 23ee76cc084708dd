package io.krill.broker.coordinator;

import io.krill.wire.protocol.ApiMessage;
import io.krill.wire.protocol.MalformedMessageException;
import io.krill.wire.protocol.Message;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * Kafka's framing of a coordinator record (the generated classes of {@code io.krill.wire.coordinator}), as
 * Kafka's {@code MessageUtil.toCoordinatorTypePrefixedBytes} and {@code toVersionPrefixedBytes} write it: a
 * key is its int16 record type (the schema's {@code apiKey}) then the key struct at version 0; a value is
 * an int16 version then the value struct at that version.
 *
 * <p>Stateless; thread-safe.
 */
public final class CoordinatorRecords {
    private CoordinatorRecords() {
    }

    /** The bytes of {@code key}: its record type, then the key at version 0. */
    public static byte[] key(ApiMessage key) {
        ByteBuf buf = Unpooled.buffer(2 + key.size((short) 0));
        buf.writeShort(key.apiKey());
        key.write(buf, (short) 0);
        return toBytes(buf);
    }

    /** The bytes of {@code value} at {@code version}, prefixed by the version. */
    public static byte[] value(Message value, short version) {
        ByteBuf buf = Unpooled.buffer(2 + value.size(version));
        buf.writeShort(version);
        value.write(buf, version);
        return toBytes(buf);
    }

    /** The record type of a key (its first two bytes); the reader index is not moved. */
    public static short recordType(ByteBuf key) {
        if (key.readableBytes() < 2) {
            throw new IllegalArgumentException("coordinator key of " + key.readableBytes() + " bytes");
        }
        return key.getShort(key.readerIndex());
    }

    /**
     * Reads {@code message} from all of {@code bytes} at {@code version} (the key body after its type, or
     * the value body after its version); the reader index is not moved.
     *
     * @throws IllegalArgumentException if the bytes are not exactly one such message
     */
    public static <T extends Message> T readExactly(ByteBuf bytes, short version, T message) {
        ByteBuf buf = bytes.duplicate();
        try {
            message.read(buf, version);
        } catch (MalformedMessageException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        if (buf.isReadable()) {
            throw new IllegalArgumentException(buf.readableBytes() + " bytes after a " + message.getClass().getSimpleName()
                    + " at version " + version);
        }
        return message;
    }

    /** Reads a key body: {@code key} past its record type, exactly, at version 0. */
    public static <T extends Message> T readKey(ByteBuf key, T message) {
        return readExactly(key.duplicate().skipBytes(2), (short) 0, message);
    }

    /** The version of a value (its first two bytes). */
    public static short valueVersion(ByteBuf value) {
        if (value.readableBytes() < 2) {
            throw new IllegalArgumentException("coordinator value of " + value.readableBytes() + " bytes");
        }
        return value.getShort(value.readerIndex());
    }

    /** Reads a value past its version, exactly, at that version. */
    public static <T extends Message> T readValue(ByteBuf value, T message) {
        short version = valueVersion(value);
        return readExactly(value.duplicate().skipBytes(2), version, message);
    }

    private static byte[] toBytes(ByteBuf buf) {
        byte[] bytes = new byte[buf.readableBytes()];
        buf.readBytes(bytes);
        return bytes;
    }
}

package io.krill.wire.protocol;

import io.netty.buffer.ByteBuf;

/**
 * {@code toString} fragments for generated messages: binary fields show their length, not their
 * content, so that logging a message never dumps record batches.
 *
 * <p>Stateless; thread-safe.
 */
public final class MessageText {
    private MessageText() {
    }

    public static String bytes(byte[] value) {
        return value == null ? "null" : "bytes[" + value.length + "]";
    }

    public static String bytes(ByteBuf value) {
        return value == null ? "null" : "bytes[" + value.readableBytes() + "]";
    }

    public static String records(Records value) {
        return value == null ? "null" : "records[" + value.sizeInBytes() + "]";
    }
}

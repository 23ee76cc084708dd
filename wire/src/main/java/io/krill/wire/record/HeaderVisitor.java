package io.krill.wire.record;

import io.netty.buffer.ByteBuf;

/**
 * Receives a record's headers as positions in its buffer, so that reading them allocates nothing
 * ({@link Record#forEachHeader}).
 */
@FunctionalInterface
public interface HeaderVisitor {
    /**
     * @param buffer      the record's buffer
     * @param keyIndex    absolute index of the header key (UTF-8)
     * @param keyLength   key length in bytes, never negative
     * @param valueIndex  absolute index of the header value
     * @param valueLength value length in bytes, -1 for a null value
     * @return {@code false} to stop after this header
     */
    boolean visit(ByteBuf buffer, int keyIndex, int keyLength, int valueIndex, int valueLength);
}

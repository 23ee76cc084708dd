package io.krill.wire.message;

import io.krill.wire.protocol.Message;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/** Krill's side of the round trips: exact-capacity writes and whole-buffer reads. Stateless. */
final class KrillCodec {
    private KrillCodec() {
    }

    /**
     * Writes {@code m} into a buffer of exactly {@code m.size(version)} bytes, so a size() that is too
     * small fails the write and one too large fails the length check.
     */
    static byte[] write(Message m, short version) {
        int size = m.size(version);
        byte[] out = new byte[size];
        ByteBuf buf = Unpooled.wrappedBuffer(out).clear();
        m.write(buf, version);
        if (buf.writerIndex() != size) {
            throw new IllegalStateException("size() said " + size + " but write() wrote " + buf.writerIndex());
        }
        return out;
    }

    /** Reads {@code bytes} into a new instance of {@code cls}; fails unless all bytes are consumed. */
    static Message read(Class<?> cls, byte[] bytes, short version) {
        Message m = (Message) RandomMessages.newInstance(cls);
        ByteBuf buf = Unpooled.wrappedBuffer(bytes);
        m.read(buf, version);
        if (buf.isReadable()) {
            throw new IllegalStateException("krill left " + buf.readableBytes() + " bytes unread");
        }
        return m;
    }
}

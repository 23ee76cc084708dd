package io.krill.wire.message;

import java.nio.ByteBuffer;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/** kafka-clients' own serialization, the judge of the conformance tests. Stateless. */
final class KafkaCodec {
    private KafkaCodec() {
    }

    static byte[] write(Object message, short version) {
        Message m = (Message) message;
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = m.size(cache, version);
        ByteBuffer buffer = ByteBuffer.allocate(size);
        m.write(new ByteBufferAccessor(buffer), cache, version);
        if (buffer.hasRemaining()) {
            throw new IllegalStateException("kafka wrote " + buffer.position() + " of " + size + " bytes");
        }
        return buffer.array();
    }

    /** Parses {@code bytes} with a new instance of {@code cls}; fails unless all bytes are consumed. */
    static Object read(Class<?> cls, byte[] bytes, short version) {
        Message m = (Message) RandomMessages.newInstance(cls);
        ByteBufferAccessor accessor = new ByteBufferAccessor(ByteBuffer.wrap(bytes));
        m.read(accessor, version);
        if (accessor.remaining() != 0) {
            throw new IllegalStateException("kafka left " + accessor.remaining() + " bytes unread");
        }
        return m;
    }
}

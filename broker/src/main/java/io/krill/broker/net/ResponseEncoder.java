package io.krill.broker.net;

import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.ResponseHeader;
import io.krill.wire.protocol.ApiMessage;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * Frames a response: 4-byte size, response header (v0 or v1 as the API and version require), body.
 * Stateless; thread-safe.
 */
final class ResponseEncoder {
    private ResponseEncoder() {
    }

    static ByteBuf encode(ByteBufAllocator allocator, ApiKeys api, short version, int correlationId, ApiMessage body) {
        short headerVersion = api.responseHeaderVersion(version);
        return encode(allocator, headerVersion, version, correlationId, body);
    }

    static ByteBuf encode(ByteBufAllocator allocator, short headerVersion, short bodyVersion, int correlationId,
                          ApiMessage body) {
        ResponseHeader header = new ResponseHeader().setCorrelationId(correlationId);
        int size = header.size(headerVersion) + body.size(bodyVersion);
        ByteBuf out = allocator.ioBuffer(4 + size);
        try {
            out.writeInt(size);
            header.write(out, headerVersion);
            body.write(out, bodyVersion);
            return out;
        } catch (RuntimeException e) {
            out.release();
            throw e;
        }
    }
}

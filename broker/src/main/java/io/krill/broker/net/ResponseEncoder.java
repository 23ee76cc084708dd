package io.krill.broker.net;

import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.ResponseHeader;
import io.krill.wire.protocol.ApiMessage;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * Frames a response: 4-byte size, response header (v0 or v1 as the API and version require), body.
 * The result is a {@link ByteBuf}, or, when the body carries log data to send from files, a
 * {@code List} of buffers and file regions to write in order (see {@link ResponseSplices}); then the
 * buffer is only as large as what is not sent from files.
 * Stateless; thread-safe.
 */
final class ResponseEncoder {
    private ResponseEncoder() {
    }

    static Object encode(ByteBufAllocator allocator, ApiKeys api, short version, int correlationId, ApiMessage body) {
        return encode(allocator, api.responseHeaderVersion(version), version, correlationId, body);
    }

    static Object encode(ByteBufAllocator allocator, short headerVersion, short bodyVersion, int correlationId,
                         ApiMessage body) {
        ResponseHeader header = new ResponseHeader().setCorrelationId(correlationId);
        ResponseSplices splices = ResponseSplices.begin();
        ByteBuf out = null;
        try {
            // file-backed records tell the splices their size while being sized: the buffer holds the
            // rest (a 50 MiB fetch from files allocates its headers, not 50 MiB); it grows if more is written
            int size = header.size(headerVersion) + body.size(bodyVersion);
            out = allocator.ioBuffer((int) Math.max(64, 4L + size - splices.expectedBytes()));
            out.writeInt(size);
            header.write(out, headerVersion);
            body.write(out, bodyVersion);
            if (splices.isEmpty()) {
                return out;
            }
            ByteBuf encoded = out;
            out = null;
            return splices.assemble(encoded);
        } catch (RuntimeException e) {
            splices.discard();
            if (out != null) {
                out.release();
            }
            throw e;
        } finally {
            ResponseSplices.end();
        }
    }
}

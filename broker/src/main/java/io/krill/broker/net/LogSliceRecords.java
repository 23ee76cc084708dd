package io.krill.broker.net;

import io.krill.log.FileSlice;
import io.krill.wire.protocol.Records;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Records of a Fetch response that stay in the segment file: when the response is encoded they hand
 * their {@link FileSlice} to the {@link ResponseSplices} of the encoding thread (sent with sendfile)
 * and write nothing; without one (a copying path such as TLS later) they copy the bytes.
 *
 * <p>Owns the slice until encoded; not thread-safe (one response, one encoder).
 */
public final class LogSliceRecords implements Records {
    private final FileSlice slice;

    public LogSliceRecords(FileSlice slice) {
        this.slice = slice;
    }

    @Override
    public int sizeInBytes() {
        int size = slice.sizeInBytes();
        if (size > 0) {
            ResponseSplices splices = ResponseSplices.current();
            if (splices != null) {
                splices.expect(this, size); // sized by the encoder: these bytes will not be in its buffer
            }
        }
        return size;
    }

    @Override
    public void writeTo(ByteBuf out) {
        if (slice.sizeInBytes() == 0) {
            slice.close();
            return;
        }
        ResponseSplices splices = ResponseSplices.current();
        if (splices != null) {
            splices.add(out.writerIndex(), slice);
            return;
        }
        try {
            ByteBuf bytes = slice.readAll();
            try {
                out.writeBytes(bytes);
            } finally {
                bytes.release();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            slice.close();
        }
    }

    /** Releases the slice of a response that will never be encoded. */
    public void discard() {
        slice.close();
    }

    @Override
    public String toString() {
        return "LogSliceRecords[" + slice + "]";
    }
}

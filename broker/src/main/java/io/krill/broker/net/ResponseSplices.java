package io.krill.broker.net;

import io.krill.log.FileSlice;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * Collects, while one response is encoded, where log data belongs in it: file-backed records note the
 * writer index and their {@link FileSlice} instead of writing bytes, and the encoder then cuts the
 * encoded buffer at those indexes and puts a {@link LogFileRegion} in each gap. The result is sent as
 * buffer, region, buffer, ..., so log bytes never enter the heap.
 *
 * <p>Confined to the encoding thread: {@link #current()} is a thread-local set only inside
 * {@link ResponseEncoder}; outside it, file-backed records copy their bytes instead.
 */
public final class ResponseSplices {
    private static final ThreadLocal<ResponseSplices> CURRENT = new ThreadLocal<>();

    private final List<Integer> indexes = new ArrayList<>(4);
    private final List<FileSlice> slices = new ArrayList<>(4);
    /** The records that said, while the response was sized, that they will be spliced; null until one does. */
    private java.util.Set<Object> expected;
    private long expectedBytes;

    /** The collector of the response being encoded on this thread, or null. */
    public static ResponseSplices current() {
        return CURRENT.get();
    }

    static ResponseSplices begin() {
        ResponseSplices splices = new ResponseSplices();
        CURRENT.set(splices);
        return splices;
    }

    static void end() {
        CURRENT.remove();
    }

    /**
     * {@code records} (sized once or several times while the response is sized) will hand over
     * {@code bytes} of file data instead of writing them, so the encoder need not allocate room for them.
     */
    public void expect(Object records, int bytes) {
        if (expected == null) {
            expected = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        }
        if (expected.add(records)) {
            expectedBytes += bytes;
        }
    }

    /** The bytes that the response's records will send from files. */
    long expectedBytes() {
        return expectedBytes;
    }

    /** {@code slice}'s bytes belong at {@code writerIndex} of the buffer being encoded; takes ownership. */
    public void add(int writerIndex, FileSlice slice) {
        indexes.add(writerIndex);
        slices.add(slice);
    }

    boolean isEmpty() {
        return slices.isEmpty();
    }

    /** Cuts {@code encoded} at the noted indexes and interleaves the regions; consumes {@code encoded}. */
    List<Object> assemble(ByteBuf encoded) {
        List<Object> parts = new ArrayList<>(slices.size() * 2 + 1);
        int previous = encoded.readerIndex();
        for (int i = 0; i < slices.size(); i++) {
            int index = indexes.get(i);
            if (index > previous) {
                parts.add(encoded.retainedSlice(previous, index - previous));
            }
            parts.add(new LogFileRegion(slices.get(i)));
            previous = index;
        }
        if (encoded.writerIndex() > previous) {
            parts.add(encoded.retainedSlice(previous, encoded.writerIndex() - previous));
        }
        encoded.release();
        slices.clear();
        return parts;
    }

    /** Encoding failed: give the slices back. */
    void discard() {
        for (FileSlice slice : slices) {
            slice.close();
        }
        slices.clear();
    }
}

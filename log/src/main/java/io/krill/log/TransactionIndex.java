package io.krill.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * A segment's {@code .txnindex}: the transactions aborted by markers in this segment, in marker order,
 * for read_committed fetches.
 *
 * <p>Byte format: entries of 34 bytes, {@code version int16 (0), producerId int64, firstOffset int64,
 * lastOffset int64, lastStableOffset int64} (Kafka's layout). The file is created on the first abort; no
 * file means no entries. A new segment's index touches nothing on disk (no stat, no file); the first
 * append opens the file with {@code O_TRUNC} while it has no entries, so a stray file of an earlier
 * segment with the same name never lends it entries.
 *
 * <p>Crash behaviour: entries are appended after the marker is written to the log. A torn or missing tail
 * belongs to the active segment (after the recovery point), whose txn index recovery rebuilds from the
 * log and the producer state. A size that is not a multiple of 34, or entries whose offsets are not
 * increasing, fail {@link #check()}, which makes the loader recover the segment.
 *
 * <p>Thread-safety: one writer (the append lock); readers open the file for the duration of a lookup, so
 * no handle stays open (aborts are rare and most segments have no file at all: an entry count of zero is
 * answered without I/O).
 */
final class TransactionIndex {
    static final int ENTRY_SIZE = 34;
    private static final short VERSION = 0;

    /** Aborted transactions overlapping a fetch range; {@code complete} means later segments need no look. */
    record SearchResult(List<AbortedTxn> abortedTxns, boolean complete) {
    }

    private final long baseOffset;
    private volatile Path file;
    private volatile int entries;
    /** Whether the file exists (found at load, or written or created since). */
    private volatile boolean exists;
    private long lastOffset = -1;

    /**
     * @param load false for a new segment's index (nothing read: no file, no entries); true to read the
     *             size of the file if there is one
     */
    TransactionIndex(Path file, long baseOffset, boolean load) throws IOException {
        this.file = file;
        this.baseOffset = baseOffset;
        long size = 0;
        if (load) {
            try {
                size = Files.size(file);
                exists = true;
            } catch (NoSuchFileException e) {
                size = 0;
            }
        }
        if (size % ENTRY_SIZE != 0) {
            throw new CorruptIndexException(file + " has size " + size + ", not a multiple of " + ENTRY_SIZE);
        }
        if (size > Integer.MAX_VALUE) {
            throw new CorruptIndexException(file + " is too large: " + size);
        }
        entries = (int) (size / ENTRY_SIZE);
    }

    Path file() {
        return file;
    }

    int entries() {
        return entries;
    }

    /** Appends an entry (append lock held); marker offsets must increase. */
    void append(AbortedTxn txn) throws IOException {
        if (lastOffset < 0 && entries > 0) {
            List<AbortedTxn> all = allAbortedTxns();
            lastOffset = all.get(all.size() - 1).lastOffset();
        }
        if (entries > 0 && txn.lastOffset() <= lastOffset) {
            throw new IllegalStateException("aborted txn " + txn + " not after offset " + lastOffset + " in " + file);
        }
        ByteBuffer buf = ByteBuffer.allocate(ENTRY_SIZE);
        buf.putShort(VERSION).putLong(txn.producerId()).putLong(txn.firstOffset()).putLong(txn.lastOffset())
                .putLong(txn.lastStableOffset()).flip();
        try (FileChannel ch = entries == 0
                ? FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)
                : FileChannel.open(file, StandardOpenOption.WRITE)) {
            long pos = (long) entries * ENTRY_SIZE;
            while (buf.hasRemaining()) {
                pos += ch.write(buf, pos);
            }
        }
        exists = true;
        lastOffset = txn.lastOffset();
        entries++;
    }

    /** Every entry, in order. */
    List<AbortedTxn> allAbortedTxns() throws IOException {
        int n = entries;
        List<AbortedTxn> result = new ArrayList<>(n);
        if (n == 0) {
            return result;
        }
        if ((long) n * ENTRY_SIZE > Integer.MAX_VALUE) {
            throw new CorruptIndexException(file + ": " + n + " entries do not fit a buffer");
        }
        ByteBuffer buf = ByteBuffer.allocate(n * ENTRY_SIZE);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            FileRecords.readFully(ch, buf, 0);
        }
        buf.flip();
        while (buf.remaining() >= ENTRY_SIZE) {
            short version = buf.getShort();
            AbortedTxn txn = new AbortedTxn(buf.getLong(), buf.getLong(), buf.getLong(), buf.getLong());
            if (version != VERSION) {
                throw new CorruptIndexException(file + ": entry version " + version);
            }
            result.add(txn);
        }
        return result;
    }

    /**
     * The aborted transactions overlapping [{@code fetchOffset}, {@code upperBoundOffset}): those whose
     * marker is at or after the fetch offset and whose first offset is below the bound. The result is
     * complete once an entry's last stable offset reaches the bound: no transaction open before the bound
     * can end in a later segment.
     */
    SearchResult collectAbortedTxns(long fetchOffset, long upperBoundOffset) throws IOException {
        List<AbortedTxn> result = new ArrayList<>();
        for (AbortedTxn txn : allAbortedTxns()) {
            if (txn.lastOffset() >= fetchOffset && txn.firstOffset() < upperBoundOffset) {
                result.add(txn);
            }
            if (txn.lastStableOffset() >= upperBoundOffset) {
                return new SearchResult(result, true);
            }
        }
        return new SearchResult(result, false);
    }

    /** A reason the content is unsound, or null. */
    String check() throws IOException {
        long prev = -1;
        for (AbortedTxn txn : allAbortedTxns()) {
            if (txn.lastOffset() < baseOffset || txn.firstOffset() > txn.lastOffset() || txn.lastOffset() <= prev) {
                return "entry " + txn + " out of order (previous marker " + prev + ", base offset " + baseOffset + ")";
            }
            prev = txn.lastOffset();
        }
        return null;
    }

    /** Removes the entries whose marker is at or after {@code offset}. */
    void truncateTo(long offset) throws IOException {
        List<AbortedTxn> all = allAbortedTxns();
        int keep = 0;
        while (keep < all.size() && all.get(keep).lastOffset() < offset) {
            keep++;
        }
        if (keep == all.size()) {
            return;
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate((long) keep * ENTRY_SIZE);
        }
        entries = keep;
        lastOffset = keep == 0 ? -1 : all.get(keep - 1).lastOffset();
    }

    /** Removes every entry (rebuild during recovery). */
    void reset() throws IOException {
        if (exists || entries > 0) {
            Files.deleteIfExists(file);
        }
        exists = false;
        entries = 0;
        lastOffset = -1;
    }

    /** Whether the file exists (as far as this index knows: it found, wrote or created it). */
    boolean exists() {
        return exists;
    }

    /** Creates the (empty) file if it does not exist, so that renames of a segment's files see it. */
    void createIfMissing() throws IOException {
        if (!exists) {
            if (entries != 0) {
                throw new IllegalStateException(file + " has " + entries + " entries but no file");
            }
            FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING).close();
            exists = true;
        }
    }

    void flush() throws IOException {
        if (entries > 0) {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                ch.force(true);
            }
        }
    }

    /** Renames the file (a missing one is not an error: only the name changes). */
    void renameTo(Path target) throws IOException {
        if (exists) {
            io.krill.log.checkpoint.AtomicFile.atomicMove(file, target);
        }
        file = target;
    }

    @Override
    public String toString() {
        return "TransactionIndex(" + file + ", entries=" + entries + ")";
    }
}

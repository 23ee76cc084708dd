package io.krill.log.producer;

import io.krill.log.checkpoint.AtomicFile;
import io.krill.log.checkpoint.CorruptCheckpointException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * A producer-state snapshot, {@code <offset>.snapshot} (20-digit offset): the state of every producer
 * after all batches below {@code offset}. Written when a segment rolls (at the new segment's base
 * offset) and on clean shutdown (at the log end offset).
 *
 * <p>Byte format (big-endian):
 * <pre>
 * version int16 (1) | crc uint32 (CRC-32C of everything after it) | count int32 | count x entry
 * entry: producerId int64, producerEpoch int16, coordinatorEpoch int32, currentTxnFirstOffset int64 (-1 none),
 *        lastTimestamp int64, batchCount int8, batchCount x (firstSeq int32, lastSeq int32,
 *        firstOffset int64, lastOffset int64, timestamp int64)
 * </pre>
 *
 * <p>Crash behaviour: written to a temp file and renamed; at roll the fsync is deferred to the
 * asynchronous flush of the rolled segment, so a crash may leave a short or zero-filled file: the CRC
 * and length checks reject it ({@link CorruptCheckpointException}), the loader deletes it and falls back
 * to an older snapshot plus a longer replay of the log. Stateless; safe from any thread.
 */
public final class ProducerSnapshotFile {
    public static final String SUFFIX = ".snapshot";
    private static final short VERSION = 1;
    private static final int HEADER = 2 + 4 + 4;
    private static final int ENTRY_FIXED = 8 + 2 + 4 + 8 + 8 + 1;
    private static final int BATCH = 4 + 4 + 8 + 8 + 8;

    private ProducerSnapshotFile() {
    }

    public static Path path(Path dir, long offset) {
        String digits = Long.toString(offset);
        return dir.resolve("0".repeat(Math.max(0, 20 - digits.length())) + digits + SUFFIX);
    }

    /** The offset of a snapshot file name, or -1 if the name is not one. */
    public static long offsetOf(Path file) {
        String name = file.getFileName().toString();
        if (!name.endsWith(SUFFIX) || name.length() != 20 + SUFFIX.length()) {
            return -1;
        }
        try {
            return Long.parseLong(name.substring(0, 20));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    public static byte[] serialize(Collection<ProducerStateEntry> entries) {
        int size = HEADER;
        for (ProducerStateEntry e : entries) {
            size += ENTRY_FIXED + BATCH * e.batches().size();
        }
        ByteBuffer buf = ByteBuffer.allocate(size);
        buf.putShort(VERSION).putInt(0).putInt(entries.size());
        for (ProducerStateEntry e : entries) {
            buf.putLong(e.producerId()).putShort(e.producerEpoch()).putInt(e.coordinatorEpoch())
                    .putLong(e.currentTxnFirstOffset()).putLong(e.lastTimestamp()).put((byte) e.batches().size());
            for (BatchMetadata b : e.batches()) {
                buf.putInt(b.firstSeq()).putInt(b.lastSeq()).putLong(b.firstOffset()).putLong(b.lastOffset())
                        .putLong(b.timestamp());
            }
        }
        CRC32C crc = new CRC32C();
        crc.update(buf.array(), 6, size - 6);
        buf.putInt(2, (int) crc.getValue());
        return buf.array();
    }

    /**
     * Writes a snapshot. With {@code durable} the write is atomic and fsynced; without, it is renamed into
     * place unsynced and {@link #fsync} must follow before the snapshot is relied on after a crash.
     */
    public static void write(Path file, byte[] content, boolean durable) throws IOException {
        if (durable) {
            AtomicFile.write(file, content);
        } else {
            Path tmp = file.resolveSibling(file.getFileName() + AtomicFile.TMP_SUFFIX);
            Files.write(tmp, content);
            AtomicFile.atomicMove(tmp, file);
        }
    }

    /**
     * fsyncs a snapshot and its directory. A snapshot that is gone (retention or truncation deleted it,
     * possibly between the caller's listing and this call) needs no fsync and is not an error.
     */
    public static void fsync(Path file) throws IOException {
        try (var ch = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.WRITE)) {
            ch.force(true);
        } catch (java.nio.file.NoSuchFileException e) {
            return;
        }
        AtomicFile.fsyncDirectory(file.toAbsolutePath().getParent());
    }

    public static List<ProducerStateEntry> read(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        return deserialize(bytes, file.toString());
    }

    static List<ProducerStateEntry> deserialize(byte[] bytes, String what) throws CorruptCheckpointException {
        if (bytes.length < HEADER) {
            throw new CorruptCheckpointException(what + ": " + bytes.length + " bytes, too short");
        }
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        short version = buf.getShort();
        if (version != VERSION) {
            throw new CorruptCheckpointException(what + ": unknown version " + version);
        }
        int storedCrc = buf.getInt();
        CRC32C crc = new CRC32C();
        crc.update(bytes, 6, bytes.length - 6);
        if ((int) crc.getValue() != storedCrc) {
            throw new CorruptCheckpointException(what + ": CRC mismatch");
        }
        try {
            int count = buf.getInt();
            if (count < 0) {
                throw new CorruptCheckpointException(what + ": negative count");
            }
            List<ProducerStateEntry> entries = new ArrayList<>(Math.min(count, 1 << 16));
            for (int i = 0; i < count; i++) {
                long pid = buf.getLong();
                short epoch = buf.getShort();
                int coordinatorEpoch = buf.getInt();
                long txnFirst = buf.getLong();
                long lastTs = buf.getLong();
                int n = buf.get();
                if (n < 0 || n > ProducerStateEntry.MAX_BATCHES) {
                    throw new CorruptCheckpointException(what + ": " + n + " batches for producer " + pid);
                }
                List<BatchMetadata> batches = new ArrayList<>(n);
                for (int j = 0; j < n; j++) {
                    batches.add(new BatchMetadata(buf.getInt(), buf.getInt(), buf.getLong(), buf.getLong(), buf.getLong()));
                }
                entries.add(new ProducerStateEntry(pid, epoch, coordinatorEpoch, txnFirst, lastTs, batches));
            }
            if (buf.hasRemaining()) {
                throw new CorruptCheckpointException(what + ": " + buf.remaining() + " trailing bytes");
            }
            return entries;
        } catch (java.nio.BufferUnderflowException e) {
            throw new CorruptCheckpointException(what + ": truncated", e);
        }
    }
}

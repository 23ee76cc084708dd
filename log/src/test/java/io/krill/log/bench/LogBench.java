package io.krill.log.bench;

import io.krill.log.AppendOrigin;
import io.krill.log.FileSlice;
import io.krill.log.KrillScheduler;
import io.krill.log.LogConfig;
import io.krill.log.LogReadResult;
import io.krill.log.OpenFileCache;
import io.krill.log.PartitionLog;
import io.krill.wire.record.RecordBatch;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A plain throughput benchmark of the partition log (not a JMH harness, not part of the test run):
 * appends of 1 KiB records in 16 KiB and 256 KiB uncompressed batches, then a sequential read of the
 * whole log, each next to a raw sequential FileChannel write/read of the same bytes in the same chunk
 * sizes on the same disk. Nothing is fsynced (the default flush policy), so both sides measure the
 * write path into the page cache; reads come from the page cache too.
 *
 * <p>Run: {@code mvn -B -o -q -pl log -am -Plog-bench -DskipTests test} (options: {@code -Dbench.dir=...},
 * {@code -Dbench.mib=512}, {@code -Dbench.rounds=3}).
 */
public final class LogBench {
    private static final int RECORD = 1024;

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(System.getProperty("bench.dir", System.getProperty("java.io.tmpdir") + "/krill-log-bench"));
        long totalBytes = Long.getLong("bench.mib", 512) * 1024 * 1024;
        int rounds = Integer.getInteger("bench.rounds", 3);
        Files.createDirectories(dir);
        System.out.printf("log bench: %d MiB per run, best of %d rounds, dir %s%n", totalBytes >> 20, rounds,
                dir.toAbsolutePath());
        for (int records : new int[] {16, 256}) {
            ByteBuf batch = batch(records);
            int size = batch.readableBytes();
            long batches = totalBytes / size;
            double rawWrite = 0;
            double logWrite = 0;
            double rawRead = 0;
            double logRead = 0;
            for (int round = 0; round < rounds; round++) {
                clean(dir);
                rawWrite = Math.max(rawWrite, rawWrite(dir.resolve("raw.bin"), batch, batches));
                rawRead = Math.max(rawRead, rawRead(dir.resolve("raw.bin")));
                clean(dir);
                double[] log = logWriteRead(dir.resolve("bench-0"), batch, batches);
                logWrite = Math.max(logWrite, log[0]);
                logRead = Math.max(logRead, log[1]);
            }
            System.out.printf("batch %3d x 1 KiB (%6d B): append %8.1f MB/s vs raw write %8.1f MB/s (%.2fx);"
                    + " read %8.1f MB/s vs raw read %8.1f MB/s (%.2fx)%n", records, size, logWrite, rawWrite,
                    logWrite / rawWrite, logRead, rawRead, logRead / rawRead);
        }
        clean(dir);
        Files.delete(dir);
    }

    /** An uncompressed v2 batch of {@code n} 1 KiB-value records with a 8-byte key each. */
    static ByteBuf batch(int n) {
        ByteBuf records = Unpooled.buffer();
        for (int i = 0; i < n; i++) {
            ByteBuf body = Unpooled.buffer();
            body.writeByte(0);
            writeVarint(body, 0);
            writeVarint(body, i);
            writeVarint(body, 8);
            body.writeLong(i);
            writeVarint(body, RECORD);
            body.writeZero(RECORD);
            writeVarint(body, 0);
            writeVarint(records, body.readableBytes());
            records.writeBytes(body);
        }
        int size = RecordBatch.HEADER_SIZE + records.readableBytes();
        ByteBuf b = Unpooled.directBuffer(size);
        long now = System.currentTimeMillis();
        b.writeLong(0).writeInt(size - RecordBatch.LOG_OVERHEAD).writeInt(0).writeByte(2).writeInt(0).writeShort(0)
                .writeInt(n - 1).writeLong(now).writeLong(now).writeLong(-1).writeShort(-1).writeInt(-1).writeInt(n)
                .writeBytes(records);
        b.setInt(RecordBatch.CRC_OFFSET, (int) RecordBatch.crc32c(b, RecordBatch.ATTRIBUTES_OFFSET,
                size - RecordBatch.ATTRIBUTES_OFFSET));
        return b;
    }

    private static void writeVarint(ByteBuf out, int value) {
        int v = (value << 1) ^ (value >> 31);
        while ((v & ~0x7f) != 0) {
            out.writeByte((v & 0x7f) | 0x80);
            v >>>= 7;
        }
        out.writeByte(v);
    }

    private static double rawWrite(Path file, ByteBuf batch, long batches) throws IOException {
        ByteBuffer src = batch.nioBuffer();
        long start = System.nanoTime();
        long bytes = 0;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            for (long i = 0; i < batches; i++) {
                ByteBuffer b = src.duplicate();
                while (b.hasRemaining()) {
                    bytes += ch.write(b);
                }
            }
        }
        return mbPerSec(bytes, System.nanoTime() - start);
    }

    private static double rawRead(Path file) throws IOException {
        ByteBuffer dst = ByteBuffer.allocateDirect(1 << 20);
        long start = System.nanoTime();
        long bytes = 0;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            int n;
            while ((n = ch.read(dst.clear())) > 0) {
                bytes += n;
            }
        }
        return mbPerSec(bytes, System.nanoTime() - start);
    }

    private static double[] logWriteRead(Path dir, ByteBuf batch, long batches) throws IOException {
        double write;
        double read;
        try (KrillScheduler scheduler = new KrillScheduler(1, "bench-scheduler");
                PartitionLog log = PartitionLog.builder(dir).config(LogConfig.DEFAULT).scheduler(scheduler)
                        .fileCache(new OpenFileCache(64)).open()) {
            long start = System.nanoTime();
            long bytes = 0;
            for (long i = 0; i < batches; i++) {
                bytes += log.appendAsLeader(batch, 0, AppendOrigin.CLIENT).sizeInBytes();
            }
            write = mbPerSec(bytes, System.nanoTime() - start);

            ByteBuffer dst = ByteBuffer.allocateDirect(1 << 20);
            start = System.nanoTime();
            bytes = 0;
            long offset = 0;
            long end = log.logEndOffset();
            while (offset < end) {
                try (LogReadResult r = log.read(offset, 1 << 20, Long.MAX_VALUE, true)) {
                    FileSlice slice = r.records();
                    long pos = 0;
                    while (pos < slice.sizeInBytes()) {
                        dst.clear();
                        pos += slice.read(dst, pos);
                    }
                    bytes += slice.sizeInBytes();
                    offset = r.nextOffset();
                }
            }
            read = mbPerSec(bytes, System.nanoTime() - start);
        }
        return new double[] {write, read};
    }

    private static double mbPerSec(long bytes, long nanos) {
        return bytes / 1e6 / (nanos / 1e9);
    }

    private static void clean(Path dir) throws IOException {
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                if (!p.equals(dir)) {
                    Files.delete(p);
                }
            }
        }
    }
}

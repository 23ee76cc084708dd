package io.krill.log.checkpoint;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Crash-safe replacement of a small file: write {@code <name>.tmp}, fsync it, rename it over the target
 * (atomically), fsync the directory. After a crash the target is either the old or the new content, never
 * a mix; a left-over {@code .tmp} is garbage that readers ignore and the next write replaces.
 */
public final class AtomicFile {
    public static final String TMP_SUFFIX = ".tmp";

    private AtomicFile() {
    }

    /** Replaces {@code target} with {@code content} atomically and durably. */
    public static void write(Path target, byte[] content) throws IOException {
        Path tmp = target.resolveSibling(target.getFileName() + TMP_SUFFIX);
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer buf = ByteBuffer.wrap(content);
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(true);
        }
        atomicMove(tmp, target);
        fsyncDirectory(target.toAbsolutePath().getParent());
    }

    /** Renames {@code from} to {@code to}, replacing it, atomically where the file system can. */
    public static void atomicMove(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /**
     * Makes a directory's entries (creations, renames, deletions) durable. Best effort on platforms that
     * cannot open a directory for sync (Windows); an I/O error on Linux is reported.
     */
    public static void fsyncDirectory(Path dir) throws IOException {
        if (dir == null) {
            return;
        }
        FileChannel ch;
        try {
            ch = FileChannel.open(dir, StandardOpenOption.READ);
        } catch (IOException | UnsupportedOperationException e) {
            if (System.getProperty("os.name", "").toLowerCase().startsWith("windows")) {
                return;
            }
            throw e instanceof IOException io ? io : new IOException(e);
        }
        try (ch) {
            ch.force(true);
        }
    }
}

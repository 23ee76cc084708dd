package io.krill.compat.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A small filesystem of its own (tmpfs of a fixed size) for one broker's {@code log.dirs}, so the nemesis
 * can fill it up: {@link #fill} writes a filler file beside the log dir until the filesystem says no space
 * is left (ENOSPC), {@link #free} deletes it. tmpfs rather than a loop-mounted image: no image file, no
 * loop device to leak, and the same ENOSPC (and SIGBUS on a mapped page it cannot back) as a real disk.
 *
 * <p>The mount is undone by {@link #close}; a mount left by a JVM that died is undone by the next
 * campaign's {@link #sweepLeftovers} (mount points live under folders named {@code krill-faults-<pid>-}).
 */
final class SmallDisk implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SmallDisk.class);
    private static final Pattern LEFTOVER = Pattern.compile("krill-faults-(\\d+)-");

    private final Path mountPoint;
    private final Path filler;
    private boolean mounted;

    private SmallDisk(Path mountPoint) {
        this.mountPoint = mountPoint;
        this.filler = mountPoint.resolve("filler");
    }

    static SmallDisk mount(Path mountPoint, int megabytes) {
        SmallDisk disk = new SmallDisk(mountPoint);
        try {
            Files.createDirectories(mountPoint);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Shell.run("mount", "-t", "tmpfs", "-o", "size=" + megabytes + "m,mode=0755", "krill-faults", mountPoint.toString());
        disk.mounted = true;
        return disk;
    }

    /** Where the broker's log dir goes: a folder on the small filesystem (the filler sits beside it). */
    Path logDir() {
        return mountPoint.resolve("data");
    }

    /** Writes the filler until the filesystem is full; returns how many bytes it took. */
    long fill() {
        ByteBuffer chunk = ByteBuffer.allocate(1 << 20);
        long written = 0;
        try (FileChannel channel = FileChannel.open(filler, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND)) {
            while (true) {
                chunk.clear();
                written += channel.write(chunk);
            }
        } catch (IOException full) {
            // ENOSPC: what we wanted. Smaller writes take the last pages too.
            try (FileChannel channel = FileChannel.open(filler, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
                ByteBuffer page = ByteBuffer.allocate(4096);
                while (true) {
                    page.clear();
                    written += channel.write(page);
                }
            } catch (IOException fuller) {
                // full to the page
            }
        }
        LOG.info("filled {} with {} MB", mountPoint, written >> 20);
        return written;
    }

    void free() {
        try {
            Files.deleteIfExists(filler);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    long usableBytes() {
        try {
            return Files.getFileStore(mountPoint).getUsableSpace();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Unmounts (lazily, so a process still holding a file cannot keep it); never throws. */
    @Override
    public void close() {
        if (mounted) {
            Shell.tryRun("umount", "-l", mountPoint.toString());
            mounted = false;
        }
    }

    /** Unmounts tmpfs mounts of campaigns whose JVM no longer runs. */
    static void sweepLeftovers() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/mounts"))) {
                String[] fields = line.split(" ");
                if (fields.length < 3 || !fields[0].equals("krill-faults")) {
                    continue;
                }
                Matcher m = LEFTOVER.matcher(fields[1]);
                if (m.find() && !ProcessHandle.of(Long.parseLong(m.group(1))).map(ProcessHandle::isAlive).orElse(false)) {
                    LOG.warn("unmounting {} left by a dead campaign", fields[1]);
                    Shell.tryRun("umount", "-l", fields[1]);
                }
            }
        } catch (IOException e) {
            LOG.warn("cannot read /proc/mounts: {}", e.toString());
        }
    }
}

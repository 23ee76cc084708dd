package io.krill.log.checkpoint;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * A text checkpoint in Kafka's layout, one entry per line:
 *
 * <pre>
 * &lt;version&gt;\n
 * &lt;entry count&gt;\n
 * &lt;entry&gt;\n   (count times; fields separated by single spaces)
 * </pre>
 *
 * <p>Crash behaviour: {@link #write} goes through {@link AtomicFile}, so the file is always a complete
 * old or new version; a left-over {@code .tmp} is ignored. {@link #read} of a missing file is empty; a
 * wrong version, a count that does not match the lines, or an unparsable line raise
 * {@link CorruptCheckpointException}.
 *
 * <p>Thread-safety: reads and writes of one instance are serialized on it. Two instances on the same path
 * must not be written concurrently.
 */
public abstract class CheckpointFile<T> {
    private final Path file;
    private final int version;

    protected CheckpointFile(Path file, int version) {
        this.file = file;
        this.version = version;
    }

    public Path file() {
        return file;
    }

    /** Replaces the file's content with {@code entries}, atomically and durably. */
    public synchronized void write(Collection<T> entries) throws IOException {
        StringBuilder sb = new StringBuilder(32 + entries.size() * 32);
        sb.append(version).append('\n').append(entries.size()).append('\n');
        for (T entry : entries) {
            sb.append(format(entry)).append('\n');
        }
        AtomicFile.write(file, sb.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** The entries, or an empty list when the file does not exist. */
    public synchronized List<T> read() throws IOException {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return new ArrayList<>();
        }
        if (lines.size() < 2) {
            throw new CorruptCheckpointException(file + ": truncated header");
        }
        try {
            int fileVersion = Integer.parseInt(lines.get(0).trim());
            if (fileVersion != version) {
                throw new CorruptCheckpointException(file + ": unsupported version " + fileVersion);
            }
            int count = Integer.parseInt(lines.get(1).trim());
            if (count < 0 || lines.size() - 2 < count) {
                throw new CorruptCheckpointException(file + ": expected " + count + " entries, found " + (lines.size() - 2));
            }
            for (int i = 2 + count; i < lines.size(); i++) {
                if (!lines.get(i).isBlank()) {
                    throw new CorruptCheckpointException(file + ": more entries than the count " + count);
                }
            }
            List<T> entries = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                String line = lines.get(2 + i);
                T entry = parse(line.trim().split(" "));
                if (entry == null) {
                    throw new CorruptCheckpointException(file + ": malformed line '" + line + "'");
                }
                entries.add(entry);
            }
            return entries;
        } catch (NumberFormatException e) {
            throw new CorruptCheckpointException(file + ": " + e.getMessage(), e);
        }
    }

    /** One entry as a line (without the newline), fields separated by single spaces. */
    protected abstract String format(T entry);

    /** The entry of a line split on spaces, or {@code null} if malformed; may throw NumberFormatException. */
    protected abstract T parse(String[] fields);
}

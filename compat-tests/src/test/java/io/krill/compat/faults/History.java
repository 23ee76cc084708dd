package io.krill.compat.faults;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The campaign's history: one JSON object per line, in the order the events were recorded, each with the
 * wall-clock time {@code t} (ms), its {@code type} and the {@code proc} (producer, consumer, nemesis, final
 * reader) that saw it. The {@link HistoryChecker} judges the run from this file alone, so a kept history
 * can be checked again after the cluster is gone.
 *
 * <p>Event types: {@code send}, {@code ack}, {@code fail} (a record: {@code tp}, {@code v}, {@code off},
 * {@code txn}, {@code err}); {@code txn-end} ({@code txn}, {@code outcome} committed, aborted or unknown);
 * {@code poll} ({@code group}, {@code records} as [tp, offset, value]); {@code commit} ({@code group},
 * {@code start}, {@code offsets}, {@code ok}); {@code fault} ({@code kind}, {@code target}, {@code phase});
 * {@code final} ({@code records}) and {@code final-end}; {@code campaign} ({@code phase} start or end, and
 * the settings).
 *
 * <p>Thread-safe: every recording is one synchronized append.
 */
final class History implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path file;
    private final BufferedWriter out;
    private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();
    private long events;

    History(Path file) {
        this.file = file;
        try {
            Files.createDirectories(file.getParent());
            this.out = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Path file() {
        return file;
    }

    /** Records an event; {@code keyValues} alternate names and values. */
    void record(String type, String proc, Object... keyValues) {
        Map<String, Object> event = new LinkedHashMap<>();
        event.put("t", System.currentTimeMillis());
        event.put("type", type);
        event.put("proc", proc);
        for (int i = 0; i + 1 < keyValues.length; i += 2) {
            event.put((String) keyValues[i], keyValues[i + 1]);
        }
        counts.computeIfAbsent(type, k -> new LongAdder()).increment();
        if (type.equals("ack") && keyValues.length > 1 && "tp".equals(keyValues[0])) {
            counts.computeIfAbsent("ack " + keyValues[1], k -> new LongAdder()).increment();
        }
        String line;
        try {
            line = JSON.writeValueAsString(event);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot write event " + event, e);
        }
        synchronized (this) {
            try {
                out.write(line);
                out.write('\n');
                if (++events % 1000 == 0) {
                    out.flush();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /**
     * How many events of {@code type} were recorded so far: progress for the test to wait on. Acknowledgements
     * are also counted per partition, as type {@code "ack <topic>-<partition>"}.
     */
    long count(String type) {
        LongAdder n = counts.get(type);
        return n == null ? 0 : n.sum();
    }

    @Override
    public synchronized void close() {
        try {
            out.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

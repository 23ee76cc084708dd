package io.krill.log.checkpoint;

import io.krill.log.TopicPartition;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A per-log-dir map of partition to offset, version 0, lines {@code topic partition offset}: Kafka's
 * {@code recovery-point-offset-checkpoint}, {@code log-start-offset-checkpoint},
 * {@code replication-offset-checkpoint} (high watermarks, written by the broker) and
 * {@code cleaner-offset-checkpoint}. Format, crash behaviour and thread-safety: see {@link CheckpointFile}.
 */
public final class OffsetCheckpointFile extends CheckpointFile<Map.Entry<TopicPartition, Long>> {
    public static final String RECOVERY_POINT = "recovery-point-offset-checkpoint";
    public static final String LOG_START_OFFSET = "log-start-offset-checkpoint";
    public static final String REPLICATION_OFFSET = "replication-offset-checkpoint";
    public static final String CLEANER_OFFSET = "cleaner-offset-checkpoint";

    public OffsetCheckpointFile(Path file) {
        super(file, 0);
    }

    public void writeOffsets(Map<TopicPartition, Long> offsets) throws IOException {
        List<Map.Entry<TopicPartition, Long>> entries = new ArrayList<>(offsets.entrySet());
        entries.sort(Map.Entry.comparingByKey());
        write(entries);
    }

    public Map<TopicPartition, Long> readOffsets() throws IOException {
        Map<TopicPartition, Long> result = new HashMap<>();
        for (Map.Entry<TopicPartition, Long> e : read()) {
            result.put(e.getKey(), e.getValue());
        }
        return result;
    }

    @Override
    protected String format(Map.Entry<TopicPartition, Long> entry) {
        return entry.getKey().topic() + " " + entry.getKey().partition() + " " + entry.getValue();
    }

    @Override
    protected Map.Entry<TopicPartition, Long> parse(String[] fields) {
        if (fields.length != 3 || fields[0].isEmpty()) {
            return null;
        }
        int partition = Integer.parseInt(fields[1]);
        if (partition < 0) {
            return null;
        }
        return Map.entry(new TopicPartition(fields[0], partition), Long.parseLong(fields[2]));
    }
}

package io.krill.log.checkpoint;

import io.krill.log.epoch.EpochEntry;
import java.nio.file.Path;

/**
 * A partition's {@code leader-epoch-checkpoint}, version 0, lines {@code epoch startOffset} in increasing
 * order. Format, crash behaviour and thread-safety: see {@link CheckpointFile}.
 */
public final class LeaderEpochCheckpointFile extends CheckpointFile<EpochEntry> {
    public static final String FILE_NAME = "leader-epoch-checkpoint";

    public LeaderEpochCheckpointFile(Path file) {
        super(file, 0);
    }

    @Override
    protected String format(EpochEntry entry) {
        return entry.epoch() + " " + entry.startOffset();
    }

    @Override
    protected EpochEntry parse(String[] fields) {
        if (fields.length != 2) {
            return null;
        }
        return new EpochEntry(Integer.parseInt(fields[0]), Long.parseLong(fields[1]));
    }
}

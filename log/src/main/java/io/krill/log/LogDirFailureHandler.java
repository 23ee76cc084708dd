package io.krill.log;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Told when an I/O error makes a log directory unusable. The {@link LogManager} marks the directory
 * offline, takes its partitions offline (they answer {@link KafkaStorageException}) and notifies its
 * listeners (the broker, which reports the directory and moves leadership). Must not throw; may be called
 * from any thread, possibly several times for the same directory.
 */
@FunctionalInterface
public interface LogDirFailureHandler {
    LogDirFailureHandler NONE = (dir, reason, cause) -> { };

    void onLogDirFailure(Path logDir, String reason, IOException cause);
}

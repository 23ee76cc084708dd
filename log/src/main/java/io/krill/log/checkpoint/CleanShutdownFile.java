package io.krill.log.checkpoint;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The per-log-dir marker {@code .kafka_cleanshutdown}: written (atomically, content {@code version 0})
 * as the last step of a clean shutdown, deleted once the logs of that directory are loaded at start-up.
 * Its absence at start-up means the previous run crashed, so every log in the directory is recovered from
 * its recovery point. Stateless; safe from any thread.
 */
public final class CleanShutdownFile {
    public static final String FILE_NAME = ".kafka_cleanshutdown";

    private CleanShutdownFile() {
    }

    public static boolean exists(Path logDir) {
        return Files.exists(logDir.resolve(FILE_NAME));
    }

    public static void write(Path logDir) throws IOException {
        AtomicFile.write(logDir.resolve(FILE_NAME), "0\n".getBytes(StandardCharsets.UTF_8));
    }

    public static void delete(Path logDir) throws IOException {
        Files.deleteIfExists(logDir.resolve(FILE_NAME));
        AtomicFile.fsyncDirectory(logDir);
    }
}

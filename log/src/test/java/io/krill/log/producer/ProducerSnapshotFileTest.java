package io.krill.log.producer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A snapshot written without fsync is fsynced later by the flush of its segment, while retention may delete
 * it at any moment: a snapshot that is gone by then is not a disk failure (it took a log offline once,
 * through a check-then-open race).
 */
class ProducerSnapshotFileTest {
    @TempDir
    Path dir;

    @Test
    void fsyncOfASnapshotThatRetentionDeletedIsNotAnError() throws Exception {
        Path file = ProducerSnapshotFile.path(dir, 42);
        ProducerSnapshotFile.write(file, new byte[] {1, 2, 3}, false);
        ProducerSnapshotFile.fsync(file);
        assertArrayEquals(new byte[] {1, 2, 3}, Files.readAllBytes(file));
        Files.delete(file);
        assertDoesNotThrow(() -> ProducerSnapshotFile.fsync(file));
        assertFalse(Files.exists(file), "fsync does not create the file");
    }
}

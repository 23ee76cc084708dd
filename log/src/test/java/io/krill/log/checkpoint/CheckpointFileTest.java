package io.krill.log.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.log.TopicPartition;
import io.krill.log.epoch.EpochEntry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckpointFileTest {
    @TempDir
    Path dir;

    @Test
    void offsetCheckpointRoundTripInKafkaFormat() throws IOException {
        OffsetCheckpointFile f = new OffsetCheckpointFile(dir.resolve(OffsetCheckpointFile.RECOVERY_POINT));
        assertTrue(f.readOffsets().isEmpty());
        Map<TopicPartition, Long> offsets = Map.of(new TopicPartition("a-b", 3), 42L, new TopicPartition("x", 0), 7L);
        f.writeOffsets(offsets);
        assertEquals(offsets, f.readOffsets());
        assertEquals("0\n2\na-b 3 42\nx 0 7\n", Files.readString(f.file()));
        assertFalse(Files.exists(dir.resolve(OffsetCheckpointFile.RECOVERY_POINT + ".tmp")));
    }

    @Test
    void leftOverTempFileIsIgnoredAndReplaced() throws IOException {
        OffsetCheckpointFile f = new OffsetCheckpointFile(dir.resolve("cp"));
        f.writeOffsets(Map.of(new TopicPartition("t", 1), 5L));
        // A crash between writing the temp file and the rename leaves garbage behind.
        Files.writeString(dir.resolve("cp.tmp"), "0\n1\nt 1 99\ngarbage", StandardCharsets.UTF_8);
        assertEquals(Map.of(new TopicPartition("t", 1), 5L), f.readOffsets());
        f.writeOffsets(Map.of(new TopicPartition("t", 1), 6L));
        assertEquals(Map.of(new TopicPartition("t", 1), 6L), f.readOffsets());
        assertFalse(Files.exists(dir.resolve("cp.tmp")));
    }

    @Test
    void corruptContentIsReported() throws IOException {
        OffsetCheckpointFile f = new OffsetCheckpointFile(dir.resolve("cp"));
        for (String bad : List.of("", "0\n", "1\n0\n", "0\n2\nt 0 1\n", "0\n1\nt x 1\n", "0\n1\nt 0\n", "0\n1\nt 0 1\nu 0 2\n")) {
            Files.writeString(f.file(), bad);
            assertThrows(CorruptCheckpointException.class, f::readOffsets, bad);
        }
    }

    @Test
    void leaderEpochCheckpoint() throws IOException {
        LeaderEpochCheckpointFile f = new LeaderEpochCheckpointFile(dir.resolve(LeaderEpochCheckpointFile.FILE_NAME));
        f.write(List.of(new EpochEntry(1, 0), new EpochEntry(3, 100)));
        assertEquals("0\n2\n1 0\n3 100\n", Files.readString(f.file()));
        assertEquals(List.of(new EpochEntry(1, 0), new EpochEntry(3, 100)), f.read());
    }

    @Test
    void cleanShutdownMarker() throws IOException {
        assertFalse(CleanShutdownFile.exists(dir));
        CleanShutdownFile.write(dir);
        assertTrue(CleanShutdownFile.exists(dir));
        CleanShutdownFile.delete(dir);
        assertFalse(CleanShutdownFile.exists(dir));
    }
}

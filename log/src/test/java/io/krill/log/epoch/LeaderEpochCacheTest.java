package io.krill.log.epoch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.log.checkpoint.LeaderEpochCheckpointFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LeaderEpochCacheTest {
    @TempDir
    Path dir;

    private LeaderEpochCache cache() throws IOException {
        return new LeaderEpochCache(new LeaderEpochCheckpointFile(dir.resolve("leader-epoch-checkpoint")));
    }

    @Test
    void endOffsetForFollowsKip101And279() throws IOException {
        LeaderEpochCache c = cache();
        assertEquals(EpochEndOffset.UNDEFINED, c.endOffsetFor(0, 10));
        c.assign(2, 5);
        c.assign(4, 20);
        c.assign(5, 30);
        long leo = 40;
        assertEquals(new EpochEndOffset(5, 40), c.endOffsetFor(5, leo)); // latest: LEO
        assertEquals(new EpochEndOffset(4, 30), c.endOffsetFor(4, leo)); // next epoch's start
        assertEquals(new EpochEndOffset(2, 20), c.endOffsetFor(3, leo)); // largest epoch <= 3
        assertEquals(new EpochEndOffset(1, 5), c.endOffsetFor(1, leo)); // below earliest: requested, first start
        assertEquals(EpochEndOffset.UNDEFINED, c.endOffsetFor(6, leo)); // above latest
        assertEquals(EpochEndOffset.UNDEFINED, c.endOffsetFor(-1, leo));
        assertEquals(OptionalInt.of(4), c.epochForOffset(25));
        assertEquals(OptionalInt.empty(), c.epochForOffset(4));
    }

    @Test
    void assignIgnoresRepeatsAndRemovesConflicts() throws IOException {
        LeaderEpochCache c = cache();
        c.assign(1, 0);
        c.assign(1, 10); // same epoch, later offset: no-op
        assertEquals(List.of(new EpochEntry(1, 0)), c.entries());
        c.assign(2, 10);
        c.assign(3, 20);
        c.assign(3, 15); // same epoch earlier: replaces
        assertEquals(List.of(new EpochEntry(1, 0), new EpochEntry(2, 10), new EpochEntry(3, 15)), c.entries());
        c.assign(4, 12); // conflicts with epoch 3 at 15: removed
        assertEquals(List.of(new EpochEntry(1, 0), new EpochEntry(2, 10), new EpochEntry(4, 12)), c.entries());
    }

    @Test
    void newEpochsAreWrittenByTheNextFlushOnly() throws IOException {
        LeaderEpochCache c = cache();
        c.assign(1, 0);
        c.assign(2, 10);
        assertTrue(cache().entries().isEmpty(), "nothing written yet");
        c.flushIfDirty();
        assertEquals(List.of(new EpochEntry(1, 0), new EpochEntry(2, 10)), cache().entries());
        c.assign(2, 12); // the latest epoch again: no change
        c.flushIfDirty();
        assertEquals(List.of(new EpochEntry(1, 0), new EpochEntry(2, 10)), cache().entries());
    }

    @Test
    void truncationFromBothEndsIsPersisted() throws IOException {
        LeaderEpochCache c = cache();
        c.assign(1, 0);
        c.assign(2, 10);
        c.assign(3, 20);
        c.truncateFromEnd(20);
        assertEquals(List.of(new EpochEntry(1, 0), new EpochEntry(2, 10)), c.entries());
        c.truncateFromStart(15);
        assertEquals(List.of(new EpochEntry(2, 15)), c.entries());
        assertEquals(List.of(new EpochEntry(1, 0), new EpochEntry(2, 10)), cache().entries(),
                "a moved log start is written with the next flush, a truncation from the end at once");
        c.flushIfDirty();
        LeaderEpochCache reloaded = cache();
        assertEquals(List.of(new EpochEntry(2, 15)), reloaded.entries());
        assertEquals(OptionalInt.of(2), reloaded.latestEpoch());
        reloaded.clear();
        assertTrue(cache().entries().isEmpty());
    }
}

package io.krill.broker.share;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.share.ShareSessionCache.SessionPartition;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ShareSessionCacheTest {
    private static final UUID T = UUID.randomUUID();
    private static final SessionPartition P0 = new SessionPartition(T, 0);
    private static final SessionPartition P1 = new SessionPartition(T, 1);

    @Test
    void epochsMoveOnAndTheSessionKeepsItsPartitions() {
        ShareSessionCache cache = new ShareSessionCache(10);
        assertEquals(List.of(P0), cache.step("g", "m", 0, List.of(P0), List.of()).partitions());
        assertEquals(List.of(P0, P1), cache.step("g", "m", 1, List.of(P1), List.of()).partitions());
        assertEquals(List.of(P1), cache.step("g", "m", 2, List.of(), List.of(P0)).partitions());
        ApiException stale = assertThrows(ApiException.class, () -> cache.step("g", "m", 2, List.of(), List.of()));
        assertEquals(Errors.INVALID_SHARE_SESSION_EPOCH, stale.error());
        ShareSessionCache.Step last = cache.step("g", "m", -1, List.of(), List.of());
        assertTrue(last.closing());
        assertEquals(List.of(P1), last.partitions());
        ApiException gone = assertThrows(ApiException.class, () -> cache.step("g", "m", 3, List.of(), List.of()));
        assertEquals(Errors.SHARE_SESSION_NOT_FOUND, gone.error());
    }

    @Test
    void aNewSessionReplacesTheOldOneAndTheLimitHolds() {
        ShareSessionCache cache = new ShareSessionCache(1);
        ShareSessionCache.Step first = cache.step("g", "m", 0, List.of(P0), List.of());
        ShareSessionCache.Step again = cache.step("g", "m", 0, List.of(P1), List.of());
        assertEquals(List.of(P0), again.previous(), "the replaced session's records are to be released");
        assertEquals(List.of(), cache.closeIfCurrent(first.opened()), "the old connection closing changes nothing");
        ApiException full = assertThrows(ApiException.class, () -> cache.step("g", "other", 0, List.of(P0), List.of()));
        assertEquals(Errors.SHARE_SESSION_LIMIT_REACHED, full.error());
        assertEquals(List.of(P1), cache.closeIfCurrent(again.opened()));
        assertEquals(0, cache.size());
    }
}

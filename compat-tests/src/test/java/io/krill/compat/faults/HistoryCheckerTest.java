package io.krill.compat.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The checker on small made-up histories: each violation it should see, it sees, and a clean one passes. */
class HistoryCheckerTest {
    @TempDir
    Path dir;

    private History history;

    private HistoryChecker.Verdict check(List<List<Object>> finalRecords) {
        history.record("final", "final-read", "records", finalRecords);
        history.record("final-end", "final-read", "ends", Map.of());
        history.close();
        return HistoryChecker.check(history.file());
    }

    private void acked(String proc, String tp, String v, long off) {
        history.record("send", proc, "tp", tp, "v", v);
        history.record("ack", proc, "tp", tp, "v", v, "off", off);
    }

    private void txn(String proc, long txn, String outcome, String tp, String... values) {
        for (String v : values) {
            history.record("send", proc, "tp", tp, "v", v, "txn", txn);
        }
        history.record("txn-end", proc, "txn", txn, "outcome", outcome);
    }

    private static List<Object> rec(String tp, long off, String v) {
        return List.of(tp, off, v);
    }

    private void start() {
        history = new History(dir.resolve("history.jsonl"));
    }

    @Test
    void aCleanHistoryIsClean() {
        start();
        acked("i1", "a-0", "i1-0", 0);
        acked("i1", "a-0", "i1-1", 1);
        txn("t1", 1, "committed", "b-0", "t1-0", "t1-1");
        txn("t1", 2, "aborted", "b-0", "t1-2");
        history.record("poll", "c1", "group", "g", "records", List.of(rec("a-0", 0, "i1-0")));
        history.record("commit", "c1", "group", "g", "start", 1L, "offsets", Map.of("a-0", 1), "ok", true);
        HistoryChecker.Verdict v = check(List.of(rec("a-0", 0, "i1-0"), rec("a-0", 1, "i1-1"), rec("b-0", 0, "t1-0"),
                rec("b-0", 1, "t1-1")));
        assertTrue(v.clean(), v.summary() + " " + v.examples());
        assertEquals(4, v.acked());
        assertEquals(1, v.committedTxns());
        assertEquals(1, v.abortedTxns());
    }

    @Test
    void findsLostDuplicatedAndReorderedValues() {
        start();
        acked("i1", "a-0", "i1-0", 0);
        acked("i1", "a-0", "i1-1", 1);
        acked("i1", "a-0", "i1-2", 2);
        txn("t1", 1, "committed", "b-0", "t1-0");
        HistoryChecker.Verdict v = check(List.of(rec("a-0", 0, "i1-1"), rec("a-0", 1, "i1-0"), rec("a-0", 2, "i1-0")));
        assertEquals(2, v.lost(), v.examples().toString()); // i1-2 and t1-0
        assertEquals(1, v.duplicated());
        assertTrue(v.reordered() >= 2, v.examples().toString()); // i1-1 and i1-0 misplaced, i1-0 after i1-1
        assertFalse(v.clean());
    }

    @Test
    void findsAbortedTornUnsentAndDirtyReads() {
        start();
        acked("i1", "a-0", "i1-0", 0);
        txn("t1", 1, "aborted", "b-0", "t1-0");
        txn("t1", 2, "unknown", "b-0", "t1-1", "t1-2");
        history.record("poll", "c1", "group", "g", "records",
                List.of(rec("b-0", 0, "t1-0"), rec("a-0", 5, "i1-0"), rec("a-0", 6, "ghost")));
        HistoryChecker.Verdict v = check(List.of(rec("a-0", 0, "i1-0"), rec("b-0", 1, "t1-1")));
        assertEquals(1, v.abortedRead());
        assertEquals(1, v.torn());
        assertEquals(1, v.unsentRead());
        assertEquals(1, v.dirtyRead());
    }

    @Test
    void findsCommittedOffsetsGoingBackwards() {
        start();
        history.record("commit", "c1", "group", "g", "start", 0L, "offsets", Map.of("a-0", 10), "ok", true);
        history.record("commit", "c2", "group", "g", "start", System.currentTimeMillis() + 1, "offsets",
                Map.of("a-0", 4), "ok", true);
        // a failed commit of a lower offset is no violation
        history.record("commit", "c2", "group", "g", "start", System.currentTimeMillis() + 1, "offsets",
                Map.of("a-0", 3), "ok", false);
        HistoryChecker.Verdict v = check(new ArrayList<>());
        assertEquals(1, v.offsetsBackwards(), v.examples().toString());
    }

    @Test
    void findsCrashesCollateralAndStuckShutdowns() {
        start();
        history.record("crash", "nemesis", "broker", 2, "during", "recovery");
        history.record("collateral", "nemesis", "broker", 3, "stalled", List.of("a-0"));
        history.record("stuck", "nemesis", "broker", 1, "during", "controlled shutdown after disk full");
        history.record("slow-recovery", "nemesis", "millis", 120_000, "err", "ISR not full");
        HistoryChecker.Verdict v = check(new ArrayList<>());
        assertEquals(1, v.crashes());
        assertEquals(1, v.collateral());
        assertEquals(1, v.stuckShutdowns(), v.examples().toString());
        assertEquals(1, v.slowRecoveries());
        assertTrue(v.summary().contains("stuck shutdowns 1"), v.summary());
        assertFalse(v.clean(), v.summary());
    }

    @Test
    void aStuckShutdownAloneMakesTheRunUnclean() {
        start();
        acked("i1", "a-0", "i1-0", 0);
        history.record("stuck", "nemesis", "broker", 1, "during", "controlled shutdown after disk full");
        HistoryChecker.Verdict v = check(List.of(rec("a-0", 0, "i1-0")));
        assertEquals(1, v.stuckShutdowns());
        assertFalse(v.clean(), v.summary());
    }

    @Test
    void aShareDeliveryAfterTheAcceptedOneIsARedeliveryAndAnEarlierOneIsNot() {
        start();
        acked("i1", "a-0", "i1-0", 0);
        acked("i1", "a-0", "i1-1", 1);
        history.record("share-poll", "s1", "group", "gs", "records", List.of(List.of("a-0", 0, "i1-0", 1),
                List.of("a-0", 1, "i1-1", 1)));
        history.record("share-poll", "s2", "group", "gs", "records", List.of(List.of("a-0", 0, "i1-0", 2)));
        history.record("share-accept", "s2", "group", "gs", "start", 1L, "accepted", Map.of("a-0", Map.of("0", 2)),
                "failed", Map.of());
        // s1's buffered delivery of 0 (count 1) came before the accepted one: no violation
        history.record("share-poll", "s1", "group", "gs", "records", List.of(List.of("a-0", 0, "i1-0", 1)));
        history.record("share-accept", "s1", "group", "gs", "start", 2L, "accepted", Map.of("a-0", Map.of("1", 1)),
                "failed", Map.of());
        history.record("share-poll", "s2", "group", "gs", "records", List.of(List.of("a-0", 1, "i1-1", 2)));
        HistoryChecker.Verdict v = check(List.of(rec("a-0", 0, "i1-0"), rec("a-0", 1, "i1-1")));
        assertEquals(1, v.redelivered(), v.examples().toString());
        assertEquals(2, v.shareAccepted());
        assertFalse(v.clean(), v.summary());
    }

    /** Availability counts windows of {@code availabilityWindowMs} (many partitions), else seconds. */
    @Test
    void availabilityIsMeasuredInTheFaultPhasesWindows() throws Exception {
        String acks = """
                {"t":12000,"type":"send","proc":"i1","tp":"a-0","v":"i1-0"}
                {"t":12000,"type":"ack","proc":"i1","tp":"a-0","v":"i1-0","off":0}
                {"t":15000,"type":"send","proc":"i1","tp":"a-1","v":"i1-1"}
                {"t":15000,"type":"ack","proc":"i1","tp":"a-1","v":"i1-1","off":0}
                {"t":20000,"type":"send","proc":"i1","tp":"a-0","v":"i1-2"}
                {"t":20000,"type":"ack","proc":"i1","tp":"a-0","v":"i1-2","off":1}
                {"t":24000,"type":"campaign","proc":"test","phase":"faults-end","faults":0}
                {"t":25000,"type":"final","proc":"final-read","records":[["a-0",0,"i1-0"],["a-0",1,"i1-2"],["a-1",0,"i1-1"]]}
                {"t":25000,"type":"final-end","proc":"final-read","ends":{}}
                """;
        Path windowed = dir.resolve("windowed.jsonl");
        Files.writeString(windowed, """
                {"t":10000,"type":"campaign","proc":"test","phase":"faults-start","availabilityWindowMs":7000}
                """ + acks);
        // windows [7 s, 14 s) and [14 s, 21 s): a-0 served in both, a-1 in the second
        HistoryChecker.Verdict v = HistoryChecker.check(windowed);
        assertTrue(v.clean(), v.summary() + " " + v.examples());
        assertEquals(0.75, v.availability(), 1e-9);
        Path seconds = dir.resolve("seconds.jsonl");
        Files.writeString(seconds, """
                {"t":10000,"type":"campaign","proc":"test","phase":"faults-start"}
                """ + acks);
        // 14 seconds per partition, three of them with an acknowledgement
        assertEquals(3.0 / 28, HistoryChecker.check(seconds).availability(), 1e-9);
    }

    @Test
    void aHistoryWithoutItsFinalReadIsRefused() {
        start();
        acked("i1", "a-0", "i1-0", 0);
        history.close();
        assertThrows(IllegalStateException.class, () -> HistoryChecker.check(history.file()));
    }
}

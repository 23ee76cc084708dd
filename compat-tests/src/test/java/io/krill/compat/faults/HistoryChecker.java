package io.krill.compat.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Judges a campaign from its {@link History} file alone (two passes: the second streams the consumers'
 * polls against the final read, so a long history is never held whole).
 *
 * <ul>
 *   <li><b>lost</b>: a value acknowledged to an idempotent producer, or written by a transaction whose
 *       commit returned, that the final read does not hold;
 *   <li><b>duplicated</b>: a value the final read holds more than once;
 *   <li><b>reordered</b>: values of one producer in one partition out of their send order, or an
 *       acknowledged value at another offset than the one acknowledged;
 *   <li><b>aborted-read</b>: a value of an aborted transaction seen under read_committed (polls or final);
 *   <li><b>torn</b>: a transaction of unknown outcome only partly visible;
 *   <li><b>unsent-read</b>: a value read that no producer sent;
 *   <li><b>dirty-read</b>: a value a consumer read at an offset where the final log holds something else
 *       (or nothing): it read past the high watermark, or the log lost it afterwards;
 *   <li><b>redelivered</b>: a record the share group accepted (its acknowledgement committed) delivered
 *       again later, i.e. with a higher delivery count than the accepted delivery's (a share consumer may
 *       hand out a buffered earlier delivery after another member accepted the record: its count is lower);
 *   <li><b>offsets-backwards</b>: a group's committed offset for a partition lower than one whose commit
 *       had returned before this commit started;
 *   <li><b>crashes</b>: a broker process that died without the nemesis killing it;
 *   <li><b>collateral</b>: while one broker's disk was full, a partition led by another broker took no write;
 *   <li><b>stuck shutdowns</b>: a controlled shutdown that did not finish in time (the nemesis then killed
 *       the broker, so the campaign went on, but a broker that cannot stop cleanly is a bug);
 *   <li><b>availability</b> (a figure, not a verdict): over the idempotent producers' partitions, the
 *       fraction of windows of the fault phase in which that partition acknowledged something; a window is
 *       a second, or longer when each partition gets a record less often than every half second (the
 *       {@code availabilityWindowMs} of the {@code faults-start} event: 7 s at 1,000 partitions);
 *   <li><b>recovery</b> (a figure): the longest wait, after a fault was healed, until every broker was back
 *       and every partition (ballast too) had its full ISR.
 * </ul>
 *
 * <p>Linear in the history: one pass per event plus, at the end, one walk of the final log and of each
 * group's commits per partition; nothing compares partitions with one another.
 */
final class HistoryChecker {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int EXAMPLES = 5;

    private record Sent(String proc, String tp, long txn) {
    }

    private record Commit(long start, long end, long offset) {
    }

    /** What the checker found: counts, a few examples of each violation, and the figures. */
    record Verdict(int faults, long acked, long lost, long duplicated, long reordered, long abortedRead, long torn,
                   long unsentRead, long dirtyRead, long offsetsBackwards, double availability,
                   long committedTxns, long abortedTxns, long unknownTxns, long polled, long shareAccepted,
                   long redelivered, int crashes, int collateral,
                   int stuckShutdowns, int slowRecoveries, long maxRecoveryMillis,
                   Map<String, List<String>> examples) {
        boolean clean() {
            return lost + duplicated + reordered + abortedRead + torn + unsentRead + dirtyRead + offsetsBackwards
                    + redelivered + crashes + collateral + stuckShutdowns == 0;
        }

        String summary() {
            return String.format("faults %d, acked %d, lost %d, duplicated %d, reordered %d, aborted-read %d, "
                            + "torn %d, unsent-read %d, dirty-read %d, offsets-backwards %d, redelivered %d, "
                            + "availability %.0f%%, "
                            + "crashes %d, collateral %d, stuck shutdowns %d, slow recoveries %d, recovery max %.1f s, "
                            + "transactions %d committed / %d aborted / %d unknown, polled %d, share-accepted %d",
                    faults, acked, lost, duplicated, reordered, abortedRead, torn, unsentRead, dirtyRead,
                    offsetsBackwards, redelivered, availability * 100, crashes, collateral, stuckShutdowns, slowRecoveries,
                    maxRecoveryMillis / 1000.0,
                    committedTxns,
                    abortedTxns, unknownTxns, polled, shareAccepted);
        }
    }

    private final Map<String, Sent> sent = new HashMap<>();
    private final Map<String, long[]> acked = new HashMap<>();
    private final Map<String, String> ackedTp = new HashMap<>();
    private final Map<String, List<String>> txnValues = new HashMap<>();
    private final Map<String, String> txnOutcome = new HashMap<>();
    private final Map<String, TreeMap<Long, String>> finalLog = new HashMap<>();
    private final Map<String, Integer> finalCount = new HashMap<>();
    private final Map<String, List<Commit>> commits = new HashMap<>();
    /** Per idempotent partition, the seconds in which it acknowledged something. */
    private final Map<String, Set<Long>> ackSeconds = new HashMap<>();
    private final Set<String> idempotentTps = new HashSet<>();
    private final Map<String, List<String>> examples = new TreeMap<>();
    private final Set<String> abortedSeen = new HashSet<>();
    /** Per {@code tp@offset} the share group accepted, the lowest delivery count it was accepted at. */
    private final Map<String, Integer> shareAcceptedAt = new HashMap<>();
    private long redelivered;
    private boolean finalDone;
    private int faults;
    private int crashes;
    private int slowRecoveries;
    private int collateral;
    private int stuckShutdowns;
    private long faultPhaseStart = -1;
    private long faultPhaseEnd = -1;
    private long availabilityWindowMillis = 1000;
    private long maxRecoveryMillis;
    private long polled;
    private long unsentRead;
    private long dirtyRead;

    private HistoryChecker() {
    }

    static Verdict check(Path history) {
        HistoryChecker checker = new HistoryChecker();
        checker.scan(history, checker::learn);
        if (!checker.finalDone) {
            throw new IllegalStateException(history + " has no final read (final-end): the run did not finish");
        }
        checker.scan(history, checker::checkPoll);
        return checker.verdict();
    }

    private void scan(Path history, Consumer<JsonNode> handler) {
        try (BufferedReader in = Files.newBufferedReader(history, StandardCharsets.UTF_8)) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (!line.isBlank()) {
                    handler.accept(JSON.readTree(line));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + history, e);
        }
    }

    private static String txnKey(String proc, long txn) {
        return proc + "#" + txn;
    }

    /** First pass: sends, acknowledgements, transaction outcomes, commits, faults, the final read. */
    private void learn(JsonNode e) {
        String type = e.get("type").asText();
        String proc = e.get("proc").asText();
        long t = e.get("t").asLong();
        switch (type) {
            case "send" -> {
                long txn = e.has("txn") ? e.get("txn").asLong() : -1;
                String v = e.get("v").asText();
                sent.put(v, new Sent(proc, e.get("tp").asText(), txn));
                if (txn >= 0) {
                    txnValues.computeIfAbsent(txnKey(proc, txn), k -> new ArrayList<>()).add(v);
                } else {
                    idempotentTps.add(e.get("tp").asText());
                }
            }
            case "ack" -> {
                if (!e.has("txn")) {
                    String tp = e.get("tp").asText();
                    acked.put(e.get("v").asText(), new long[] {e.get("off").asLong()});
                    ackedTp.put(e.get("v").asText(), tp);
                    ackSeconds.computeIfAbsent(tp, k -> new HashSet<>()).add(t / 1000);
                }
            }
            case "share-accept" -> e.get("accepted").properties().forEach(tp -> tp.getValue().properties()
                    .forEach(o -> shareAcceptedAt.merge(tp.getKey() + "@" + o.getKey(), o.getValue().asInt(),
                            Math::min)));
            case "txn-end" -> txnOutcome.put(txnKey(proc, e.get("txn").asLong()), e.get("outcome").asText());
            case "commit" -> {
                if (e.get("ok").asBoolean()) {
                    String group = e.get("group").asText();
                    long start = e.get("start").asLong();
                    e.get("offsets").properties().forEach(o -> commits
                            .computeIfAbsent(group + " " + o.getKey(), k -> new ArrayList<>())
                            .add(new Commit(start, t, o.getValue().asLong())));
                }
            }
            case "fault" -> {
                if (e.get("phase").asText().equals("start")) {
                    faults++;
                }
            }
            case "campaign" -> {
                if (e.get("phase").asText().equals("faults-start")) {
                    faultPhaseStart = t;
                    if (e.has("availabilityWindowMs")) {
                        availabilityWindowMillis = Math.max(1, e.get("availabilityWindowMs").asLong());
                    }
                } else if (e.get("phase").asText().equals("faults-end")) {
                    faultPhaseEnd = t;
                }
            }
            case "final" -> {
                for (JsonNode r : e.get("records")) {
                    String tp = r.get(0).asText();
                    long off = r.get(1).asLong();
                    String v = r.get(2).asText();
                    finalLog.computeIfAbsent(tp, k -> new TreeMap<>()).put(off, v);
                    finalCount.merge(v, 1, Integer::sum);
                    noteRead(v, tp + "@" + off + " in the final read");
                }
            }
            case "final-end" -> finalDone = true;
            case "crash" -> {
                crashes++;
                example("crash", "broker " + e.get("broker").asText() + " died during " + e.get("during").asText());
            }
            case "stuck" -> {
                stuckShutdowns++;
                example("stuck", "broker " + e.get("broker").asText() + ": " + e.get("during").asText());
            }
            case "slow-recovery" -> {
                slowRecoveries++;
                maxRecoveryMillis = Math.max(maxRecoveryMillis, e.get("millis").asLong());
            }
            case "recovered" -> maxRecoveryMillis = Math.max(maxRecoveryMillis, e.get("millis").asLong());
            case "collateral" -> {
                collateral++;
                example("collateral", "broker " + e.get("broker").asText() + "'s disk full: " + e.get("stalled")
                        + " led elsewhere took no write");
            }
            default -> {
                // poll (second pass), assigned, errors: context for a reader of the file
            }
        }
    }

    /** Second pass: what the groups' consumers read, against the final log. */
    private void checkPoll(JsonNode e) {
        String type = e.get("type").asText();
        if (!type.equals("poll") && !type.equals("share-poll")) {
            return;
        }
        if (type.equals("share-poll")) {
            checkRedelivery(e);
        }
        for (JsonNode r : e.get("records")) {
            polled++;
            String tp = r.get(0).asText();
            long off = r.get(1).asLong();
            String v = r.get(2).asText();
            String where = tp + "@" + off + " polled by " + e.get("proc").asText();
            if (!noteRead(v, where)) {
                continue;
            }
            String inLog = finalLog.getOrDefault(tp, new TreeMap<>()).get(off);
            if (!v.equals(inLog)) {
                dirtyRead++;
                example("dirty-read", v + " at " + where + ", final log holds " + inLog);
            }
        }
    }

    /** A share delivery later than the delivery of the same record that the share group accepted. */
    private void checkRedelivery(JsonNode e) {
        for (JsonNode r : e.get("records")) {
            String key = r.get(0).asText() + "@" + r.get(1).asLong();
            Integer accepted = shareAcceptedAt.get(key);
            int count = r.get(3).asInt();
            if (accepted != null && count > accepted) {
                redelivered++;
                example("redelivered", key + " delivered to " + e.get("proc").asText() + " with count " + count
                        + " after it was accepted at count " + accepted);
            }
        }
    }

    /** Unsent and aborted values read; false if the value is one of those (already counted). */
    private boolean noteRead(String v, String where) {
        Sent s = sent.get(v);
        if (s == null) {
            unsentRead++;
            example("unsent-read", v + " at " + where);
            return false;
        }
        if (s.txn() >= 0 && "aborted".equals(outcome(s))) {
            if (abortedSeen.add(v)) {
                example("aborted-read", v + " (transaction " + s.txn() + ") at " + where);
            }
            return false;
        }
        return true;
    }

    private String outcome(Sent s) {
        // a transaction without an end event was cut off by the campaign's end: its commit was never
        // confirmed, so it is unknown (the producer closing aborts it unless a commit was under way)
        return txnOutcome.getOrDefault(txnKey(s.proc(), s.txn()), "unknown");
    }

    private Verdict verdict() {
        long lost = 0;
        long reordered = 0;
        for (Map.Entry<String, long[]> a : acked.entrySet()) {
            String v = a.getKey();
            if (!finalCount.containsKey(v)) {
                lost++;
                example("lost", v + " acknowledged at " + ackedTp.get(v) + "@" + a.getValue()[0]);
            } else if (!v.equals(finalLog.get(ackedTp.get(v)).get(a.getValue()[0]))) {
                reordered++;
                example("reordered", v + " acknowledged at " + ackedTp.get(v) + "@" + a.getValue()[0]
                        + ", which holds " + finalLog.get(ackedTp.get(v)).get(a.getValue()[0]));
            }
        }
        long committed = 0;
        long aborted = 0;
        long unknown = 0;
        long torn = 0;
        long ackedTotal = acked.size();
        for (Map.Entry<String, List<String>> txn : txnValues.entrySet()) {
            String outcome = txnOutcome.getOrDefault(txn.getKey(), "unknown");
            long present = txn.getValue().stream().filter(finalCount::containsKey).count();
            switch (outcome) {
                case "committed" -> {
                    committed++;
                    ackedTotal += txn.getValue().size();
                    for (String v : txn.getValue()) {
                        if (!finalCount.containsKey(v)) {
                            lost++;
                            example("lost", v + " of committed transaction " + txn.getKey());
                        }
                    }
                }
                case "aborted" -> aborted++;
                default -> {
                    unknown++;
                    if (present > 0 && present < txn.getValue().size()) {
                        torn++;
                        example("torn", "transaction " + txn.getKey() + " of unknown outcome: " + present + " of "
                                + txn.getValue().size() + " values visible");
                    }
                }
            }
        }
        long duplicated = 0;
        for (Map.Entry<String, Integer> c : finalCount.entrySet()) {
            if (c.getValue() > 1) {
                duplicated++;
                example("duplicated", c.getKey() + " x" + c.getValue());
            }
        }
        reordered += orderViolations();
        return new Verdict(faults, ackedTotal, lost, duplicated, reordered, abortedSeen.size(), torn, unsentRead,
                dirtyRead, offsetsBackwards(), availability(), committed, aborted, unknown, polled,
                shareAcceptedAt.size(), redelivered, crashes, collateral,
                stuckShutdowns, slowRecoveries, maxRecoveryMillis, examples);
    }

    /** Per partition and producer, sequence numbers must grow with the offset. */
    private long orderViolations() {
        long violations = 0;
        for (Map.Entry<String, TreeMap<Long, String>> log : finalLog.entrySet()) {
            Map<String, long[]> last = new HashMap<>();
            for (Map.Entry<Long, String> r : log.getValue().entrySet()) {
                String v = r.getValue();
                int dash = v.lastIndexOf('-');
                if (dash < 0) {
                    continue;
                }
                String proc = v.substring(0, dash);
                long seq;
                try {
                    seq = Long.parseLong(v.substring(dash + 1));
                } catch (NumberFormatException notOurs) {
                    continue;
                }
                long[] prev = last.get(proc);
                if (prev != null && seq <= prev[0]) {
                    violations++;
                    example("reordered", log.getKey() + ": " + proc + "-" + prev[0] + " at " + prev[1] + " before "
                            + v + " at " + r.getKey());
                }
                last.put(proc, new long[] {seq, r.getKey()});
            }
        }
        return violations;
    }

    /** Commits of one group and partition: none lower than one that had returned before it started. */
    private long offsetsBackwards() {
        long violations = 0;
        for (Map.Entry<String, List<Commit>> entry : commits.entrySet()) {
            List<Commit> byStart = new ArrayList<>(entry.getValue());
            byStart.sort(Comparator.comparingLong(Commit::start));
            List<Commit> byEnd = new ArrayList<>(entry.getValue());
            byEnd.sort(Comparator.comparingLong(Commit::end));
            int i = 0;
            Commit highest = null;
            for (Commit c : byStart) {
                while (i < byEnd.size() && byEnd.get(i).end() < c.start()) {
                    if (highest == null || byEnd.get(i).offset() > highest.offset()) {
                        highest = byEnd.get(i);
                    }
                    i++;
                }
                if (highest != null && c.offset() < highest.offset()) {
                    violations++;
                    example("offsets-backwards", entry.getKey() + ": committed " + c.offset() + " at " + c.end()
                            + " after " + highest.offset() + " had been committed at " + highest.end());
                }
            }
        }
        return violations;
    }

    private double availability() {
        if (faultPhaseStart < 0 || faultPhaseEnd <= faultPhaseStart || idempotentTps.isEmpty()) {
            return 0;
        }
        long window = availabilityWindowMillis;
        long from = faultPhaseStart / window;
        long to = faultPhaseEnd / window;
        if (to <= from) {
            return 0;
        }
        long buckets = 0;
        long served = 0;
        for (String tp : idempotentTps) {
            buckets += to - from;
            served += ackSeconds.getOrDefault(tp, Set.of()).stream().mapToLong(sec -> sec * 1000 / window)
                    .filter(b -> b >= from && b < to).distinct().count();
        }
        return buckets == 0 ? 0 : (double) served / buckets;
    }

    private void example(String kind, String text) {
        List<String> list = examples.computeIfAbsent(kind, k -> new ArrayList<>());
        if (list.size() < EXAMPLES) {
            list.add(text);
        }
    }
}

package io.krill.compat.cluster;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * What a producer was told: every record it sent, every acknowledgement (partition, offset, value) in the
 * order the callbacks came (Kafka calls back in send order per partition), and every failed send. Checked
 * against what a consumer reads back afterwards.
 *
 * <p>Thread-safety: all methods are synchronized (producer callbacks record, the test thread checks).
 */
final class ProducedRecords {
    record Ack(int partition, long offset, String value) {
    }

    record Failure(int partition, String value, Exception error) {
    }

    /** What a read-back found wrong; empty lists mean the log holds exactly what was acknowledged. */
    record Discrepancies(List<Ack> missing, List<String> misplaced, List<String> duplicated, List<String> neverSent,
                         int acknowledged, int read) {
        boolean none() {
            return missing.isEmpty() && misplaced.isEmpty() && duplicated.isEmpty() && neverSent.isEmpty();
        }

        /** The missing records per partition: how many, and the range of offsets they were acknowledged at. */
        String missingByPartition() {
            Map<Integer, long[]> ranges = new TreeMap<>();
            for (Ack ack : missing) {
                long[] r = ranges.computeIfAbsent(ack.partition(), p -> new long[] {Long.MAX_VALUE, Long.MIN_VALUE, 0});
                r[0] = Math.min(r[0], ack.offset());
                r[1] = Math.max(r[1], ack.offset());
                r[2]++;
            }
            StringBuilder sb = new StringBuilder();
            ranges.forEach((p, r) -> sb.append(sb.length() == 0 ? "" : ", ").append("partition ").append(p).append(": ")
                    .append(r[2]).append(" acknowledged at offsets ").append(r[0]).append("..").append(r[1]));
            return sb.length() == 0 ? "none" : sb.toString();
        }

        @Override
        public String toString() {
            return acknowledged + " acknowledged, " + read + " read; " + missing.size() + " acknowledged records missing "
                    + first(missing) + ", " + misplaced.size() + " at another offset than acknowledged "
                    + first(misplaced) + ", " + duplicated.size() + " read more than once " + first(duplicated) + ", "
                    + neverSent.size() + " read but never sent " + first(neverSent);
        }

        private static String first(List<?> items) {
            return items.isEmpty() ? "" : items.subList(0, Math.min(5, items.size())).toString();
        }
    }

    private final Set<String> sent = new HashSet<>();
    private final Map<Integer, List<Ack>> acks = new TreeMap<>();
    private final List<Failure> failures = new ArrayList<>();

    synchronized void sent(String value) {
        sent.add(value);
    }

    synchronized void acknowledged(int partition, long offset, String value) {
        acks.computeIfAbsent(partition, p -> new ArrayList<>()).add(new Ack(partition, offset, value));
    }

    synchronized void failed(int partition, String value, Exception error) {
        failures.add(new Failure(partition, value, error));
    }

    synchronized int sentCount() {
        return sent.size();
    }

    synchronized int acknowledgedCount() {
        return acks.values().stream().mapToInt(List::size).sum();
    }

    synchronized int acknowledgedCount(int partition) {
        return acks.getOrDefault(partition, List.of()).size();
    }

    synchronized List<Failure> failures() {
        return List.copyOf(failures);
    }

    synchronized Map<Integer, List<Ack>> acks() {
        Map<Integer, List<Ack>> copy = new TreeMap<>();
        acks.forEach((p, list) -> copy.put(p, List.copyOf(list)));
        return copy;
    }

    /** Per partition, acknowledged offsets must grow in callback order (an in-order, gap-tolerant log). */
    synchronized List<String> acknowledgementOrderViolations() {
        List<String> violations = new ArrayList<>();
        acks.forEach((p, list) -> {
            for (int i = 1; i < list.size(); i++) {
                if (list.get(i).offset() <= list.get(i - 1).offset()) {
                    violations.add(list.get(i - 1) + " then " + list.get(i));
                }
            }
        });
        return violations;
    }

    /**
     * Compares the acknowledgements with what was read (per partition, in offset order): each acknowledged
     * record must be at its acknowledged offset with its value, so present once and in acknowledgement
     * order; no value may be read twice, and none that was never sent.
     */
    synchronized Discrepancies compareWith(Map<Integer, List<ConsumerRecord<String, String>>> read) {
        Map<String, Integer> timesRead = new HashMap<>();
        Map<Integer, Map<Long, String>> byOffset = new HashMap<>();
        int readCount = 0;
        List<String> neverSent = new ArrayList<>();
        for (Map.Entry<Integer, List<ConsumerRecord<String, String>>> e : read.entrySet()) {
            Map<Long, String> offsets = byOffset.computeIfAbsent(e.getKey(), p -> new HashMap<>());
            for (ConsumerRecord<String, String> r : e.getValue()) {
                readCount++;
                offsets.put(r.offset(), r.value());
                timesRead.merge(r.value(), 1, Integer::sum);
                if (!sent.contains(r.value())) {
                    neverSent.add(e.getKey() + "@" + r.offset() + "=" + r.value());
                }
            }
        }
        List<String> duplicated = timesRead.entrySet().stream().filter(e -> e.getValue() > 1)
                .map(e -> e.getKey() + " x" + e.getValue()).sorted().toList();
        List<Ack> missing = new ArrayList<>();
        List<String> misplaced = new ArrayList<>();
        int acknowledged = 0;
        for (List<Ack> list : acks.values()) {
            for (Ack ack : list) {
                acknowledged++;
                String atOffset = byOffset.getOrDefault(ack.partition(), Map.of()).get(ack.offset());
                if (timesRead.getOrDefault(ack.value(), 0) == 0) {
                    missing.add(ack);
                } else if (!ack.value().equals(atOffset)) {
                    misplaced.add(ack + " but offset holds " + atOffset);
                }
            }
        }
        return new Discrepancies(missing, misplaced, duplicated, neverSent, acknowledged, readCount);
    }
}

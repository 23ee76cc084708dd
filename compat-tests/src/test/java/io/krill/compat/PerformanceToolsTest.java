package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.support.Clients;
import io.krill.compat.support.ToolRunner;
import io.krill.compat.support.ToolRunner.Result;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.tools.ConsumerPerformance;
import org.apache.kafka.tools.EndToEndLatency;
import org.apache.kafka.tools.ProducerPerformance;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Kafka's load tools (4.4): kafka-producer-perf-test.sh ({@code ProducerPerformance}), kafka-e2e-latency
 * ({@code EndToEndLatency}, manual assignment) and kafka-consumer-perf-test.sh
 * ({@code ConsumerPerformance}, which in 4.4 only subscribes, i.e. needs a consumer group).
 */
class PerformanceToolsTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension().with("num.partitions", "2");

    /** ProducerPerformance's final summary line. */
    private static final Pattern SUMMARY = Pattern.compile("^(\\d+) records sent, [\\d.]+ records/sec \\([\\d.]+ MB/sec\\), "
            + "[\\d.]+ ms avg latency, [\\d.]+ ms max latency, \\d+ ms 50th, \\d+ ms 95th, \\d+ ms 99th, \\d+ ms 99.9th\\.$");

    @Test
    void producerPerformanceAllAcked() {
        String topic = "perf-producer";
        int records = 50_000;
        Result result = ToolRunner.run("kafka-producer-perf-test", ProducerPerformance::main, Duration.ofSeconds(120),
                "--topic", topic, "--num-records", String.valueOf(records), "--record-size", "1024",
                "--throughput", "-1", "--producer-props", "bootstrap.servers=" + KRILL.bootstrapServers(), "acks=all",
                "linger.ms=5", "delivery.timeout.ms=60000");
        assertEquals(0, result.exitCode(), result.describe());
        List<String> summaries = result.outLines().stream().filter(l -> SUMMARY.matcher(l).matches()).toList();
        assertEquals(1, summaries.size(), "one final summary line:\n" + result.describe());
        Matcher m = SUMMARY.matcher(summaries.get(0));
        assertTrue(m.matches());
        assertEquals(String.valueOf(records), m.group(1), "records acknowledged:\n" + result.describe());
        assertTrue(result.err().isBlank() || !result.err().contains("Exception"), result.describe());

        long stored = Clients.endOffsets(KRILL.bootstrapServers(), topic, 2).values().stream().mapToLong(Long::longValue).sum();
        assertEquals(records, stored, "records in the log (sum of end offsets)");
    }

    @Test
    void endToEndLatencyWithKeysAndHeaders() {
        String topic = "perf-e2e";
        // EndToEndLatency creates a missing topic through the admin API; let auto-creation make it instead.
        Clients.produce(KRILL.bootstrapServers(), topic, 0, List.of("warm-up"));
        Result result = ToolRunner.run("kafka-e2e-latency", EndToEndLatency::main, Duration.ofSeconds(120),
                "--bootstrap-server", KRILL.bootstrapServers(), "--topic", topic, "--num-records", "300",
                "--producer-acks", "all", "--record-size", "200", "--record-key-size", "16",
                "--num-headers", "2", "--record-header-key-size", "8", "--record-header-size", "32");
        // The summary is printed only after all records were read back and compared byte for byte (value,
        // key, headers) with what was sent; a mismatch ends the tool before it.
        assertTrue(result.out().contains("Avg latency:"), "every record read back intact:\n" + result.describe());
        assertTrue(result.out().contains("Percentiles: 50th ="), result.describe());
        // Then the tool commits its consumer's offsets (commitSync), which needs the group coordinator.
        KRILL.apis().assertServes("the tool's final commitSync", ApiKeys.FIND_COORDINATOR, ApiKeys.OFFSET_COMMIT);
        assertEquals(0, result.exitCode(), result.describe());
    }

    @Test
    void consumerPerformance() {
        // ConsumerPerformance 4.4 only subscribes (no --partition option): it needs the group coordinator.
        KRILL.apis().assertServes("ConsumerPerformance's consumer group", ApiKeys.FIND_COORDINATOR, ApiKeys.JOIN_GROUP,
                ApiKeys.SYNC_GROUP, ApiKeys.HEARTBEAT, ApiKeys.OFFSET_FETCH);
        String topic = "perf-consumer";
        int records = 5_000;
        List<String> values = IntStream.range(0, records).mapToObj(i -> "value-" + i).collect(Collectors.toList());
        Clients.produce(KRILL.bootstrapServers(), topic, 0, values);
        Result result = ToolRunner.run("kafka-consumer-perf-test", ConsumerPerformance::main, Duration.ofSeconds(120),
                "--bootstrap-server", KRILL.bootstrapServers(), "--topic", topic, "--num-records",
                String.valueOf(records), "--timeout", "30000", "--group", "perf-consumer-group");
        assertEquals(0, result.exitCode(), result.describe());
        List<String> lines = result.outLines();
        int header = lines.indexOf(lines.stream().filter(l -> l.startsWith("start.time, end.time, data.consumed.in.MB"))
                .findFirst().orElseThrow(() -> new AssertionError("no header line:\n" + result.describe())));
        assertTrue(lines.size() > header + 1, result.describe());
        String[] columns = lines.get(header + 1).split(",\\s*");
        assertEquals(String.valueOf(records), columns[4].trim(), "data.consumed.in.nMsg:\n" + result.describe());
    }
}

package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.krill.compat.support.Clients;
import io.krill.compat.support.GroupOffsetsTool;
import io.krill.compat.support.JavaTool;
import io.krill.compat.support.Processes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.tools.VerifiableConsumer;
import org.apache.kafka.tools.VerifiableProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * kafka-verifiable-producer.sh and kafka-verifiable-consumer.sh (Kafka 4.4's {@code VerifiableProducer}
 * and {@code VerifiableConsumer}, the clients of Kafka's own system tests), judged by the JSON events
 * they print: every produced integer acknowledged at its own offset, every one consumed in a group with
 * its offsets committed; the stock Java client and kafka-consumer-groups cross-check. Each runs in a JVM
 * of its own, as from its script: both finish their work in Runtime shutdown hooks.
 */
class VerifiableClientsTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension()
            .with("num.partitions", "2")
            .with("offsets.topic.num.partitions", "3")
            .with("group.initial.rebalance.delay.ms", "0");

    private static final Duration TIMEOUT = Duration.ofSeconds(90);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int COUNT = 300;

    @Test
    void everyProducedIntegerIsAckedThenConsumedAndCommittedInAGroup() {
        String topic = "verifiable";
        String group = "verifiable-group";
        Processes.Result produced = JavaTool.run(VerifiableProducer.class, TIMEOUT,
                "--bootstrap-server", KRILL.bootstrapServers(), "--topic", topic, "--max-messages",
                String.valueOf(COUNT), "--acks", "-1", "--repeating-keys", "10").assertSuccess();
        List<JsonNode> producerEvents = events(produced);
        List<JsonNode> acks = named(producerEvents, "producer_send_success");
        assertEquals(COUNT, acks.size(), produced.describe());
        TreeSet<String> expectedValues = IntStream.range(0, COUNT).mapToObj(String::valueOf)
                .collect(Collectors.toCollection(TreeSet::new));
        TreeSet<String> ackedValues = acks.stream().map(e -> e.get("value").asText())
                .collect(Collectors.toCollection(TreeSet::new));
        assertEquals(expectedValues, ackedValues, "every integer acknowledged");
        Map<Integer, List<Long>> offsets = new HashMap<>();
        acks.forEach(e -> offsets.computeIfAbsent(e.get("partition").asInt(), p -> new ArrayList<>())
                .add(e.get("offset").asLong()));
        offsets.forEach((p, list) -> assertEquals(range(list.size()), list.stream().sorted().toList(),
                "acknowledged offsets of partition " + p));
        assertEquals(List.of(), named(producerEvents, "producer_send_error"), produced.describe());
        JsonNode toolData = named(producerEvents, "tool_data").get(0);
        assertEquals(COUNT, toolData.get("sent").asInt(), produced.describe());
        assertEquals(COUNT, toolData.get("acked").asInt(), produced.describe());
        Map<Integer, Long> ends = Clients.endOffsets(KRILL.bootstrapServers(), topic, 2);
        assertEquals(Set.of(0, 1), offsets.keySet(), "keys 0..9 spread over both partitions");
        offsets.forEach((p, list) -> assertEquals((long) list.size(), ends.get(p), "end offset of partition " + p));

        Processes.Result consumed = JavaTool.run(VerifiableConsumer.class, TIMEOUT,
                "--bootstrap-server", KRILL.bootstrapServers(), "--topic", topic, "--group-id", group,
                "--max-messages", String.valueOf(COUNT), "--reset-policy", "earliest").assertSuccess();
        List<JsonNode> consumerEvents = events(consumed);
        JsonNode assigned = named(consumerEvents, "partitions_assigned").get(0).get("partitions");
        assertEquals(2, assigned.size(), consumed.describe());
        int total = named(consumerEvents, "records_consumed").stream().mapToInt(e -> e.get("count").asInt()).sum();
        assertEquals(COUNT, total, consumed.describe());
        List<JsonNode> commits = named(consumerEvents, "offsets_committed");
        assertTrue(!commits.isEmpty() && commits.stream().allMatch(e -> e.get("success").asBoolean()),
                consumed.describe());
        Map<Integer, Long> lastCommitted = new HashMap<>();
        commits.forEach(e -> e.get("offsets").forEach(o -> lastCommitted.put(o.get("partition").asInt(),
                o.get("offset").asLong())));
        assertEquals(ends, lastCommitted, consumed.describe());
        assertEquals(1, named(consumerEvents, "shutdown_complete").size(), consumed.describe());

        GroupOffsetsTool.describe(KRILL.bootstrapServers(), group, topic).forEach((p, row) ->
                assertEquals(new GroupOffsetsTool.Row(ends.get(p), ends.get(p), 0), row, "partition " + p));
    }

    /** 0, 1, ..., n-1. */
    private static List<Long> range(int n) {
        return IntStream.range(0, n).mapToObj(Long::valueOf).toList();
    }

    /** The JSON events among the tool's output lines (a log line would start with its time). */
    private static List<JsonNode> events(Processes.Result result) {
        List<JsonNode> events = new ArrayList<>();
        for (String line : result.outLines().stream().filter(l -> l.startsWith("{")).toList()) {
            try {
                events.add(JSON.readTree(line));
            } catch (IOException e) {
                throw new UncheckedIOException("not a JSON event: " + line + "\n" + result.describe(), e);
            }
        }
        return events;
    }

    private static List<JsonNode> named(List<JsonNode> events, String name) {
        return events.stream().filter(e -> name.equals(e.path("name").asText())).toList();
    }
}

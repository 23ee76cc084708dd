package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.support.Clients;
import io.krill.compat.support.ToolRunner;
import io.krill.compat.support.ToolRunner.Result;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.tools.GetOffsetShell;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * kafka-get-offsets.sh ({@code org.apache.kafka.tools.GetOffsetShell} 4.4): the admin client's
 * ListOffsets for latest (-1), earliest (-2), max timestamp (-3) and a timestamp, on a two-partition
 * topic whose records carry chosen timestamps. Output lines are {@code topic:partition:offset}.
 */
class GetOffsetShellTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension().with("num.partitions", "2");

    private static final String TOPIC = "gos-topic";
    private static final long BASE = 1_700_000_000_000L;

    @TempDir
    static Path tmp;

    /**
     * Partition 0: ten records, timestamps BASE+0..9 except offset 6 which is BASE+1000 (the maximum),
     * sent one batch per record so that max timestamp is answered per batch. Partition 1: five
     * records with timestamps BASE+100..104 sent as one batch.
     */
    @BeforeAll
    static void produce() throws Exception {
        try (KafkaProducer<String, String> producer = Clients.producer(KRILL.bootstrapServers(),
                Map.of("linger.ms", "0", "max.in.flight.requests.per.connection", "1"))) {
            for (int i = 0; i < 10; i++) {
                long ts = i == 6 ? BASE + 1000 : BASE + i;
                producer.send(new ProducerRecord<>(TOPIC, 0, ts, "k" + i, "v" + i)).get(60, TimeUnit.SECONDS);
            }
        }
        try (KafkaProducer<String, String> producer = Clients.producer(KRILL.bootstrapServers(),
                Map.of("linger.ms", "100"))) {
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                acks.add(producer.send(new ProducerRecord<>(TOPIC, 1, BASE + 100 + i, "k" + i, "v" + i)));
            }
            for (Future<RecordMetadata> ack : acks) {
                ack.get(60, TimeUnit.SECONDS);
            }
        }
    }

    private static Result offsets(String... extra) {
        List<String> args = new ArrayList<>(List.of("--bootstrap-server", KRILL.bootstrapServers(),
                "--command-config", Clients.configFile(tmp, KRILL.bootstrapServers()).toString()));
        args.addAll(List.of(extra));
        Result result = ToolRunner.run("kafka-get-offsets", GetOffsetShell::main, Duration.ofSeconds(60),
                args.toArray(String[]::new));
        assertEquals(0, result.exitCode(), result.describe());
        return result;
    }

    @Test
    void latest() {
        Result r = offsets("--topic", TOPIC, "--time", "-1");
        assertEquals(List.of(TOPIC + ":0:10", TOPIC + ":1:5"), r.outLines(), r.describe());
        // No --time at all means latest too.
        assertEquals(r.outLines(), offsets("--topic", TOPIC).outLines());
        assertEquals(List.of(TOPIC + ":0:10", TOPIC + ":1:5"), offsets("--topic", TOPIC, "--time", "latest").outLines());
    }

    @Test
    void earliest() {
        Result r = offsets("--topic", TOPIC, "--time", "-2");
        assertEquals(List.of(TOPIC + ":0:0", TOPIC + ":1:0"), r.outLines(), r.describe());
    }

    @Test
    void maxTimestamp() {
        Result r = offsets("--topic", TOPIC, "--time", "-3");
        assertEquals(List.of(TOPIC + ":0:6", TOPIC + ":1:4"), r.outLines(),
                "offset of the record with the largest timestamp:\n" + r.describe());
        assertEquals(r.outLines(), offsets("--topic", TOPIC, "--time", "max-timestamp").outLines());
    }

    @Test
    void earliestLocalAndLatestTiered() {
        // Without tiered storage the local log starts at the log start offset (KIP-1005, ListOffsets v8+).
        Result local = offsets("--topic", TOPIC, "--time", "-4");
        assertEquals(List.of(TOPIC + ":0:0", TOPIC + ":1:0"), local.outLines(), local.describe());
        assertEquals(local.outLines(), offsets("--topic", TOPIC, "--time", "earliest-local").outLines());
    }

    @Test
    void latestTieredWithoutTieredStorage() {
        // Nothing is tiered: Kafka answers offset -1, which the tool does not print (ListOffsets v9+).
        Result tiered = offsets("--topic", TOPIC, "--time", "-5");
        assertTrue(tiered.outLines().isEmpty(), tiered.describe());
        assertTrue(tiered.err().isEmpty(), "no error for latest-tiered:\n" + tiered.describe());
    }

    @Test
    void emptyPartitions() {
        String empty = "gos-empty";
        assertEquals(2, Clients.autoCreate(KRILL.bootstrapServers(), empty).size());
        assertEquals(List.of(empty + ":0:0", empty + ":1:0"), offsets("--topic", empty, "--time", "-1").outLines());
        assertEquals(List.of(empty + ":0:0", empty + ":1:0"), offsets("--topic", empty, "--time", "-2").outLines());
        // No record, so no max timestamp and no record at or after a time: offset -1, not printed.
        Result max = offsets("--topic", empty, "--time", "-3");
        assertTrue(max.outLines().isEmpty() && max.err().isEmpty(), max.describe());
        Result byTime = offsets("--topic", empty, "--time", String.valueOf(BASE));
        assertTrue(byTime.outLines().isEmpty() && byTime.err().isEmpty(), byTime.describe());
    }

    @Test
    void compressedBatches() throws Exception {
        // Timestamps inside compressed batches: the lookup must look into the batch, not only its header.
        String topic = "gos-zstd";
        try (KafkaProducer<String, String> producer = Clients.producer(KRILL.bootstrapServers(),
                Map.of("compression.type", "zstd", "linger.ms", "50"))) {
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                long ts = i == 13 ? BASE + 5000 : BASE + 10 * i;
                acks.add(producer.send(new ProducerRecord<>(topic, 0, ts, "k" + i, "v" + i)));
            }
            for (Future<RecordMetadata> ack : acks) {
                ack.get(60, TimeUnit.SECONDS);
            }
        }
        assertEquals(List.of(topic + ":0:13"), offsets("--topic-partitions", topic + ":0", "--time", "-3").outLines(),
                "max timestamp offset inside one compressed batch");
        assertEquals(List.of(topic + ":0:8"),
                offsets("--topic-partitions", topic + ":0", "--time", String.valueOf(BASE + 75)).outLines(),
                "first offset with timestamp >= BASE+75 inside one compressed batch");
    }

    @Test
    void byTimestamp() {
        // The first offset whose timestamp is >= the one asked; partitions with none are not printed.
        Result r = offsets("--topic", TOPIC, "--time", String.valueOf(BASE + 3));
        assertEquals(List.of(TOPIC + ":0:3", TOPIC + ":1:0"), r.outLines(), r.describe());

        Result mid = offsets("--topic", TOPIC, "--time", String.valueOf(BASE + 102));
        assertEquals(List.of(TOPIC + ":0:6", TOPIC + ":1:2"), mid.outLines(), mid.describe());

        Result none = offsets("--topic", TOPIC, "--time", String.valueOf(BASE + 5000));
        assertTrue(none.outLines().isEmpty(), "no record at or after the time: nothing printed\n" + none.describe());
    }

    @Test
    void topicPartitionFilter() {
        Result r = offsets("--topic-partitions", TOPIC + ":1", "--time", "-1");
        assertEquals(List.of(TOPIC + ":1:5"), r.outLines(), r.describe());
        Result pattern = offsets("--topic-partitions", "gos-.*:0", "--time", "-1");
        assertEquals(List.of(TOPIC + ":0:10"), pattern.outLines(), pattern.describe());
    }
}

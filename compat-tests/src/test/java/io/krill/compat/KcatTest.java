package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.krill.compat.support.Clients;
import io.krill.compat.support.Processes;
import io.krill.compat.support.Processes.Result;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * kcat (librdkafka, the C client under confluent-kafka-python, -go, -dotnet and node-rdkafka) against
 * Krill: produce with every compression codec, consume from the beginning to the end of the partition,
 * and the metadata listing. The stock Java client cross-checks what kcat wrote. Skipped only when kcat
 * is not installed (.ci/run installs it).
 */
class KcatTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension().with("num.partitions", "3");

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @BeforeAll
    static void kcatInstalled() {
        assumeTrue(Processes.onPath("kcat"), "kcat is not on the PATH (apt-get install kcat)");
    }

    private static Result kcat(String stdin, String... args) {
        List<String> command = new ArrayList<>(List.of("kcat", "-b", KRILL.bootstrapServers(),
                "-X", "socket.timeout.ms=20000", "-X", "topic.metadata.refresh.interval.ms=1000"));
        command.addAll(List.of(args));
        return Processes.run(command, stdin, TIMEOUT);
    }

    @ParameterizedTest(name = "compression {0}")
    @ValueSource(strings = {"none", "gzip", "snappy", "lz4", "zstd"})
    void produceWithCodecThenConsume(String codec) {
        String topic = "kcat-" + codec;
        List<String> lines = IntStream.range(0, 2000).mapToObj(i -> "key-" + i + ":" + codec + "-value-" + i)
                .collect(Collectors.toList());
        // -K: splits key and value at the first ':'; -z the codec; -p 0 one partition, acks=all.
        kcat(String.join("\n", lines) + "\n", "-P", "-t", topic, "-p", "0", "-K", ":", "-z", codec,
                "-X", "acks=all", "-X", "linger.ms=20").assertSuccess();

        List<ConsumerRecord<String, String>> records = Clients.consume(KRILL.bootstrapServers(), topic, 0, lines.size());
        assertEquals(lines.size(), records.size(), "records the Java consumer read");
        for (int i = 0; i < lines.size(); i++) {
            assertEquals(i, records.get(i).offset());
            assertEquals("key-" + i, records.get(i).key());
            assertEquals(codec + "-value-" + i, records.get(i).value());
        }

        // -e: exit at the end of the partition; the format prints key, value and offset.
        Result consumed = kcat("", "-C", "-t", topic, "-p", "0", "-o", "beginning", "-e", "-f", "%k:%s@%o\\n")
                .assertSuccess();
        List<String> expected = IntStream.range(0, lines.size()).mapToObj(i -> lines.get(i) + "@" + i)
                .collect(Collectors.toList());
        assertEquals(expected, consumed.outLines(), "kcat read back what it wrote\n" + tail(consumed));
    }

    @Test
    void consumeWhatTheJavaClientWroteWithHeadersAndOffsets() {
        String topic = "kcat-from-java";
        List<String> values = IntStream.range(0, 100).mapToObj(i -> "v" + i).collect(Collectors.toList());
        Clients.produce(KRILL.bootstrapServers(), topic, 1, values);

        Result all = kcat("", "-C", "-t", topic, "-p", "1", "-o", "beginning", "-e", "-f", "%p|%o|%k|%s\\n")
                .assertSuccess();
        List<String> expected = IntStream.range(0, 100).mapToObj(i -> "1|" + i + "|k-" + i + "|v" + i)
                .collect(Collectors.toList());
        assertEquals(expected, all.outLines(), tail(all));

        // A start offset and a count; and a negative (relative to the end) offset.
        Result middle = kcat("", "-C", "-t", topic, "-p", "1", "-o", "40", "-c", "5", "-f", "%o:%s\\n").assertSuccess();
        assertEquals(List.of("40:v40", "41:v41", "42:v42", "43:v43", "44:v44"), middle.outLines(), tail(middle));
        Result last = kcat("", "-C", "-t", topic, "-p", "1", "-o", "-3", "-e", "-f", "%o:%s\\n").assertSuccess();
        assertEquals(List.of("97:v97", "98:v98", "99:v99"), last.outLines(), tail(last));
    }

    @Test
    void producerWithIdempotenceAndHeaders() {
        String topic = "kcat-idempotent";
        kcat("a\nb\nc\n", "-P", "-t", topic, "-p", "2", "-H", "trace=abc", "-H", "n=1",
                "-X", "enable.idempotence=true").assertSuccess();
        Result consumed = kcat("", "-C", "-t", topic, "-p", "2", "-o", "beginning", "-e", "-f", "%o %h %s\\n")
                .assertSuccess();
        assertEquals(List.of("0 trace=abc,n=1 a", "1 trace=abc,n=1 b", "2 trace=abc,n=1 c"), consumed.outLines(),
                tail(consumed));
    }

    @Test
    void metadataListing() {
        String topic = "kcat-metadata";
        Clients.produce(KRILL.bootstrapServers(), topic, 0, List.of("x"));
        Result list = kcat("", "-L", "-t", topic).assertSuccess();
        String out = list.out();
        assertTrue(out.contains("1 brokers:"), list.describe());
        assertTrue(out.contains("broker 1 at 127.0.0.1:" + KRILL.port()), list.describe());
        assertTrue(out.contains("topic \"" + topic + "\" with 3 partitions:"), list.describe());
        for (int p = 0; p < 3; p++) {
            assertTrue(out.contains("partition " + p + ", leader 1, replicas: 1, isrs: 1"), list.describe());
        }

        // All topics, as JSON.
        Result json = kcat("", "-L", "-J").assertSuccess();
        assertTrue(json.out().contains("\"topic\":\"" + topic + "\""), json.describe());
        assertTrue(json.out().contains("\"controllerid\":1") || json.out().contains("\"controllerid\": 1"),
                json.describe());
    }

    @Test
    void consumeFromTimestamp() {
        String topic = "kcat-from-time";
        List<String> lines = new ArrayList<>();
        long base = 1_700_000_000_000L;
        try (KafkaProducer<String, String> producer = Clients.producer(KRILL.bootstrapServers(), Map.of())) {
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>(topic, 0, base + 1000L * i, "k", "t" + i));
                lines.add("t" + i);
            }
        }
        // -o s@TS: start at the first record with a timestamp >= TS (ListOffsets by time).
        Result fromTime = kcat("", "-C", "-t", topic, "-p", "0", "-o", "s@" + (base + 6500), "-e", "-f", "%o %T %s\\n")
                .assertSuccess();
        assertEquals(List.of("7 " + (base + 7000) + " t7", "8 " + (base + 8000) + " t8", "9 " + (base + 9000) + " t9"),
                fromTime.outLines(), tail(fromTime));
    }

    @Test
    void queryOffsetsByTimestamp() {
        String topic = "kcat-offsets";
        kcat("a\nb\nc\nd\n", "-P", "-t", topic, "-p", "0").assertSuccess();
        // -Q: ListOffsets by timestamp; a time before every record answers offset 0.
        Result q = kcat("", "-Q", "-t", topic + ":0:1").assertSuccess();
        assertTrue(q.out().contains(topic + " [0] offset 0"), q.describe());
    }

    private static String tail(Result r) {
        String out = r.out();
        return r.describe().replace(out, out.length() > 2000 ? "..." + out.substring(out.length() - 2000) : out);
    }
}

package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.krill.compat.support.Clients;
import io.krill.compat.support.Processes;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * confluent-kafka-python (Debian's python3-confluent-kafka, over the system librdkafka) produces with
 * every codec and consumes with assign(); the stock Java client cross-checks. Skipped only when the
 * module is not importable (.ci/run installs it).
 */
class PythonClientTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension().with("num.partitions", "2");

    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    @TempDir
    static Path tmp;
    static String python;
    static Path script;

    @BeforeAll
    static void pythonWithConfluentKafka() throws IOException {
        python = Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3";
        assumeTrue(Processes.onPath("python3") || Files.isExecutable(Path.of(python)), "no python3");
        Processes.Result probe = Processes.run(List.of(python, "-c", "import confluent_kafka"), "",
                Duration.ofSeconds(30));
        assumeTrue(probe.exitCode() == 0, "confluent_kafka is not importable by " + python
                + " (apt-get install python3-confluent-kafka): " + probe.err());
        script = tmp.resolve("confluent_client.py");
        try (InputStream in = PythonClientTest.class.getResourceAsStream("/python/confluent_client.py")) {
            Files.write(script, in.readAllBytes());
        } catch (NullPointerException e) {
            throw new UncheckedIOException(new IOException("python/confluent_client.py not on the class path"));
        }
    }

    private static Processes.Result py(String... args) {
        List<String> command = new ArrayList<>(List.of(python, script.toString()));
        command.addAll(List.of(args));
        return Processes.run(command, "", TIMEOUT).assertSuccess();
    }

    @ParameterizedTest(name = "compression {0}")
    @ValueSource(strings = {"none", "gzip", "snappy", "lz4", "zstd"})
    void produceWithCodecThenConsume(String codec) {
        String topic = "py-" + codec;
        int count = 2000;
        Processes.Result produced = py("produce", KRILL.bootstrapServers(), topic, "1", String.valueOf(count), codec);
        assertEquals(IntStream.range(0, count).mapToObj(i -> "acked " + i).collect(Collectors.toList()),
                produced.outLines(), "delivery reports in order");

        List<ConsumerRecord<String, String>> records = Clients.consume(KRILL.bootstrapServers(), topic, 1, count);
        assertEquals(count, records.size());
        for (int i = 0; i < count; i++) {
            assertEquals("k-" + i, records.get(i).key());
            assertEquals(codec + "-value-" + i, records.get(i).value());
        }

        Processes.Result consumed = py("consume", KRILL.bootstrapServers(), topic, "1", String.valueOf(count));
        List<String> expected = IntStream.range(0, count).mapToObj(i -> i + " k-" + i + " " + codec + "-value-" + i)
                .collect(Collectors.toCollection(ArrayList::new));
        expected.add("end " + count);
        assertEquals(expected, consumed.outLines());
    }

    /**
     * librdkafka assigned past the end gets OFFSET_OUT_OF_RANGE and applies auto.offset.reset=earliest. It
     * did not while Krill answered the errored partition with a null record set: librdkafka rejected the
     * whole response ("invalid MessageSetSize -1") and fetched again in a loop, never resetting.
     */
    @Test
    void anOffsetPastTheEndIsResetToTheEarliest() {
        String topic = "py-reset";
        List<String> values = IntStream.range(0, 50).mapToObj(i -> "r-" + i).collect(Collectors.toList());
        Clients.produce(KRILL.bootstrapServers(), topic, 0, values);
        Processes.Result consumed = py("consume", KRILL.bootstrapServers(), topic, "0", "50", "1000000", "earliest");
        List<String> expected = IntStream.range(0, 50).mapToObj(i -> i + " k-" + i + " r-" + i)
                .collect(Collectors.toCollection(ArrayList::new));
        expected.add("end 50");
        assertEquals(expected, consumed.outLines(), consumed.describe());
    }

    @Test
    void consumeWhatTheJavaClientWrote() {
        String topic = "py-from-java";
        List<String> values = IntStream.range(0, 500).mapToObj(i -> "java-" + i).collect(Collectors.toList());
        Clients.produce(KRILL.bootstrapServers(), topic, 0, values);
        Processes.Result consumed = py("consume", KRILL.bootstrapServers(), topic, "0", "500");
        List<String> expected = IntStream.range(0, 500).mapToObj(i -> i + " k-" + i + " java-" + i)
                .collect(Collectors.toCollection(ArrayList::new));
        expected.add("end 500");
        assertEquals(expected, consumed.outLines());
    }
}

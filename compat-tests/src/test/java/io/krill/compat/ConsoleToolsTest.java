package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.support.Clients;
import io.krill.compat.support.ToolRunner;
import io.krill.compat.support.ToolRunner.Result;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.tools.ConsoleProducer;
import org.apache.kafka.tools.consumer.ConsoleConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * kafka-console-producer.sh piped into kafka-console-consumer.sh (Kafka 4.4's
 * {@code org.apache.kafka.tools.ConsoleProducer} and {@code ...consumer.ConsoleConsumer}), with every
 * compression codec, keys and headers. The consumer reads by partition ({@code --partition 0}) since
 * the broker has no group coordinator yet. The stock Java client checks what the producer wrote.
 */
class ConsoleToolsTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension().with("num.partitions", "1");

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private static Result produce(String topic, String stdin, String... extra) {
        List<String> args = new ArrayList<>(List.of("--bootstrap-server", KRILL.bootstrapServers(), "--topic", topic));
        args.addAll(List.of(extra));
        return ToolRunner.runWithInput("kafka-console-producer", ConsoleProducer::main, TIMEOUT, stdin,
                args.toArray(String[]::new));
    }

    private static Result consume(String topic, String... extra) {
        List<String> args = new ArrayList<>(List.of("--bootstrap-server", KRILL.bootstrapServers(), "--topic", topic,
                "--partition", "0", "--timeout-ms", "20000"));
        args.addAll(List.of(extra));
        return ToolRunner.run("kafka-console-consumer", ConsoleConsumer::main, TIMEOUT, args.toArray(String[]::new));
    }

    private static List<String> lines(String prefix, int n) {
        return IntStream.range(0, n).mapToObj(i -> prefix + i).collect(Collectors.toList());
    }

    @ParameterizedTest(name = "compression {0}")
    @ValueSource(strings = {"none", "gzip", "snappy", "lz4", "zstd"})
    void keyedLinesRoundTripWithCodec(String codec) {
        String topic = "console-" + codec;
        List<String> input = IntStream.range(0, 500).mapToObj(i -> "key-" + i + ":value-" + codec + "-" + i)
                .collect(Collectors.toList());
        Result producer = produce(topic, String.join("\n", input) + "\n", "--compression-codec", codec,
                "--reader-property", "parse.key=true", "--reader-property", "key.separator=:",
                "--batch-size", "200");
        assertEquals(0, producer.exitCode(), producer.describe());

        // Judge 1: the stock Java consumer sees exactly the lines, keys split off, offsets 0..n-1.
        List<ConsumerRecord<String, String>> records = Clients.consume(KRILL.bootstrapServers(), topic, 0, input.size());
        assertEquals(input.size(), records.size(), "records the Java consumer read");
        for (int i = 0; i < input.size(); i++) {
            assertEquals(i, records.get(i).offset());
            assertEquals("key-" + i, records.get(i).key());
            assertEquals("value-" + codec + "-" + i, records.get(i).value());
        }

        // Judge 2: the console consumer prints them back in the producer's input format.
        Result consumer = consume(topic, "--offset", "earliest", "--max-messages", String.valueOf(input.size()),
                "--formatter-property", "print.key=true", "--formatter-property", "key.separator=:");
        assertEquals(0, consumer.exitCode(), consumer.describe());
        assertEquals(input, consumer.outLines(), consumer.describe());
        assertTrue(consumer.err().contains("Processed a total of " + input.size() + " messages"), consumer.describe());
    }

    @Test
    void fromBeginningAndFromOffsetWithPartitionAndOffsetPrinted() {
        String topic = "console-offsets";
        List<String> input = lines("line-", 50);
        // --sync: one send().get() per line; --timeout is linger.ms (1 s by default would make this 50 s).
        produce(topic, String.join("\n", input) + "\n", "--sync", "--timeout", "0").assertSuccess();

        Result all = consume(topic, "--from-beginning", "--max-messages", "50");
        assertEquals(0, all.exitCode(), all.describe());
        assertEquals(input, all.outLines(), all.describe());

        // read_committed: without transactions the last stable offset is the high watermark.
        Result tail = consume(topic, "--offset", "40", "--max-messages", "10", "--formatter-property",
                "print.offset=true", "--formatter-property", "print.partition=true", "--isolation-level",
                "read_committed");
        assertEquals(0, tail.exitCode(), tail.describe());
        List<String> expected = IntStream.range(40, 50)
                .mapToObj(i -> "Partition:0\tOffset:" + i + "\tline-" + i).collect(Collectors.toList());
        assertEquals(expected, tail.outLines(), tail.describe());
    }

    @Test
    void consumerStopsAtTimeoutAfterReadingEverything() {
        String topic = "console-timeout";
        produce(topic, "a\nb\nc\n").assertSuccess();
        Result consumer = ToolRunner.run("kafka-console-consumer", ConsoleConsumer::main, TIMEOUT,
                "--bootstrap-server", KRILL.bootstrapServers(), "--topic", topic, "--partition", "0",
                "--offset", "earliest", "--timeout-ms", "3000");
        // Without --max-messages the consumer ends on its idle timeout, having printed every record.
        assertEquals(List.of("a", "b", "c"), consumer.outLines(), consumer.describe());
        assertTrue(consumer.err().contains("Processed a total of 3 messages"), consumer.describe());
    }

    @Test
    void headersAndNullMarker() {
        String topic = "console-headers";
        String stdin = "h1:v1,h2:v2\tk1\tfirst\n"
                + "h3:v3\tNULL\tsecond\n"
                + "h4:v4\tk3\tNULL\n";
        produce(topic, stdin, "--reader-property", "parse.headers=true", "--reader-property", "parse.key=true",
                "--reader-property", "null.marker=NULL").assertSuccess();

        List<ConsumerRecord<String, String>> records = Clients.consume(KRILL.bootstrapServers(), topic, 0, 3);
        assertEquals(3, records.size());
        assertEquals(List.of("h1=v1", "h2=v2"), headers(records.get(0)));
        assertEquals("k1", records.get(0).key());
        assertEquals("first", records.get(0).value());
        assertEquals(null, records.get(1).key(), "null key through the null marker");
        assertEquals("second", records.get(1).value());
        assertEquals(null, records.get(2).value(), "null value (tombstone) through the null marker");

        Result consumer = consume(topic, "--offset", "earliest", "--max-messages", "3",
                "--formatter-property", "print.headers=true", "--formatter-property", "print.key=true",
                "--formatter-property", "null.literal=NULL");
        assertEquals(0, consumer.exitCode(), consumer.describe());
        assertEquals(List.of("h1:v1,h2:v2\tk1\tfirst", "h3:v3\tNULL\tsecond", "h4:v4\tk3\tNULL"), consumer.outLines(),
                consumer.describe());
    }

    private static List<String> headers(ConsumerRecord<String, String> record) {
        List<String> out = new ArrayList<>();
        for (Header h : record.headers()) {
            out.add(h.key() + "=" + new String(h.value(), StandardCharsets.UTF_8));
        }
        return out;
    }
}

package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.support.Clients;
import io.krill.compat.support.ToolRunner;
import io.krill.compat.support.ToolRunner.Result;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.tools.DeleteRecordsCommand;
import org.apache.kafka.tools.GetOffsetShell;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * kafka-delete-records.sh ({@code org.apache.kafka.tools.DeleteRecordsCommand} 4.4) with an offsets JSON
 * file: the tool reports the new low watermarks, and then the log start offset has moved for every
 * judge: ListOffsets earliest (Java consumer and GetOffsetShell), and a fetch below it is out of range.
 */
class DeleteRecordsCommandTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension().with("num.partitions", "2");

    @TempDir
    Path tmp;

    private Result deleteRecords(String json) throws IOException {
        Path file = tmp.resolve("offsets-" + System.nanoTime() + ".json");
        Files.writeString(file, json);
        return ToolRunner.run("kafka-delete-records", DeleteRecordsCommand::main, Duration.ofSeconds(60),
                "--bootstrap-server", KRILL.bootstrapServers(), "--offset-json-file", file.toString(),
                "--command-config", Clients.configFile(tmp, KRILL.bootstrapServers()).toString());
    }

    private static List<String> values(String prefix, int n) {
        return IntStream.range(0, n).mapToObj(i -> prefix + i).collect(Collectors.toList());
    }

    @Test
    void deleteBeforeOffsetAndUpToHighWatermark() throws Exception {
        String topic = "dr-topic";
        String bootstrap = KRILL.bootstrapServers();
        Clients.produce(bootstrap, topic, 0, values("p0-", 10));
        Clients.produce(bootstrap, topic, 1, values("p1-", 6));

        Result result = deleteRecords("{\"partitions\":[{\"topic\":\"" + topic + "\",\"partition\":0,\"offset\":4},"
                + "{\"topic\":\"" + topic + "\",\"partition\":1,\"offset\":-1}],\"version\":1}");
        assertEquals(0, result.exitCode(), result.describe());
        List<String> lines = result.outLines();
        assertEquals("Executing records delete operation", lines.get(0), result.describe());
        assertEquals("Records delete operation completed:", lines.get(1), result.describe());
        assertEquals(List.of("partition: " + topic + "-0\tlow_watermark: 4", "partition: " + topic + "-1\tlow_watermark: 6"),
                lines.subList(2, lines.size()).stream().sorted().toList(), result.describe());

        assertEquals(Map.of(0, 4L, 1, 6L), Clients.beginningOffsets(bootstrap, topic, 2), "earliest offsets");
        assertEquals(Map.of(0, 10L, 1, 6L), Clients.endOffsets(bootstrap, topic, 2), "end offsets unchanged");

        Result earliest = ToolRunner.run("kafka-get-offsets", GetOffsetShell::main, Duration.ofSeconds(60),
                "--bootstrap-server", bootstrap, "--topic", topic, "--time", "-2");
        assertEquals(List.of(topic + ":0:4", topic + ":1:6"), earliest.outLines(), earliest.describe());

        List<ConsumerRecord<String, String>> rest = Clients.consume(bootstrap, topic, 0, 6);
        assertEquals(values("p0-", 10).subList(4, 10), rest.stream().map(ConsumerRecord::value).toList());
        assertEquals(4L, rest.get(0).offset());

        // A fetch below the log start offset is out of range; auto.offset.reset=earliest lands on 4.
        TopicPartition tp0 = new TopicPartition(topic, 0);
        try (KafkaConsumer<String, String> consumer = Clients.consumer(bootstrap)) {
            consumer.assign(List.of(tp0));
            consumer.seek(tp0, 1);
            List<ConsumerRecord<String, String>> got = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (got.isEmpty() && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(got::add);
            }
            assertTrue(!got.isEmpty(), "records after reset");
            assertEquals(4L, got.get(0).offset(), "reset to the new log start offset");
        }

        // Appends go on at the old end offsets.
        assertEquals(10L, Clients.produce(bootstrap, topic, 0, List.of("after")).get(0).offset());
        assertEquals(6L, Clients.produce(bootstrap, topic, 1, List.of("after")).get(0).offset());
    }

    @Test
    void deleteBeyondHighWatermarkIsReportedPerPartition() throws Exception {
        String topic = "dr-beyond";
        String bootstrap = KRILL.bootstrapServers();
        Clients.produce(bootstrap, topic, 0, values("v", 3));
        Result result = deleteRecords("{\"partitions\":[{\"topic\":\"" + topic + "\",\"partition\":0,\"offset\":100}],"
                + "\"version\":1}");
        assertEquals(0, result.exitCode(), result.describe());
        assertTrue(result.outLines().stream().anyMatch(l -> l.startsWith("partition: " + topic + "-0\terror: ")
                        && l.contains("OffsetOutOfRangeException")),
                "OFFSET_OUT_OF_RANGE for an offset above the high watermark:\n" + result.describe());
        assertEquals(0L, Clients.beginningOffsets(bootstrap, topic, 1).get(0), "nothing deleted");
    }

    @Test
    void duplicatePartitionsAreRefusedByTheTool() throws Exception {
        Result result = deleteRecords("{\"partitions\":[{\"topic\":\"dr-dup\",\"partition\":0,\"offset\":1},"
                + "{\"topic\":\"dr-dup\",\"partition\":0,\"offset\":2}],\"version\":1}");
        assertEquals(1, result.exitCode(), result.describe());
        assertTrue(result.err().contains("duplicate") || result.out().contains("duplicate"), result.describe());
    }
}

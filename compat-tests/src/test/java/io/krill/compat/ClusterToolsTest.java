package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.krill.compat.support.Clients;
import io.krill.compat.support.ToolRunner;
import io.krill.compat.support.ToolRunner.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.tools.BrokerApiVersionsCommand;
import org.apache.kafka.tools.ClusterTool;
import org.apache.kafka.tools.LogDirsCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Cluster-level tools of Kafka 4.4: kafka-broker-api-versions.sh ({@code BrokerApiVersionsCommand}),
 * kafka-cluster.sh ({@code ClusterTool}) and kafka-log-dirs.sh ({@code LogDirsCommand}, DescribeLogDirs).
 */
class ClusterToolsTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension().with("num.partitions", "2");

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    /** One API in NodeApiVersions.toString: "Name(key): min to max [usable: v]" or "Name(key): UNSUPPORTED". */
    private static final Pattern API = Pattern.compile("^\\t?(\\w+)\\((\\d+)\\): (.*?),?$");

    @Test
    void brokerApiVersionsAreAllUsableByTheCurrentClient() {
        Result result = ToolRunner.run("kafka-broker-api-versions", BrokerApiVersionsCommand::main, TIMEOUT,
                "--bootstrap-server", KRILL.bootstrapServers()).assertSuccess();
        List<String> lines = result.outLines();
        assertTrue(lines.get(0).startsWith("127.0.0.1:" + KRILL.port() + " (id: 1 rack: null"),
                "the one broker, as Metadata names it:\n" + result.describe());
        List<String> advertised = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            Matcher m = API.matcher(line);
            if (!m.matches()) {
                continue;
            }
            String versions = m.group(3);
            if (versions.equals("UNSUPPORTED")) {
                continue;
            }
            advertised.add(m.group(1));
            // Everything the broker advertises overlaps the 4.4 client's range.
            assertTrue(versions.matches("\\d+( to \\d+)? \\[usable: \\d+\\]"), "usable version for " + line + "\n"
                    + result.describe());
        }
        for (String api : List.of("Produce", "Fetch", "ListOffsets", "Metadata", "ApiVersions", "InitProducerId")) {
            assertTrue(advertised.contains(api), api + " advertised and usable:\n" + result.describe());
        }
    }

    @Test
    void clusterIdMatchesTheBroker() {
        Result result = ToolRunner.run("kafka-cluster", ClusterTool::main, TIMEOUT, "cluster-id", "--bootstrap-server",
                KRILL.bootstrapServers()).assertSuccess();
        assertEquals(List.of("Cluster ID: " + KRILL.broker().metadata().image().clusterId()), result.outLines(),
                result.describe());
    }

    @Test
    void logDirsDescribeListsPartitionsWithTheirSizes() throws Exception {
        String topic = "logdirs-topic";
        Clients.produce(KRILL.bootstrapServers(), topic, 0, List.of("a", "b", "c"));
        Clients.produce(KRILL.bootstrapServers(), topic, 1, List.of("d"));
        Result result = ToolRunner.run("kafka-log-dirs", LogDirsCommand::main, TIMEOUT, "--bootstrap-server",
                KRILL.bootstrapServers(), "--describe", "--topic-list", topic).assertSuccess();
        List<String> lines = result.outLines();
        assertEquals("Querying brokers for log directories information", lines.get(0), result.describe());
        assertEquals("Received log directory information from brokers 1", lines.get(1), result.describe());
        JsonNode json = new ObjectMapper().readTree(lines.get(2));
        JsonNode broker = json.get("brokers").get(0);
        assertEquals(1, broker.get("broker").asInt(), result.describe());
        JsonNode logDir = broker.get("logDirs").get(0);
        assertEquals(KRILL.dataDir().toRealPath(), Path.of(logDir.get("logDir").asText()).toRealPath(), result.describe());
        assertTrue(logDir.get("error").isNull(), result.describe());
        List<String> partitions = new ArrayList<>();
        for (JsonNode p : logDir.get("partitions")) {
            partitions.add(p.get("partition").asText());
            Path segmentDir = KRILL.dataDir().resolve(p.get("partition").asText());
            long onDisk;
            try (var files = Files.list(segmentDir)) {
                onDisk = files.filter(f -> f.toString().endsWith(".log")).mapToLong(f -> f.toFile().length()).sum();
            }
            assertEquals(onDisk, p.get("size").asLong(), "size of " + p + " is its .log files");
            assertTrue(onDisk > 0, "records written to " + p);
            assertEquals(0, p.get("offsetLag").asLong(), result.describe());
        }
        assertEquals(List.of(topic + "-0", topic + "-1"), partitions.stream().sorted().toList(), result.describe());
    }
}

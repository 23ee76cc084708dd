package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.support.Clients;
import io.krill.compat.support.ToolRunner;
import io.krill.compat.support.ToolRunner.Result;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.tools.ConfigCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * kafka-configs.sh ({@code org.apache.kafka.tools.ConfigCommand} 4.4) on a topic and on a group
 * ({@code --entity-type groups}, KIP-848/KIP-932 group configs): describe, add and delete dynamic configs
 * (IncrementalAlterConfigs), describe --all, and a broker's configs. An altered
 * max.message.bytes must also change what the broker accepts.
 */
class ConfigCommandTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension().with("num.partitions", "1");

    @TempDir
    Path tmp;

    private Result configs(String... extra) {
        return ToolRunner.kafkaConfigs(tmp, KRILL.bootstrapServers(), extra);
    }

    /** "  name=value sensitive=false synonyms={...}" lines of a describe, as name -> value. */
    private static Map<String, String> entries(Result describe) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : describe.outLines()) {
            if (line.startsWith("  ")) {
                String entry = line.trim();
                int eq = entry.indexOf('=');
                int sp = entry.indexOf(" sensitive=");
                assertTrue(eq > 0 && sp > eq, "config line: " + line);
                out.put(entry.substring(0, eq), entry.substring(eq + 1, sp));
            }
        }
        return out;
    }

    @Test
    void describeAlterAndDeleteTopicConfigs() throws Exception {
        String topic = "cc-topic";
        String bootstrap = KRILL.bootstrapServers();
        Clients.produce(bootstrap, topic, 0, List.of("auto-created"));

        Result empty = configs("--entity-type", "topics", "--entity-name", topic, "--describe").assertSuccess();
        assertEquals("Dynamic configs for topic " + topic + " are:", empty.outLines().get(0), empty.describe());
        assertEquals(Map.of(), entries(empty), "no dynamic config on an auto-created topic:\n" + empty.describe());

        Result alter = configs("--entity-type", "topics", "--entity-name", topic, "--alter", "--add-config",
                "retention.ms=3600000,max.message.bytes=2048").assertSuccess();
        assertEquals(List.of("Completed updating config for topic " + topic + "."), alter.outLines(), alter.describe());

        Result described = configs("--entity-type", "topics", "--entity-name", topic, "--describe").assertSuccess();
        assertEquals(Map.of("retention.ms", "3600000", "max.message.bytes", "2048"), entries(described),
                described.describe());
        assertTrue(described.out().contains("DYNAMIC_TOPIC_CONFIG:retention.ms=3600000"),
                "synonyms name the dynamic topic config:\n" + described.describe());

        // The new limit is enforced: a 4 KiB record is too large, a small one still goes in.
        try (KafkaProducer<String, String> producer = Clients.producer(bootstrap, Map.of("linger.ms", "0",
                "retries", "0", "enable.idempotence", "false"))) {
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> producer.send(new ProducerRecord<>(topic, 0, "k", "x".repeat(4096))).get(60, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof RecordTooLargeException, "RecordTooLargeException, got " + e.getCause());
            producer.send(new ProducerRecord<>(topic, 0, "k", "small")).get(60, TimeUnit.SECONDS);
        }

        Result all = configs("--entity-type", "topics", "--entity-name", topic, "--describe", "--all").assertSuccess();
        assertEquals("All configs for topic " + topic + " are:", all.outLines().get(0), all.describe());
        Map<String, String> allEntries = entries(all);
        assertEquals("3600000", allEntries.get("retention.ms"), all.describe());
        assertEquals("delete", allEntries.get("cleanup.policy"), "defaults listed by --all:\n" + all.describe());
        assertTrue(allEntries.containsKey("segment.bytes"), all.describe());

        configs("--entity-type", "topics", "--entity-name", topic, "--alter", "--delete-config", "max.message.bytes")
                .assertSuccess();
        Result after = configs("--entity-type", "topics", "--entity-name", topic, "--describe").assertSuccess();
        assertEquals(Map.of("retention.ms", "3600000"), entries(after), after.describe());

        // --topic is the short form of --entity-type topics --entity-name.
        Result shortForm = configs("--topic", topic, "--describe").assertSuccess();
        assertEquals(entries(after), entries(shortForm), shortForm.describe());
    }

    @Test
    void invalidConfigValueIsRefused() {
        String topic = "cc-invalid";
        Clients.produce(KRILL.bootstrapServers(), topic, 0, List.of("x"));
        Result bad = configs("--entity-type", "topics", "--entity-name", topic, "--alter", "--add-config",
                "retention.ms=not-a-number");
        assertEquals(1, bad.exitCode(), bad.describe());
        assertTrue(bad.err().contains("InvalidConfigurationException"), "INVALID_CONFIG from the broker:\n"
                + bad.describe());
    }

    @Test
    void describeUnknownTopic() {
        // The tool lists topics (Metadata) first and does not ask for configs of a topic that is not there.
        Result unknown = configs("--entity-type", "topics", "--entity-name", "cc-no-such-topic", "--describe");
        assertEquals(0, unknown.exitCode(), unknown.describe());
        assertEquals(List.of("The topic 'cc-no-such-topic' doesn't exist and doesn't have dynamic config."),
                unknown.outLines(), unknown.describe());
        assertTrue(Clients.partitionsFor(KRILL.bootstrapServers(), "cc-no-such-topic").isEmpty(),
                "describing must not auto-create the topic");
    }

    @Test
    void describeAlterAndDeleteGroupConfigs() {
        String group = "cc-share-group";
        Result alter = configs("--entity-type", "groups", "--entity-name", group, "--alter", "--add-config",
                "share.auto.offset.reset=earliest,share.record.lock.duration.ms=20000").assertSuccess();
        assertTrue(alter.out().contains("Completed updating config for group " + group), alter.describe());

        Result described = configs("--entity-type", "groups", "--entity-name", group, "--describe").assertSuccess();
        assertEquals(Map.of("share.auto.offset.reset", "earliest", "share.record.lock.duration.ms", "20000"),
                entries(described), described.describe());
        assertTrue(described.out().contains("DYNAMIC_GROUP_CONFIG:share.auto.offset.reset=earliest"), described.describe());

        Result all = configs("--entity-type", "groups", "--entity-name", group, "--describe", "--all")
                .assertSuccess();
        Map<String, String> allEntries = entries(all);
        assertEquals("earliest", allEntries.get("share.auto.offset.reset"), all.describe());
        assertEquals("45000", allEntries.get("share.session.timeout.ms"), "broker defaults listed:\n" + all.describe());

        Result bad = configs("--entity-type", "groups", "--entity-name", group, "--alter", "--add-config",
                "share.session.timeout.ms=1000");
        assertEquals(1, bad.exitCode(), bad.describe());
        assertTrue(bad.err().contains("share.session.timeout.ms must be in the range 45000 to 60000 inclusive"),
                "INVALID_CONFIG with Kafka's message:\n" + bad.describe());

        configs("--entity-type", "groups", "--entity-name", group, "--alter", "--delete-config",
                "share.auto.offset.reset").assertSuccess();
        Result after = configs("--entity-type", "groups", "--entity-name", group, "--describe").assertSuccess();
        assertEquals(Map.of("share.record.lock.duration.ms", "20000"), entries(after), after.describe());
    }

    @Test
    void describeBrokerConfigs() {
        Result all = configs("--entity-type", "brokers", "--entity-name", "1", "--describe", "--all").assertSuccess();
        assertEquals("All configs for broker 1 are:", all.outLines().get(0), all.describe());
        Map<String, String> entries = entries(all);
        assertEquals("1", entries.get("node.id"), all.describe());
        assertTrue(entries.containsKey("log.retention.hours") || entries.containsKey("log.retention.ms"), all.describe());
    }
}

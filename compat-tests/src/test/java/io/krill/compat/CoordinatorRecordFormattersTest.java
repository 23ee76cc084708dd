package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.support.Clients;
import io.krill.compat.support.GroupCoordinatorRecordsFormatter;
import io.krill.compat.support.ToolRunner;
import io.krill.compat.support.ToolRunner.Result;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.tools.consumer.ConsoleConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Kafka 4.4's own formatters of the coordinators' internal topics, run in-process through
 * kafka-console-consumer {@code --formatter}, read what Krill writes to {@code __consumer_offsets}
 * ({@code OffsetsMessageFormatter}, {@code GroupMetadataMessageFormatter}) and {@code __transaction_state}
 * ({@code TransactionLogMessageFormatter}): offsets committed by a classic and a consumer-protocol group, the
 * classic group's metadata, and a committed transaction; a KIP-848 consumer group's and a share group's
 * records ({@code ShareGroupMessageFormatter}, and Kafka's decoding with every record type allowed,
 * {@link GroupCoordinatorRecordsFormatter}, as 4.4 has no formatter of consumer group records). A record they
 * misread fails the tool ("Could not read record"). One partition per internal topic, so everything is in
 * partition 0.
 */
class CoordinatorRecordFormattersTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension()
            .with("num.partitions", "1")
            .with("offsets.topic.num.partitions", "1")
            .with("transaction.state.log.num.partitions", "1")
            .with("group.initial.rebalance.delay.ms", "0");

    private static final Duration TIMEOUT = Duration.ofSeconds(90);
    private static final String TOPIC = "formatted";

    private static Result format(String topic, String formatter) {
        return ToolRunner.run("kafka-console-consumer", ConsoleConsumer::main, TIMEOUT, "--bootstrap-server",
                KRILL.bootstrapServers(), "--topic", topic, "--partition", "0", "--offset", "earliest",
                "--timeout-ms", "3000", "--formatter", formatter.contains(".") ? formatter
                        : "org.apache.kafka.tools.consumer." + formatter);
    }

    /** A share consumer of group {@code groupId} that polls until it got a record, then leaves. */
    private static void consumeWithShareGroup(String groupId) throws Exception {
        try (Admin admin = Admin.create(Clients.base(KRILL.bootstrapServers()))) {
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, groupId), List.of(
                    new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"),
                            AlterConfigOp.OpType.SET)))).all().get();
        }
        Properties props = Clients.base(KRILL.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        try (KafkaShareConsumer<String, String> consumer = new KafkaShareConsumer<>(props, new StringDeserializer(),
                new StringDeserializer())) {
            consumer.subscribe(List.of(TOPIC));
            long deadline = System.currentTimeMillis() + 30_000;
            int got = 0;
            while (got == 0 && System.currentTimeMillis() < deadline) {
                got = consumer.poll(Duration.ofMillis(200)).count();
            }
            assertTrue(got > 0, groupId + " got records");
        }
    }

    /** The records the formatter printed (one JSON object each, written back to back). */
    private static List<String> records(Result result) {
        return result.outLines().stream().flatMap(l -> Arrays.stream(l.split("(?=\\{\"key\":)")))
                .filter(r -> !r.isBlank()).toList();
    }

    /** The records of {@code groupId} the formatter printed: "type" or "type -" for a tombstone, in log order. */
    private static List<String> recordTypes(Result result, String groupId) {
        List<String> types = new ArrayList<>();
        for (String line : records(result)) {
            if (line.contains("\"groupId\":\"" + groupId + "\"")) {
                Matcher type = Pattern.compile("\"key\":\\{\"type\":(\\d+)").matcher(line);
                assertTrue(type.find(), line);
                types.add(type.group(1) + (line.contains("\"value\":null") ? " -" : ""));
            }
        }
        return types;
    }

    private static void commitWithGroup(String groupId, String protocol, long offset) {
        Properties props = Clients.base(KRILL.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                new StringDeserializer())) {
            consumer.subscribe(List.of(TOPIC));
            long deadline = System.currentTimeMillis() + 30_000;
            while (consumer.assignment().isEmpty() && System.currentTimeMillis() < deadline) {
                consumer.poll(Duration.ofMillis(200));
            }
            assertFalse(consumer.assignment().isEmpty(), groupId + " got its partition");
            consumer.commitSync(Map.of(new TopicPartition(TOPIC, 0), new OffsetAndMetadata(offset, "md-" + groupId)));
        }
    }

    @Test
    void kafkasFormattersReadOffsetsGroupsAndTransactions() throws Exception {
        Clients.produce(KRILL.bootstrapServers(), TOPIC, 0, List.of("a", "b", "c", "d", "e"));
        commitWithGroup("classic-group", "classic", 3);
        commitWithGroup("modern-group", "consumer", 4);
        consumeWithShareGroup("share-group");
        try (KafkaProducer<String, String> producer = Clients.producer(KRILL.bootstrapServers(),
                Map.of("transactional.id", "formatted-tx"))) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TOPIC, 0, "k", "in-tx"));
            producer.commitTransaction();
        }

        Result offsets = format("__consumer_offsets", "OffsetsMessageFormatter");
        assertEquals(0, offsets.exitCode(), offsets.describe());
        assertFalse(offsets.err().contains("Could not read record"), offsets.describe());
        assertTrue(offsets.out().contains("\"group\":\"classic-group\",\"topic\":\"formatted\",\"partition\":0"),
                offsets.describe());
        assertTrue(offsets.out().contains("\"group\":\"modern-group\",\"topic\":\"formatted\",\"partition\":0"),
                offsets.describe());
        assertTrue(offsets.outLines().stream().anyMatch(l -> l.contains("classic-group") && l.contains("\"offset\":3")
                && l.contains("\"metadata\":\"md-classic-group\"")), offsets.describe());
        assertTrue(offsets.outLines().stream().anyMatch(l -> l.contains("modern-group") && l.contains("\"offset\":4")),
                offsets.describe());

        Result groups = format("__consumer_offsets", "GroupMetadataMessageFormatter");
        assertEquals(0, groups.exitCode(), groups.describe());
        assertFalse(groups.err().contains("Could not read record"), groups.describe());
        assertTrue(groups.outLines().stream().anyMatch(l -> l.contains("{\"group\":\"classic-group\"}")
                && l.contains("\"protocolType\":\"consumer\"") && l.contains("\"protocol\":\"range\"")), groups.describe());
        assertFalse(groups.out().contains("\"groupId\":\"modern-group\""),
                "4.4's GroupMetadataMessageFormatter prints classic groups only: " + groups.describe());

        // Every record decoded by Kafka's serde, none skipped: as many lines as records.
        Result all = format("__consumer_offsets", GroupCoordinatorRecordsFormatter.class.getName());
        assertEquals(0, all.exitCode(), all.describe());
        assertFalse(all.err().contains("Could not read record"), all.describe());
        Matcher processed = Pattern.compile("Processed a total of (\\d+) messages").matcher(all.err());
        assertTrue(processed.find(), all.describe());
        assertEquals(Integer.parseInt(processed.group(1)), records(all).size(), all.describe());
        List<String> modern = recordTypes(all, "modern-group");
        // The join: member metadata, group epoch, target, target metadata, current assignment, as Kafka writes
        // them; at the close, the leave: the member's current assignment, target and metadata tombstoned.
        assertEquals(List.of("5", "3", "7", "6", "8"), modern.subList(0, 5), all.describe());
        int leave = modern.indexOf("8 -");
        assertTrue(leave > 0 && modern.subList(leave, leave + 4).equals(List.of("8 -", "7 -", "5 -", "3")),
                "the leave: " + modern);
        assertTrue(records(all).stream().anyMatch(l -> l.contains("\"groupId\":\"modern-group\"")
                && l.contains("\"assignedPartitions\":[{\"topicId\"")), all.describe());

        Result share = format("__consumer_offsets", "ShareGroupMessageFormatter");
        assertEquals(0, share.exitCode(), share.describe());
        assertFalse(share.err().contains("Could not read record"), share.describe());
        List<String> shareTypes = recordTypes(share, "share-group");
        assertEquals(List.of("10", "11", "13", "12", "14", "15"), shareTypes.subList(0, 6), share.describe());
        assertTrue(records(share).stream().anyMatch(l -> l.contains("share-group")
                && l.contains("\"initializedTopics\":[{") && l.contains("\"topicName\":\"formatted\"")),
                share.describe());
        assertTrue(shareTypes.containsAll(List.of("14 -", "13 -", "10 -")), "the share member's leave: " + shareTypes);

        Result txns = format("__transaction_state", "TransactionLogMessageFormatter");
        assertEquals(0, txns.exitCode(), txns.describe());
        assertFalse(txns.err().contains("Could not read record"), txns.describe());
        List<String> txnLines = txns.outLines().stream().filter(l -> l.contains("\"transactionalId\":\"formatted-tx\""))
                .toList();
        assertFalse(txnLines.isEmpty(), txns.describe());
        // The formatter names the state it reads by Kafka's id.
        for (String state : List.of("Empty", "Ongoing", "PrepareCommit", "CompleteCommit")) {
            assertTrue(txnLines.stream().anyMatch(l -> l.contains("\"transactionStatus\":\"" + state + "\"")),
                    state + ": " + txns.describe());
        }
        assertTrue(txnLines.stream().anyMatch(l -> l.contains("\"topic\":\"formatted\"")), txns.describe());
    }
}

package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.support.Clients;
import io.krill.compat.support.ToolRunner;
import io.krill.compat.support.ToolRunner.Result;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
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
 * classic group's metadata, and a committed transaction. A record they misread fails the tool ("Could not
 * read record"). One partition per internal topic, so everything is in partition 0.
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
                "--timeout-ms", "3000", "--formatter", "org.apache.kafka.tools.consumer." + formatter);
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
    void kafkasFormattersReadOffsetsGroupsAndTransactions() {
        Clients.produce(KRILL.bootstrapServers(), TOPIC, 0, List.of("a", "b", "c", "d", "e"));
        commitWithGroup("classic-group", "classic", 3);
        commitWithGroup("modern-group", "consumer", 4);
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
        assertFalse(groups.out().contains("\"group\":\"modern-group\""),
                "Krill's consumer-protocol group records are of a type Kafka's formatter skips: " + groups.describe());

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

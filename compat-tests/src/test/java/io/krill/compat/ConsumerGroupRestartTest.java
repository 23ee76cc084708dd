package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.Broker;
import io.krill.broker.config.BrokerConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Committed offsets are records in {@code __consumer_offsets}: they survive a broker restart on the
 * same data folder, and a consumer of the group started afterwards resumes where the group committed
 * (not at auto.offset.reset).
 */
class ConsumerGroupRestartTest {
    private RestartableBroker krill;

    @BeforeEach
    void start() throws Exception {
        krill = new RestartableBroker(Map.of("num.partitions", "3", "group.initial.rebalance.delay.ms", "0"));
    }

    @AfterEach
    void stop() {
        krill.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"classic", "consumer"})
    void committedOffsetsSurviveARestartAndTheGroupResumesThere(String protocol) throws Exception {
        String topic = "restart-topic";
        String group = "restart-group";
        ConsumerGroupTest.produce(krill.bootstrapServers(), topic, 0, 300);

        Map<TopicPartition, Long> committed = new HashMap<>();
        try (KafkaConsumer<String, String> consumer = consumer(krill.bootstrapServers(), group, protocol)) {
            consumer.subscribe(List.of(topic));
            int read = 0;
            long deadline = System.currentTimeMillis() + 60_000;
            while (read < 300 && System.currentTimeMillis() < deadline) {
                read += consumer.poll(Duration.ofMillis(200)).count();
            }
            assertEquals(300, read);
            // Commit a point in the middle of each partition, with metadata, to see exactly that come back.
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            for (TopicPartition tp : consumer.assignment()) {
                long middle = consumer.position(tp) / 2;
                offsets.put(tp, new OffsetAndMetadata(middle, "half-way"));
                committed.put(tp, middle);
            }
            consumer.commitSync(offsets);
        }
        assertEquals(3, committed.size());

        krill.restart();
        ConsumerGroupTest.produce(krill.bootstrapServers(), topic, 300, 30);

        try (KafkaConsumer<String, String> consumer = consumer(krill.bootstrapServers(), group, protocol)) {
            Set<TopicPartition> partitions = committed.keySet();
            Map<TopicPartition, OffsetAndMetadata> fetched = consumer.committed(partitions, Duration.ofSeconds(30));
            for (TopicPartition tp : partitions) {
                assertEquals(committed.get(tp), fetched.get(tp).offset(), "committed offset of " + tp);
                assertEquals("half-way", fetched.get(tp).metadata());
            }
            consumer.subscribe(List.of(topic));
            Map<TopicPartition, Long> firstSeen = new HashMap<>();
            Set<String> values = new HashSet<>();
            List<ConsumerRecord<String, String>> records = new ArrayList<>();
            long expected = 0;
            for (TopicPartition tp : partitions) {
                expected += consumer.endOffsets(List.of(tp)).get(tp) - committed.get(tp);
            }
            long deadline = System.currentTimeMillis() + 60_000;
            while (records.size() < expected && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    records.add(r);
                    firstSeen.putIfAbsent(new TopicPartition(r.topic(), r.partition()), r.offset());
                    assertTrue(values.add(r.value()), "read once: " + r.value());
                }
            }
            assertEquals(expected, records.size(), "resumed at the committed offsets and read to the end");
            for (TopicPartition tp : partitions) {
                assertEquals(committed.get(tp), firstSeen.get(tp), "first offset read from " + tp);
            }
            consumer.commitSync();
        }

        krill.restart();
        try (KafkaConsumer<String, String> consumer = consumer(krill.bootstrapServers(), group, protocol)) {
            Map<TopicPartition, OffsetAndMetadata> fetched = consumer.committed(committed.keySet(), Duration.ofSeconds(30));
            long total = 0;
            for (OffsetAndMetadata o : fetched.values()) {
                total += o.offset();
            }
            assertEquals(330, total, "the second commit (to the end) survived the second restart");
        }
    }

    private static KafkaConsumer<String, String> consumer(String bootstrap, String group, String protocol) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        return new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
    }

    /** One in-process broker that can be stopped and started again on the same data folder. */
    static final class RestartableBroker implements AutoCloseable {
        private final Path dataDir;
        private final Map<String, String> props = new HashMap<>();
        private Broker broker;

        RestartableBroker(Map<String, String> overrides) throws Exception {
            dataDir = Files.createTempDirectory("krill-compat-restart");
            props.put("node.id", "1");
            props.put("listeners", "PLAINTEXT://127.0.0.1:0");
            props.put("log.dirs", dataDir.toString());
            props.put("num.io.threads", "2");
            props.put("num.network.threads", "2");
            props.putAll(overrides);
            broker = Broker.start(BrokerConfig.from(props));
        }

        String bootstrapServers() {
            return "127.0.0.1:" + broker.boundAddresses().get(0).getPort();
        }

        void restart() throws Exception {
            broker.close();
            broker = Broker.start(BrokerConfig.from(props));
        }

        @Override
        public void close() {
            try {
                broker.close();
            } finally {
                try (Stream<Path> paths = Files.walk(dataDir)) {
                    paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
    }
}

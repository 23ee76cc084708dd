package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.support.Clients;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Stock KafkaConsumers (kafka-clients 4.4) with group.protocol=consumer (KIP-848): the coordinator
 * assigns; two consumers split a 6-partition topic and read every record once; when one leaves the
 * other gets every partition; offsets are committed and the group lists as type consumer.
 */
class ConsumerGroupProtocolTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension().with("num.partitions", "6");

    private static final Duration WAIT = Duration.ofSeconds(60);

    /** A consumer polling on its own thread, recording what it read and its assignment. */
    private static final class Poller implements AutoCloseable {
        final KafkaConsumer<String, String> consumer;
        final Map<String, Integer> seen;
        final AtomicBoolean stop = new AtomicBoolean();
        volatile Set<TopicPartition> assignment = Set.of();
        final Thread thread;

        Poller(String group, String topic, Map<String, Integer> seen) {
            this.seen = seen;
            Properties props = Clients.base(KRILL.bootstrapServers());
            props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
            props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
            props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
            consumer = new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
            consumer.subscribe(List.of(topic));
            thread = new Thread(() -> {
                while (!stop.get()) {
                    consumer.poll(Duration.ofMillis(100)).forEach(r -> seen.merge(r.value(), 1, Integer::sum));
                    consumer.commitSync();
                    assignment = Set.copyOf(consumer.assignment());
                }
                consumer.close();
            });
            thread.start();
        }

        @Override
        public void close() throws InterruptedException {
            stop.set(true);
            thread.join(30_000);
        }
    }

    private static void produce(String topic, int from, int to) throws Exception {
        try (KafkaProducer<String, String> producer = Clients.producer(KRILL.bootstrapServers(), Map.of())) {
            for (int i = from; i < to; i++) {
                producer.send(new ProducerRecord<>(topic, i % 6, "k" + i, "v" + i));
            }
            producer.flush();
        }
    }

    private static void await(String what, java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(100);
        }
    }

    @Test
    void twoConsumersSplitSixPartitionsThenOneTakesAll() throws Exception {
        String topic = "kip848-topic";
        String group = "kip848-group";
        produce(topic, 0, 600);
        Map<String, Integer> seen = new ConcurrentHashMap<>();
        Poller a = new Poller(group, topic, seen);
        Poller b = new Poller(group, topic, seen);
        try {
            await("3 + 3 partitions", () -> a.assignment.size() == 3 && b.assignment.size() == 3);
            Set<TopicPartition> union = new HashSet<>(a.assignment);
            union.addAll(b.assignment);
            assertEquals(6, union.size());
            produce(topic, 600, 1200);
            await("1200 records", () -> seen.size() == 1200);
            assertTrue(seen.values().stream().allMatch(n -> n == 1), "every record read once");

            try (Admin admin = Admin.create(Clients.base(KRILL.bootstrapServers()))) {
                List<GroupListing> groups = new ArrayList<>(admin.listGroups(
                        new ListGroupsOptions().withTypes(Set.of(GroupType.CONSUMER))).all().get());
                assertTrue(groups.stream().anyMatch(g -> g.groupId().equals(group)), groups.toString());
            }

            a.close();
            await("6 partitions to the survivor", () -> b.assignment.size() == 6);
            produce(topic, 1200, 1800);
            await("1800 records", () -> seen.size() == 1800);
            assertTrue(seen.values().stream().allMatch(n -> n == 1), "every record read once");
        } finally {
            a.close();
            b.close();
        }
        try (Admin admin = Admin.create(Clients.base(KRILL.bootstrapServers()))) {
            Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get();
            long total = offsets.values().stream().mapToLong(OffsetAndMetadata::offset).sum();
            assertEquals(1800, total, offsets.toString());
        }
    }
}

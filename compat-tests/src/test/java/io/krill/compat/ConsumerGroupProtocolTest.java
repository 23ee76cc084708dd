package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.support.Clients;
import io.krill.compat.support.ToolRunner;
import io.krill.compat.support.ToolRunner.Result;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.tools.consumer.group.ConsumerGroupCommand;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Stock KafkaConsumers (kafka-clients 4.4) with group.protocol=consumer (KIP-848): the coordinator
 * assigns; two consumers split a 6-partition topic and read every record once; when one leaves the
 * other gets every partition; offsets are committed and the group lists as type consumer. Admin's
 * describeConsumerGroups (ConsumerGroupDescribe), listGroups/listConsumerGroups and kafka-consumer-groups
 * --describe --members see such a group as type consumer, Stable, with both members' assignments.
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
                    consumer.commitSync(Duration.ofSeconds(30));
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
            if (thread.isAlive()) {
                throw new AssertionError("the polling thread did not stop within 30 s");
            }
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

    private static void await(String what, java.util.function.BooleanSupplier condition) {
        Awaitility.await(what).atMost(WAIT).pollInterval(Duration.ofMillis(100)).until(condition::getAsBoolean);
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
                        new ListGroupsOptions().withTypes(Set.of(GroupType.CONSUMER))).all().get(30, TimeUnit.SECONDS));
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
                    .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            long total = offsets.values().stream().mapToLong(OffsetAndMetadata::offset).sum();
            assertEquals(1800, total, offsets.toString());
        }
    }

    @Test
    void adminAndToolDescribeAConsumerProtocolGroup() throws Exception {
        String topic = "kip848-describe-topic";
        String group = "kip848-describe-group";
        produce(topic, 0, 60);
        Map<String, Integer> seen = new ConcurrentHashMap<>();
        Poller a = new Poller(group, topic, seen);
        Poller b = new Poller(group, topic, seen);
        try (Admin admin = Admin.create(Clients.base(KRILL.bootstrapServers()))) {
            await("3 + 3 partitions", () -> a.assignment.size() == 3 && b.assignment.size() == 3);
            ConsumerGroupDescription[] holder = new ConsumerGroupDescription[1];
            await("a stable group", () -> {
                try {
                    holder[0] = admin.describeConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS).get(group);
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
                return holder[0].groupState() == GroupState.STABLE;
            });
            ConsumerGroupDescription description = holder[0];
            assertEquals(GroupType.CONSUMER, description.type(), description.toString());
            assertEquals(2, description.members().size(), description.toString());
            assertEquals("uniform", description.partitionAssignor(), description.toString());
            assertTrue(description.groupEpoch().orElse(-1) > 0, description.toString());
            assertEquals(description.groupEpoch(), description.targetAssignmentEpoch(), description.toString());
            Set<TopicPartition> described = new HashSet<>();
            for (MemberDescription member : description.members()) {
                assertEquals(3, member.assignment().topicPartitions().size(), description.toString());
                assertEquals(member.assignment().topicPartitions(),
                        member.targetAssignment().orElseThrow().topicPartitions(), description.toString());
                assertEquals(description.groupEpoch(), member.memberEpoch(), description.toString());
                described.addAll(member.assignment().topicPartitions());
            }
            Set<TopicPartition> expected = new HashSet<>(a.assignment);
            expected.addAll(b.assignment);
            assertEquals(expected, described);
            assertEquals(6, described.size());

            List<GroupListing> groups = new ArrayList<>(admin.listGroups().all().get(30, TimeUnit.SECONDS));
            GroupListing listing = groups.stream().filter(g -> g.groupId().equals(group)).findFirst()
                    .orElseThrow(() -> new AssertionError(groups.toString()));
            assertEquals(GroupType.CONSUMER, listing.type().orElseThrow(), groups.toString());
            assertEquals(GroupState.STABLE, listing.groupState().orElseThrow(), groups.toString());
            List<ConsumerGroupListing> consumerGroups = new ArrayList<>(admin.listConsumerGroups().all().get(30, TimeUnit.SECONDS));
            assertTrue(consumerGroups.stream().anyMatch(g -> g.groupId().equals(group)), consumerGroups.toString());

            Result members = ToolRunner.run("kafka-consumer-groups", ConsumerGroupCommand::main, WAIT,
                    "--bootstrap-server", KRILL.bootstrapServers(), "--describe", "--group", group, "--members")
                    .assertSuccess();
            List<String> rows = members.outLines().stream().filter(l -> l.trim().startsWith(group + " ")).toList();
            assertEquals(2, rows.size(), members.describe());
            Result state = ToolRunner.run("kafka-consumer-groups", ConsumerGroupCommand::main, WAIT,
                    "--bootstrap-server", KRILL.bootstrapServers(), "--describe", "--group", group, "--state")
                    .assertSuccess();
            assertTrue(state.out().contains("Stable"), state.describe());
            assertTrue(state.out().contains("uniform"), state.describe());
        } finally {
            a.close();
            b.close();
        }
    }
}

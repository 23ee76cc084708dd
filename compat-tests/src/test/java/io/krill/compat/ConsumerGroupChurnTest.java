package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.ConsumerGroupTest.PollingConsumer;
import io.krill.compat.support.Clients;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Membership churn while records flow: consumers join one after another, some leave, one dies
 * without leaving, another joins late. Every record produced meanwhile is consumed at least once
 * (commits after each poll), every member that joined was given partitions, and once the churn is over
 * the group settles: Stable, with exactly the members left, which hold disjoint partitions covering the
 * topic. Every wait is bounded (Awaitility); nothing is timed.
 */
class ConsumerGroupChurnTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension()
            .with("num.partitions", "12")
            .with("group.initial.rebalance.delay.ms", "200");

    @Test
    void recordsAreConsumedAtLeastOnceThroughJoinsLeavesAndFailures() throws Exception {
        String topic = "churn";
        String group = "churn-group";
        ConsumerGroupTest.produce(KRILL.bootstrapServers(), topic, 0, 1);
        Consumer<Properties> shortSession = props -> {
            props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "6000");
            props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "500");
        };
        List<PollingConsumer> all = new ArrayList<>();
        int count = 6000;
        Properties producerProps = new Properties();
        producerProps.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KRILL.bootstrapServers());
        producerProps.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps, new StringSerializer(),
                new StringSerializer())) {
            List<Future<?>> acks = new ArrayList<>();
            int nextConsumerAtStep = 1;
            for (int i = 1; i <= count; i++) {
                acks.add(producer.send(new ProducerRecord<>(topic, "key-" + i, "value-" + i)));
                if (i % 100 == 0) {
                    Thread.sleep(50); // paces the producer: about 6 s of production, for the churn to overlap
                    int step = i / 100;
                    if (step == nextConsumerAtStep && all.size() < 6) {
                        all.add(new PollingConsumer(KRILL.bootstrapServers(), group, topic, shortSession).commitEachPoll());
                        nextConsumerAtStep += 4;
                    }
                    if (step == 30) {
                        all.get(0).close(); // leaves the group
                        all.get(1).close(CloseOptions.groupMembershipOperation(
                                CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP)); // dies: session expiry
                    }
                    if (step == 40) {
                        all.add(new PollingConsumer(KRILL.bootstrapServers(), group, topic, shortSession).commitEachPoll());
                    }
                }
            }
            for (Future<?> ack : acks) {
                ack.get(30, TimeUnit.SECONDS);
            }
        }
        assertEquals(7, all.size(), "six consumers joined during production and one after the leaves");
        List<PollingConsumer> alive = all.subList(2, all.size());
        try {
            ConsumerGroupTest.await(() -> {
                Set<String> seen = new HashSet<>();
                for (PollingConsumer c : all) {
                    for (ConsumerRecord<String, String> r : c.records) {
                        seen.add(r.value());
                    }
                }
                return seen.size() == count + 1;
            }, "every record consumed at least once");
            ConsumerGroupTest.await(() -> {
                Set<TopicPartition> owned = new HashSet<>();
                int total = 0;
                for (PollingConsumer c : alive) {
                    Set<TopicPartition> assigned = c.assignment();
                    total += assigned.size();
                    owned.addAll(assigned);
                }
                return total == 12 && owned.size() == 12;
            }, "the " + alive.size() + " remaining members own the 12 partitions, each once");
            for (int i = 0; i < all.size(); i++) {
                assertTrue(all.get(i).assignedCalls.get() > 0, "member " + i + " was given partitions");
            }
            try (Admin admin = Admin.create(Clients.base(KRILL.bootstrapServers()))) {
                ConsumerGroupTest.await(() -> {
                    ConsumerGroupDescription d = describe(admin, group);
                    return d.groupState() == GroupState.STABLE && d.members().size() == alive.size();
                }, "the group Stable with its " + alive.size() + " remaining members (every rebalance completed)");
                Set<TopicPartition> described = new HashSet<>();
                for (MemberDescription m : describe(admin, group).members()) {
                    described.addAll(m.assignment().topicPartitions());
                }
                assertEquals(12, described.size(), "the coordinator's view: all 12 partitions assigned");
            }
            int min = Integer.MAX_VALUE;
            int max = 0;
            for (PollingConsumer c : alive) {
                min = Math.min(min, c.assignment().size());
                max = Math.max(max, c.assignment().size());
            }
            assertTrue(max - min <= 1, "range assignment is balanced: " + min + ".." + max);
        } finally {
            all.forEach(PollingConsumer::close);
        }
    }

    private static ConsumerGroupDescription describe(Admin admin, String group) {
        try {
            return admin.describeConsumerGroups(List.of(group)).describedGroups().get(group).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("describing " + group, e);
        }
    }
}

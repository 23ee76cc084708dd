package io.krill.compat;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.support.Clients;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.SubscriptionPattern;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InvalidRegularExpression;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * KIP-848 broker-side regular expressions with the stock 4.4 consumer ({@code subscribe(SubscriptionPattern)}):
 * the coordinator resolves the RE2 expression against the topics (whole names, internal topics never),
 * assigns what matches, and a topic created later that matches is assigned too; a topic that does not
 * match is not; an invalid expression fails the consumer with InvalidRegularExpression.
 */
class ConsumerGroupRegexTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension().with("num.partitions", "2");

    private static final Duration WAIT = Duration.ofSeconds(60);

    private static KafkaConsumer<String, String> consumer(String group) {
        Properties props = Clients.base(KRILL.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        return new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
    }

    private static Admin admin() {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KRILL.bootstrapServers());
        return Admin.create(props);
    }

    @Test
    void aPatternSubscriptionGetsTheMatchingTopicsAndThoseCreatedLater() throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic("orders-eu", 2, (short) 1), new NewTopic("orders-us", 2, (short) 1),
                    new NewTopic("audit-orders", 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        Clients.produce(KRILL.bootstrapServers(), "orders-eu", 0, List.of("eu-1", "eu-2"));
        Clients.produce(KRILL.bootstrapServers(), "orders-us", 1, List.of("us-1"));
        Clients.produce(KRILL.bootstrapServers(), "audit-orders", 0, List.of("audit-1"));
        Map<String, String> seen = new ConcurrentHashMap<>();
        try (KafkaConsumer<String, String> consumer = consumer("regex-group")) {
            consumer.subscribe(new SubscriptionPattern("orders-.*"));
            await().atMost(WAIT).until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> seen.put(r.value(), r.topic()));
                return seen.size() >= 3;
            });
            assertEquals(Map.of("eu-1", "orders-eu", "eu-2", "orders-eu", "us-1", "orders-us"), seen,
                    "the matching topics, whole names only: not audit-orders");

            try (Admin admin = admin()) {
                admin.createTopics(List.of(new NewTopic("orders-asia", 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
            }
            Clients.produce(KRILL.bootstrapServers(), "orders-asia", 1, List.of("asia-1"));
            await().atMost(WAIT).until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> seen.put(r.value(), r.topic()));
                return seen.containsKey("asia-1");
            });
            assertEquals("orders-asia", seen.get("asia-1"));
            assertTrue(consumer.assignment().stream().noneMatch(tp -> tp.topic().startsWith("__")
                    || tp.topic().equals("audit-orders")), () -> "assigned " + consumer.assignment());
            assertEquals(Set.of("orders-eu", "orders-us", "orders-asia"), topicsOf(consumer));

            try (Admin admin = admin()) {
                ConsumerGroupDescription group = admin.describeConsumerGroups(List.of("regex-group"))
                        .describedGroups().get("regex-group").get(30, TimeUnit.SECONDS);
                assertEquals(1, group.members().size());
                assertEquals(6, group.members().iterator().next().assignment().topicPartitions().size());
            }
        }
    }

    private static Set<String> topicsOf(KafkaConsumer<String, String> consumer) {
        Set<String> topics = new java.util.TreeSet<>();
        consumer.assignment().forEach(tp -> topics.add(tp.topic()));
        return topics;
    }

    @Test
    void anInvalidExpressionFailsTheConsumer() {
        try (KafkaConsumer<String, String> consumer = consumer("bad-regex-group")) {
            consumer.subscribe(new SubscriptionPattern("orders-(unclosed"));
            KafkaException failure = assertThrows(KafkaException.class, () -> {
                long deadline = System.nanoTime() + WAIT.toNanos();
                while (System.nanoTime() < deadline) {
                    consumer.poll(Duration.ofMillis(200));
                }
            });
            assertInstanceOf(InvalidRegularExpression.class, failure, failure.toString());
        }
    }
}

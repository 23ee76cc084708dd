package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.support.Clients;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Stock KafkaShareConsumers (kafka-clients 4.4, KIP-932) against one Krill broker: several consumers share
 * one partition and no record is handed to two of them at once; explicit acknowledgement with release
 * (redelivered with the next delivery count) and reject (never again); an unacknowledged record is
 * redelivered to another consumer once its acquisition lock ends; read_committed share groups never see
 * an aborted record.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ShareConsumerTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension();

    private static final Duration WAIT = Duration.ofSeconds(60);

    private static void createTopic(String topic, int partitions) throws Exception {
        try (Admin admin = Admin.create(Clients.base(KRILL.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
    }

    /** Sets group configs (ConfigResource GROUP), as kafka-configs --entity-type groups does. */
    static void groupConfigs(String bootstrap, String group, Map<String, String> configs) throws Exception {
        try (Admin admin = Admin.create(Clients.base(bootstrap))) {
            List<AlterConfigOp> ops = new ArrayList<>();
            configs.forEach((k, v) -> ops.add(new AlterConfigOp(new ConfigEntry(k, v), AlterConfigOp.OpType.SET)));
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group), ops))
                    .all().get(30, TimeUnit.SECONDS);
        }
    }

    private static void produce(String topic, int partition, int from, int count) {
        try (KafkaProducer<String, String> producer = Clients.producer(KRILL.bootstrapServers(), Map.of())) {
            for (int i = from; i < from + count; i++) {
                producer.send(new ProducerRecord<>(topic, partition, "k" + i, "v" + i));
            }
            producer.flush();
        }
    }

    static KafkaShareConsumer<String, String> shareConsumer(String bootstrap, String group, String ackMode) {
        Properties props = Clients.base(bootstrap);
        props.put("group.id", group);
        props.put("share.acknowledgement.mode", ackMode);
        props.put("max.poll.records", "100");
        return new KafkaShareConsumer<>(props, new StringDeserializer(), new StringDeserializer());
    }

    /** A share consumer polling on its own thread (implicit acknowledgement), noting what it got. */
    private static final class Poller implements AutoCloseable {
        final Map<String, Integer> got = new ConcurrentHashMap<>();
        final AtomicBoolean stop = new AtomicBoolean();
        final Thread thread;

        Poller(String group, String topic, Map<String, String> owners, List<String> doubles) {
            thread = new Thread(() -> {
                try (KafkaShareConsumer<String, String> consumer = shareConsumer(KRILL.bootstrapServers(), group,
                        "implicit")) {
                    consumer.subscribe(List.of(topic));
                    String me = Thread.currentThread().getName();
                    while (!stop.get()) {
                        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                            got.merge(r.value(), 1, Integer::sum);
                            String previous = owners.putIfAbsent(r.value(), me);
                            if (previous != null) {
                                doubles.add(r.value() + " to " + previous + " and " + me);
                            }
                        }
                    }
                }
            }, "share-poller-" + System.nanoTime());
            thread.start();
        }

        @Override
        public void close() throws InterruptedException {
            stop.set(true);
            thread.join(30_000);
        }
    }

    @Test
    void severalConsumersShareOnePartitionAndEachRecordGoesToOneOfThem() throws Exception {
        String topic = "share-one-partition";
        String group = "share-g1";
        createTopic(topic, 1);
        groupConfigs(KRILL.bootstrapServers(), group, Map.of("share.auto.offset.reset", "earliest"));
        produce(topic, 0, 0, 3_000);
        Map<String, String> owners = new ConcurrentHashMap<>();
        List<String> doubles = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Poller> pollers = List.of(new Poller(group, topic, owners, doubles),
                new Poller(group, topic, owners, doubles), new Poller(group, topic, owners, doubles));
        try {
            Awaitility.await().atMost(WAIT).until(() -> owners.size() == 3_000);
            produce(topic, 0, 3_000, 1_000); // records arriving while the consumers wait
            Awaitility.await().atMost(WAIT).until(() -> owners.size() == 4_000);
        } finally {
            for (Poller poller : pollers) {
                poller.close();
            }
        }
        assertEquals(List.of(), doubles, "no record delivered twice (no failure, implicit acknowledgement)");
        long sharing = pollers.stream().filter(p -> !p.got.isEmpty()).count();
        assertTrue(sharing >= 2, "one partition shared by several consumers: " + pollers.stream()
                .map(p -> p.got.size()).toList());
    }

    @Test
    void releasedRecordsComeBackWithTheNextDeliveryCountAndRejectedOnesNever() throws Exception {
        String topic = "share-explicit";
        String group = "share-g2";
        createTopic(topic, 1);
        groupConfigs(KRILL.bootstrapServers(), group, Map.of("share.auto.offset.reset", "earliest"));
        produce(topic, 0, 0, 10);
        Map<String, List<Short>> deliveries = new ConcurrentHashMap<>();
        try (KafkaShareConsumer<String, String> consumer = shareConsumer(KRILL.bootstrapServers(), group, "explicit")) {
            consumer.subscribe(List.of(topic));
            Set<String> accepted = ConcurrentHashMap.newKeySet();
            Awaitility.await().atMost(WAIT).until(() -> {
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
                for (ConsumerRecord<String, String> r : records) {
                    short count = r.deliveryCount().orElseThrow();
                    deliveries.computeIfAbsent(r.value(), v -> new ArrayList<>()).add(count);
                    int n = Integer.parseInt(r.value().substring(1));
                    if (n % 3 == 0 && count == 1) {
                        consumer.acknowledge(r, AcknowledgeType.RELEASE);
                    } else if (n % 3 == 1) {
                        consumer.acknowledge(r, AcknowledgeType.REJECT);
                    } else {
                        consumer.acknowledge(r, AcknowledgeType.ACCEPT);
                        accepted.add(r.value());
                    }
                }
                if (!records.isEmpty()) {
                    consumer.commitSync(Duration.ofSeconds(30)).forEach((tp, error) ->
                            assertTrue(error.isEmpty(), "acknowledgement of " + tp + " failed: " + error));
                }
                return accepted.size() == 7; // n % 3 == 0 (4, on their second delivery) and n % 3 == 2 (3)
            });
            // nothing further comes: rejected records are archived, accepted ones done
            ConsumerRecords<String, String> after = consumer.poll(Duration.ofSeconds(2));
            assertEquals(0, after.count(), "nothing left to deliver");
        }
        for (int n = 0; n < 10; n++) {
            List<Short> counts = deliveries.get("v" + n);
            List<Short> expected = n % 3 == 0 ? List.of((short) 1, (short) 2) : List.of((short) 1);
            assertEquals(expected, counts, "deliveries of v" + n);
        }
    }

    @Test
    void aRecordNotAcknowledgedIsRedeliveredToAnotherConsumerWhenItsLockEnds() throws Exception {
        String topic = "share-lock";
        String group = "share-g3";
        createTopic(topic, 1);
        groupConfigs(KRILL.bootstrapServers(), group, Map.of("share.auto.offset.reset", "earliest",
                "share.record.lock.duration.ms", "15000"));
        produce(topic, 0, 0, 5);
        try (KafkaShareConsumer<String, String> stalled = shareConsumer(KRILL.bootstrapServers(), group, "explicit");
             KafkaShareConsumer<String, String> other = shareConsumer(KRILL.bootstrapServers(), group, "explicit")) {
            stalled.subscribe(List.of(topic));
            List<ConsumerRecord<String, String>> held = new ArrayList<>();
            Awaitility.await().atMost(WAIT).until(() -> {
                stalled.poll(Duration.ofMillis(200)).forEach(held::add);
                return held.size() == 5;
            });
            assertEquals(Set.of((short) 1), Set.copyOf(held.stream().map(r -> r.deliveryCount().orElseThrow()).toList()));
            // the stalled consumer neither acknowledges nor polls again: its lock ends after 15 s
            other.subscribe(List.of(topic));
            List<ConsumerRecord<String, String>> redelivered = new ArrayList<>();
            Awaitility.await().atMost(WAIT).until(() -> {
                ConsumerRecords<String, String> records = other.poll(Duration.ofMillis(200));
                records.forEach(r -> {
                    redelivered.add(r);
                    other.acknowledge(r, AcknowledgeType.ACCEPT);
                });
                if (!records.isEmpty()) {
                    other.commitSync(Duration.ofSeconds(30));
                }
                return redelivered.size() == 5;
            });
            assertEquals(Set.of((short) 2), Set.copyOf(redelivered.stream().map(r -> r.deliveryCount().orElseThrow())
                    .toList()), "second delivery");
            // the stalled consumer's late acknowledgement is refused: those records are no longer its own
            held.forEach(r -> stalled.acknowledge(r, AcknowledgeType.ACCEPT));
            Collection<java.util.Optional<org.apache.kafka.common.KafkaException>> outcomes =
                    stalled.commitSync(Duration.ofSeconds(30)).values();
            assertTrue(outcomes.stream().allMatch(java.util.Optional::isPresent),
                    "a lock that ended cannot be acknowledged: " + outcomes);
        }
    }

    @Test
    void aReadCommittedShareGroupNeverSeesAnAbortedRecord() throws Exception {
        String topic = "share-txn";
        String group = "share-g4";
        createTopic(topic, 1);
        groupConfigs(KRILL.bootstrapServers(), group, Map.of("share.auto.offset.reset", "earliest",
                "share.isolation.level", "read_committed"));
        try (KafkaProducer<String, String> producer = Clients.producer(KRILL.bootstrapServers(),
                Map.of("transactional.id", "share-txn-producer"))) {
            producer.initTransactions();
            for (int t = 0; t < 6; t++) {
                producer.beginTransaction();
                for (int i = 0; i < 5; i++) {
                    String value = (t % 2 == 0 ? "committed-" : "aborted-") + t + "-" + i;
                    producer.send(new ProducerRecord<>(topic, 0, "k", value));
                }
                producer.flush();
                if (t % 2 == 0) {
                    producer.commitTransaction();
                } else {
                    producer.abortTransaction();
                }
            }
        }
        Set<String> seen = ConcurrentHashMap.newKeySet();
        try (KafkaShareConsumer<String, String> consumer = shareConsumer(KRILL.bootstrapServers(), group, "implicit")) {
            consumer.subscribe(List.of(topic));
            Awaitility.await().atMost(WAIT).until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> seen.add(r.value()));
                return seen.size() >= 15;
            });
            consumer.poll(Duration.ofSeconds(1)).forEach(r -> seen.add(r.value()));
        }
        assertEquals(15, seen.size(), "the 3 committed transactions' records: " + seen);
        assertTrue(seen.stream().allMatch(v -> v.startsWith("committed-")), "aborted records seen: " + seen);
    }
}

package io.krill.compat.support;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.awaitility.Awaitility;

/**
 * Share-group dead-letter queues (KIP-1191, {@code share.version} 2) as the stock 4.4 clients see them: set a
 * share group's DLQ configs, consume with a {@link KafkaShareConsumer} that decides per record how to
 * acknowledge it, and read the DLQ topic back with a plain {@link KafkaConsumer}. Shared by
 * {@code DeadLetterQueueTest} (one broker) and {@code ShareDeadLetterConformanceTest} (Kafka 4.4 against
 * Krill).
 *
 * <p>What Kafka 4.4 writes per archived offset: partition = source partition % DLQ partition count, the
 * headers {@link #HEADER_NAMES} in that order (UTF-8 decimal strings for the numbers), key and value null
 * unless {@code errors.deadletterqueue.copy.record.enable}, then the original key and value (not its
 * headers). The write is asynchronous and at least once: {@link #readDistinct} drops identical duplicates.
 */
public final class DeadLetters {
    public static final String GROUP_TOPIC_NAME = "errors.deadletterqueue.topic.name";
    public static final String GROUP_COPY_RECORD = "errors.deadletterqueue.copy.record.enable";
    public static final String TOPIC_GROUP_ENABLE = "errors.deadletterqueue.group.enable";
    public static final String BROKER_AUTO_CREATE = "errors.deadletterqueue.auto.create.topics.enable";
    public static final String REJECTED = "Offset rejected by client.";
    public static final String EXCEEDED = "Offset delivery count exceeded the threshold.";
    public static final List<String> HEADER_NAMES = List.of("__dlq.errors.topic", "__dlq.errors.partition",
            "__dlq.errors.offset", "__dlq.errors.group", "__dlq.errors.delivery.count", "__dlq.errors.message");

    private DeadLetters() {
    }

    /**
     * One record of a DLQ topic, as compared: its partition, its headers in order (values as UTF-8 strings,
     * null for a null value), key and value. Its timestamp and offset are left out (the broker's).
     */
    public record Letter(int partition, List<Map.Entry<String, String>> headers, String key, String value) {
        /** The value of header {@code name}; fails when absent. */
        public String header(String name) {
            return headers.stream().filter(h -> h.getKey().equals(name)).map(Map.Entry::getValue).findFirst()
                    .orElseThrow(() -> new AssertionError("no header " + name + " in " + this));
        }

        /** The source topic-partition-offset it stands for, from its headers (null when they are missing). */
        public String source() {
            Map<String, String> byName = new LinkedHashMap<>();
            headers.forEach(h -> byName.putIfAbsent(h.getKey(), h.getValue()));
            return byName.get("__dlq.errors.topic") + "-" + byName.get("__dlq.errors.partition") + "@"
                    + byName.get("__dlq.errors.offset");
        }

        /** The letter Kafka 4.4 writes for {@code offset} of {@code topic}-{@code partition}. */
        public static Letter expected(int dlqPartitions, String topic, int partition, long offset, String group,
                                      int deliveryCount, String message, String key, String value) {
            return new Letter(partition % dlqPartitions, List.of(
                    Map.entry(HEADER_NAMES.get(0), topic),
                    Map.entry(HEADER_NAMES.get(1), Integer.toString(partition)),
                    Map.entry(HEADER_NAMES.get(2), Long.toString(offset)),
                    Map.entry(HEADER_NAMES.get(3), group),
                    Map.entry(HEADER_NAMES.get(4), Integer.toString(deliveryCount)),
                    Map.entry(HEADER_NAMES.get(5), message)), key, value);
        }

        static Letter of(ConsumerRecord<String, String> r) {
            List<Map.Entry<String, String>> headers = new ArrayList<>();
            for (Header h : r.headers()) {
                headers.add(new java.util.AbstractMap.SimpleImmutableEntry<>(h.key(),
                        h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8)));
            }
            return new Letter(r.partition(), List.copyOf(headers), r.key(), r.value());
        }
    }

    /** In a stable order (source, then the rest): what two brokers' DLQ topics are compared by. */
    public static final Comparator<Letter> ORDER = Comparator.comparing(Letter::source)
            .thenComparing(Letter::toString);

    public static Admin admin(String bootstrap) {
        return Admin.create(Clients.base(bootstrap));
    }

    /** Creates {@code topic} (replication factor 1) with {@code configs}. */
    public static void createTopic(String bootstrap, String topic, int partitions, Map<String, String> configs)
            throws Exception {
        try (Admin admin = admin(bootstrap)) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1).configs(configs))).all()
                    .get(30, TimeUnit.SECONDS);
        }
        Awaitility.await("leaders of " + topic).atMost(Duration.ofSeconds(30)).ignoreExceptions()
                .until(() -> Clients.partitionsFor(bootstrap, topic).size() == partitions
                        && Clients.partitionsFor(bootstrap, topic).stream().allMatch(p -> p.leader() != null));
    }

    /** Deletes topics, ignoring failures (clean-up). */
    public static void deleteTopics(String bootstrap, String... topics) {
        try (Admin admin = admin(bootstrap)) {
            admin.deleteTopics(List.of(topics)).all().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            // clean-up only
        }
    }

    /** Sets group configs (ConfigResource GROUP), as kafka-configs --entity-type groups does. */
    public static void groupConfigs(String bootstrap, String group, Map<String, String> configs) throws Exception {
        alter(bootstrap, new ConfigResource(ConfigResource.Type.GROUP, group), configs);
    }

    /** Sets topic configs (IncrementalAlterConfigs SET). */
    public static void topicConfigs(String bootstrap, String topic, Map<String, String> configs) throws Exception {
        alter(bootstrap, new ConfigResource(ConfigResource.Type.TOPIC, topic), configs);
    }

    private static void alter(String bootstrap, ConfigResource resource, Map<String, String> configs)
            throws Exception {
        try (Admin admin = admin(bootstrap)) {
            List<AlterConfigOp> ops = new ArrayList<>();
            configs.forEach((k, v) -> ops.add(new AlterConfigOp(new ConfigEntry(k, v), AlterConfigOp.OpType.SET)));
            admin.incrementalAlterConfigs(Map.of(resource, ops)).all().get(30, TimeUnit.SECONDS);
        }
    }

    /** A topic's config values as DescribeConfigs gives them. */
    public static Map<String, String> describeTopicConfigs(String bootstrap, String topic) throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        try (Admin admin = admin(bootstrap)) {
            Map<String, String> values = new LinkedHashMap<>();
            admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS).get(resource).entries()
                    .forEach(e -> values.put(e.name(), e.value()));
            return values;
        }
    }

    /** Whether the cluster knows {@code topic} (listTopics). */
    public static boolean topicExists(String bootstrap, String topic) throws Exception {
        try (Admin admin = admin(bootstrap)) {
            return admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(topic);
        }
    }

    /** A record to produce: partition, key (may be null), value, headers (name, value) in order. */
    public record Source(int partition, String key, String value, List<Map.Entry<String, String>> headers) {
        public static Source of(int partition, String key, String value) {
            return new Source(partition, key, value, List.of());
        }
    }

    /** Produces {@code records} in order (acks=all, one at a time per partition order); returns their offsets. */
    public static List<Long> produce(String bootstrap, String topic, List<Source> records) throws Exception {
        List<Long> offsets = new ArrayList<>();
        try (KafkaProducer<String, String> producer = Clients.producer(bootstrap, Map.of())) {
            for (Source s : records) {
                ProducerRecord<String, String> record = new ProducerRecord<>(topic, s.partition(), s.key(), s.value());
                s.headers().forEach(h -> record.headers().add(new RecordHeader(h.getKey(),
                        h.getValue().getBytes(StandardCharsets.UTF_8))));
                offsets.add(producer.send(record).get(30, TimeUnit.SECONDS).offset());
            }
        }
        return offsets;
    }

    /** What a share consumer got: per record value, the delivery counts it was delivered with, in order. */
    public record Deliveries(Map<String, List<Short>> counts) {
    }

    /**
     * Consumes {@code topic} in share group {@code group} (explicit acknowledgement) until {@code done}
     * records were finally acknowledged, acknowledging each as {@code decide} says (given the record and
     * its delivery count) and committing after each poll; fails when an acknowledgement fails or after
     * {@code timeout}. ACCEPT and REJECT are final; a RELEASE is final once the delivery count reached
     * {@code deliveryLimit} (0: never).
     */
    public static Deliveries shareConsume(String bootstrap, String group, String topic, int done, int deliveryLimit,
                                          BiFunction<ConsumerRecord<String, String>, Short, AcknowledgeType> decide,
                                          Duration timeout) {
        Map<String, List<Short>> counts = new LinkedHashMap<>();
        Properties props = Clients.base(bootstrap);
        props.put("group.id", group);
        props.put("share.acknowledgement.mode", "explicit");
        props.put("max.poll.records", "100");
        try (KafkaShareConsumer<String, String> consumer = new KafkaShareConsumer<>(props, new StringDeserializer(),
                new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            int[] finished = {0};
            Awaitility.await(group + ": " + done + " records of " + topic + " finally acknowledged")
                    .atMost(timeout).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(10)).until(() -> {
                        ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
                        for (ConsumerRecord<String, String> r : records) {
                            short count = r.deliveryCount().orElseThrow();
                            counts.computeIfAbsent(r.value(), v -> new ArrayList<>()).add(count);
                            AcknowledgeType type = decide.apply(r, count);
                            consumer.acknowledge(r, type);
                            if (type != AcknowledgeType.RELEASE || (deliveryLimit > 0 && count >= deliveryLimit)) {
                                finished[0]++;
                            }
                        }
                        if (!records.isEmpty()) {
                            Map<String, Optional<KafkaException>> failed = new LinkedHashMap<>();
                            consumer.commitSync(Duration.ofSeconds(30)).forEach((tp, error) -> {
                                if (error.isPresent()) {
                                    failed.put(tp.toString(), error);
                                }
                            });
                            assertTrue(failed.isEmpty(), "acknowledgements failed: " + failed);
                        }
                        return finished[0] >= done;
                    });
        }
        return new Deliveries(counts);
    }

    /**
     * Reads {@code dlqTopic} from its beginning until {@code until} holds for the distinct letters read, or
     * {@code timeout} passed (then returns what it has), and then on for {@code settle} more, so that a
     * letter that should not be there but was written with the awaited ones is seen too. Identical
     * duplicates (at least once) are dropped; letters that differ are all kept.
     */
    public static List<Letter> readDistinct(String bootstrap, String dlqTopic, Predicate<List<Letter>> until,
                                            Duration timeout, Duration settle) {
        Set<Letter> letters = new LinkedHashSet<>();
        try (KafkaConsumer<String, String> consumer = Clients.consumer(bootstrap)) {
            List<PartitionInfo> infos = consumer.partitionsFor(dlqTopic, Duration.ofSeconds(10));
            List<TopicPartition> tps = infos.stream().map(p -> new TopicPartition(dlqTopic, p.partition())).toList();
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline && !until.test(List.copyOf(letters))) {
                consumer.poll(Duration.ofMillis(100)).forEach(r -> letters.add(Letter.of(r)));
            }
            long settled = System.nanoTime() + settle.toNanos();
            while (System.nanoTime() < settled) {
                consumer.poll(Duration.ofMillis(100)).forEach(r -> letters.add(Letter.of(r)));
            }
        }
        List<Letter> sorted = new ArrayList<>(letters);
        sorted.sort(ORDER);
        return sorted;
    }

    /** Waits until every one of {@code expected} is among the distinct letters (see {@link #readDistinct}). */
    public static List<Letter> readAtLeast(String bootstrap, String dlqTopic, List<Letter> expected,
                                           Duration timeout, Duration settle) {
        return readDistinct(bootstrap, dlqTopic, got -> got.containsAll(expected), timeout, settle);
    }

    /** The sources (topic-partition@offset) of letters, sorted. */
    public static Set<String> sources(List<Letter> letters) {
        Set<String> sources = new TreeSet<>();
        letters.forEach(l -> sources.add(l.source()));
        return sources;
    }

    /** The future's failure cause, or an AssertionError when it succeeded. */
    public static Throwable failure(org.apache.kafka.common.KafkaFuture<?> future) throws Exception {
        try {
            future.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("expected a failure, the request succeeded");
    }
}

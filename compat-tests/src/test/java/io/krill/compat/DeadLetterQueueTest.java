package io.krill.compat;

import static io.krill.compat.support.DeadLetters.EXCEEDED;
import static io.krill.compat.support.DeadLetters.GROUP_COPY_RECORD;
import static io.krill.compat.support.DeadLetters.GROUP_TOPIC_NAME;
import static io.krill.compat.support.DeadLetters.REJECTED;
import static io.krill.compat.support.DeadLetters.TOPIC_GROUP_ENABLE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.krill.compat.differential.KafkaKraftProcess;
import io.krill.compat.support.DeadLetters;
import io.krill.compat.support.DeadLetters.Letter;
import io.krill.compat.support.DeadLetters.Source;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.apache.kafka.clients.admin.UpdateFeaturesOptions;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * Share-group dead-letter queues (KIP-1191, {@code share.version} 2) judged by the stock Kafka 4.4 clients
 * against one broker: a rejected record, or one whose delivery count reached
 * {@code share.delivery.count.limit}, is written by the partition leader to the group's DLQ topic
 * ({@code errors.deadletterqueue.topic.name}) with the six {@code __dlq.errors.*} headers, at partition
 * source partition % DLQ partitions, key and value only with {@code errors.deadletterqueue.copy.record.enable};
 * nothing is written to a topic that is not a valid DLQ (no {@code errors.deadletterqueue.group.enable}, or
 * missing without {@code errors.deadletterqueue.auto.create.topics.enable}), nor while {@code share.version}
 * is below 2. The write is asynchronous and at least once: identical duplicates are allowed, other letters
 * not.
 *
 * <p>The broker is Krill, or Apache Kafka 4.4 with {@code -Dkrill.compat.dlq.target=kafka} (a KRaft node in
 * a JVM of its own, as the differential tests start it): the behaviour asserted here was first observed
 * there. A test that proves a letter absent writes a later letter to the same DLQ topic as a barrier (the
 * broker's writes are ordered per DLQ partition in practice, and the later one is awaited) rather than only
 * sleeping.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DeadLetterQueueTest {
    @RegisterExtension
    static final Target BROKER = new Target(Map.of());

    private static final Duration WAIT = Duration.ofSeconds(30);
    /** How long letters that should not be there are looked for after the awaited ones came. */
    private static final Duration SETTLE = Duration.ofMillis(1500);
    private static final AtomicInteger NAMES = new AtomicInteger();

    private static String bootstrap() {
        return BROKER.bootstrapServers();
    }

    /** A name of its own per test (the broker is shared by the class). */
    private static String unique(String what) {
        return what + "-" + NAMES.incrementAndGet() + "-" + Long.toHexString(System.nanoTime() & 0xffffff);
    }

    private static List<Source> records(int partition, int count, String prefix) {
        List<Source> records = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            records.add(Source.of(partition, "k-" + prefix + "-" + partition + "-" + i,
                    "v-" + prefix + "-" + partition + "-" + i));
        }
        return records;
    }

    /** The offset a produced value of {@link #records} has: its index (a fresh topic, one producer). */
    private static int indexOf(String value) {
        return Integer.parseInt(value.substring(value.lastIndexOf('-') + 1));
    }

    @Test
    void rejectedRecordsAndOnlyThoseAreWrittenToTheDlqWithTheSixHeaders() throws Exception {
        String topic = unique("dlq-src-reject");
        String dlq = "dlq." + unique("reject");
        String group = unique("dlq-g-reject");
        DeadLetters.createTopic(bootstrap(), topic, 3, Map.of());
        DeadLetters.createTopic(bootstrap(), dlq, 2, Map.of(TOPIC_GROUP_ENABLE, "true"));
        DeadLetters.groupConfigs(bootstrap(), group, Map.of("share.auto.offset.reset", "earliest",
                GROUP_TOPIC_NAME, dlq));
        List<Source> sources = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
            sources.addAll(records(p, 4, "a"));
        }
        DeadLetters.produce(bootstrap(), topic, sources);

        // offsets 1 and 3 of every partition rejected, 0 and 2 accepted
        DeadLetters.shareConsume(bootstrap(), group, topic, 12, 0,
                (r, count) -> r.offset() % 2 == 1 ? AcknowledgeType.REJECT : AcknowledgeType.ACCEPT, WAIT);

        List<Letter> expected = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
            for (long offset : List.of(1L, 3L)) {
                expected.add(Letter.expected(2, topic, p, offset, group, 1, REJECTED, null, null));
            }
        }
        expected.sort(DeadLetters.ORDER);
        List<Letter> got = DeadLetters.readAtLeast(bootstrap(), dlq, expected, WAIT, SETTLE);
        assertEquals(expected, got, "the DLQ holds one letter per rejected offset (partition = source partition"
                + " % 2, headers in order, null key and value) and nothing for the accepted ones");
        DeadLetters.deleteTopics(bootstrap(), topic, dlq);
    }

    @Test
    void copyRecordEnableCopiesKeyAndValueButNotTheOriginalHeaders() throws Exception {
        String topic = unique("dlq-src-copy");
        String dlq = "dlq." + unique("copy");
        String group = unique("dlq-g-copy");
        DeadLetters.createTopic(bootstrap(), topic, 1, Map.of());
        DeadLetters.createTopic(bootstrap(), dlq, 1, Map.of(TOPIC_GROUP_ENABLE, "true"));
        DeadLetters.groupConfigs(bootstrap(), group, Map.of("share.auto.offset.reset", "earliest",
                GROUP_TOPIC_NAME, dlq, GROUP_COPY_RECORD, "true"));
        DeadLetters.produce(bootstrap(), topic, List.of(
                new Source(0, "key-0", "value-0", List.of(Map.entry("origin", "h-0"), Map.entry("trace", "t-0"))),
                new Source(0, null, "value-1", List.of(Map.entry("origin", "h-1"))),
                new Source(0, "key-2", "value-2", List.of()),
                new Source(0, "key-3", "value-3", List.of(Map.entry("origin", "h-3")))));

        DeadLetters.shareConsume(bootstrap(), group, topic, 4, 0,
                (r, count) -> r.offset() == 2 ? AcknowledgeType.ACCEPT : AcknowledgeType.REJECT, WAIT);

        List<Letter> expected = new ArrayList<>(List.of(
                Letter.expected(1, topic, 0, 0, group, 1, REJECTED, "key-0", "value-0"),
                Letter.expected(1, topic, 0, 1, group, 1, REJECTED, null, "value-1"),
                Letter.expected(1, topic, 0, 3, group, 1, REJECTED, "key-3", "value-3")));
        expected.sort(DeadLetters.ORDER);
        List<Letter> got = DeadLetters.readAtLeast(bootstrap(), dlq, expected, WAIT, SETTLE);
        assertEquals(expected, got, "key and value copied (a null key stays null), the six headers only");
        DeadLetters.deleteTopics(bootstrap(), topic, dlq);
    }

    @Test
    void aRecordWhoseDeliveryCountReachesTheLimitIsWrittenAsExceeded() throws Exception {
        String topic = unique("dlq-src-limit");
        String dlq = "dlq." + unique("limit");
        String group = unique("dlq-g-limit");
        DeadLetters.createTopic(bootstrap(), topic, 1, Map.of());
        DeadLetters.createTopic(bootstrap(), dlq, 1, Map.of(TOPIC_GROUP_ENABLE, "true"));
        // 2: the lowest share.delivery.count.limit a group may set (group.share.min.delivery.count.limit)
        DeadLetters.groupConfigs(bootstrap(), group, Map.of("share.auto.offset.reset", "earliest",
                GROUP_TOPIC_NAME, dlq, "share.delivery.count.limit", "2"));
        DeadLetters.produce(bootstrap(), topic, records(0, 3, "l"));

        // offset 0: released twice (the second release reaches the limit); 1: released once, then accepted;
        // 2: released once, then rejected
        DeadLetters.Deliveries deliveries = DeadLetters.shareConsume(bootstrap(), group, topic, 3, 2, (r, count) -> {
            if (count == 1) {
                return AcknowledgeType.RELEASE;
            }
            return switch ((int) r.offset()) {
                case 0 -> AcknowledgeType.RELEASE;
                case 1 -> AcknowledgeType.ACCEPT;
                default -> AcknowledgeType.REJECT;
            };
        }, WAIT);
        for (int i = 0; i < 3; i++) {
            assertEquals(List.of((short) 1, (short) 2), deliveries.counts().get("v-l-0-" + i), "deliveries of " + i);
        }

        List<Letter> expected = new ArrayList<>(List.of(
                Letter.expected(1, topic, 0, 0, group, 2, EXCEEDED, null, null),
                Letter.expected(1, topic, 0, 2, group, 2, REJECTED, null, null)));
        expected.sort(DeadLetters.ORDER);
        List<Letter> got = DeadLetters.readAtLeast(bootstrap(), dlq, expected, WAIT, SETTLE);
        assertEquals(expected, got, "the released-to-the-limit offset as exceeded, the rejected one as rejected,"
                + " both with delivery count 2; the one accepted after a release not at all");
        DeadLetters.deleteTopics(bootstrap(), topic, dlq);
    }

    @Test
    void aTopicWithoutGroupEnableGetsNothingAndTheRejectedRecordIsNotRedelivered() throws Exception {
        String topic = unique("dlq-src-disabled");
        String dlq = "dlq." + unique("disabled");
        String group = unique("dlq-g-disabled");
        DeadLetters.createTopic(bootstrap(), topic, 1, Map.of());
        DeadLetters.createTopic(bootstrap(), dlq, 1, Map.of()); // no errors.deadletterqueue.group.enable
        DeadLetters.groupConfigs(bootstrap(), group, Map.of("share.auto.offset.reset", "earliest",
                GROUP_TOPIC_NAME, dlq));
        DeadLetters.produce(bootstrap(), topic, records(0, 1, "d"));
        DeadLetters.shareConsume(bootstrap(), group, topic, 1, 0, (r, count) -> AcknowledgeType.REJECT, WAIT);

        // Not redelivered: the next record produced is the only one the group gets, at its first delivery.
        DeadLetters.topicConfigs(bootstrap(), dlq, Map.of(TOPIC_GROUP_ENABLE, "true"));
        DeadLetters.produce(bootstrap(), topic, List.of(Source.of(0, "k-d-0-1", "v-d-0-1")));
        DeadLetters.Deliveries after = DeadLetters.shareConsume(bootstrap(), group, topic, 1, 0,
                (r, count) -> AcknowledgeType.REJECT, WAIT);
        assertEquals(Map.of("v-d-0-1", List.of((short) 1)), after.counts(),
                "the record rejected while the DLQ topic was not enabled is archived, not redelivered");

        // The barrier: the second rejection, made once the topic is enabled, is written; the first never.
        Letter second = Letter.expected(1, topic, 0, 1, group, 1, REJECTED, null, null);
        List<Letter> got = DeadLetters.readAtLeast(bootstrap(), dlq, List.of(second), WAIT, SETTLE);
        assertEquals(List.of(second), got, "nothing written for the rejection while the DLQ topic lacked "
                + TOPIC_GROUP_ENABLE + "=true");
        DeadLetters.deleteTopics(bootstrap(), topic, dlq);
    }

    @Test
    void aMissingDlqTopicIsNotCreatedWithoutAutoCreateAndAnUnprefixedOneGetsNothing() throws Exception {
        String topic = unique("dlq-src-missing");
        String missing = "dlq." + unique("missing");
        String unprefixed = unique("nodlq-unprefixed");
        String group = unique("dlq-g-missing");
        String other = unique("dlq-g-unprefixed");
        DeadLetters.createTopic(bootstrap(), topic, 1, Map.of());
        // a valid DLQ topic but for the broker's errors.deadletterqueue.topic.name.prefix (default "dlq.")
        DeadLetters.createTopic(bootstrap(), unprefixed, 1, Map.of(TOPIC_GROUP_ENABLE, "true"));
        DeadLetters.groupConfigs(bootstrap(), group, Map.of("share.auto.offset.reset", "earliest",
                GROUP_TOPIC_NAME, missing));
        DeadLetters.groupConfigs(bootstrap(), other, Map.of("share.auto.offset.reset", "earliest",
                GROUP_TOPIC_NAME, unprefixed));
        DeadLetters.produce(bootstrap(), topic, records(0, 1, "m"));
        DeadLetters.shareConsume(bootstrap(), group, topic, 1, 0, (r, count) -> AcknowledgeType.REJECT, WAIT);
        DeadLetters.shareConsume(bootstrap(), other, topic, 1, 0, (r, count) -> AcknowledgeType.REJECT, WAIT);

        // The barrier: the DLQ topic created (enabled) now, and a second rejection of the group is written.
        DeadLetters.createTopic(bootstrap(), missing, 1, Map.of(TOPIC_GROUP_ENABLE, "true"));
        DeadLetters.produce(bootstrap(), topic, List.of(Source.of(0, "k-m-0-1", "v-m-0-1")));
        DeadLetters.shareConsume(bootstrap(), group, topic, 1, 0, (r, count) -> AcknowledgeType.REJECT, WAIT);
        Letter second = Letter.expected(1, topic, 0, 1, group, 1, REJECTED, null, null);
        List<Letter> got = DeadLetters.readAtLeast(bootstrap(), missing, List.of(second), WAIT, SETTLE);
        assertEquals(List.of(second), got, "nothing for the rejection made while the DLQ topic was missing");
        assertEquals(List.of(), DeadLetters.readDistinct(bootstrap(), unprefixed, l -> false, Duration.ZERO,
                Duration.ofMillis(500)), "nothing in a DLQ topic whose name lacks the prefix \"dlq.\"");
        DeadLetters.deleteTopics(bootstrap(), topic, missing, unprefixed);
    }

    @Test
    void aMissingDlqTopicIsCreatedWithGroupEnableWhenAutoCreateIsOn() throws Exception {
        try (Target auto = new Target(Map.of(DeadLetters.BROKER_AUTO_CREATE, "true"))) {
            auto.start();
            String bootstrap = auto.bootstrapServers();
            String topic = unique("dlq-src-auto");
            String dlq = "dlq." + unique("auto");
            String group = unique("dlq-g-auto");
            DeadLetters.createTopic(bootstrap, topic, 1, Map.of());
            DeadLetters.groupConfigs(bootstrap, group, Map.of("share.auto.offset.reset", "earliest",
                    GROUP_TOPIC_NAME, dlq));
            DeadLetters.produce(bootstrap, topic, records(0, 2, "c"));
            DeadLetters.shareConsume(bootstrap, group, topic, 2, 0,
                    (r, count) -> r.offset() == 1 ? AcknowledgeType.REJECT : AcknowledgeType.ACCEPT, WAIT);

            Awaitility.await(dlq + " created").atMost(WAIT).until(() -> DeadLetters.topicExists(bootstrap, dlq));
            Map<String, String> configs = DeadLetters.describeTopicConfigs(bootstrap, dlq);
            assertEquals("true", configs.get(TOPIC_GROUP_ENABLE), "auto-created DLQ topic's " + TOPIC_GROUP_ENABLE);
            assertEquals("CreateTime", configs.get("message.timestamp.type"), "auto-created DLQ topic's timestamps");
            Letter letter = Letter.expected(1, topic, 0, 1, group, 1, REJECTED, null, null);
            Awaitility.await("leaders of " + dlq).atMost(WAIT).ignoreExceptions()
                    .until(() -> !io.krill.compat.support.Clients.partitionsFor(bootstrap, dlq).isEmpty());
            int partitions = io.krill.compat.support.Clients.partitionsFor(bootstrap, dlq).size();
            System.out.println("auto-created DLQ topic " + dlq + ": " + partitions + " partition(s), configs " + configs);
            List<Letter> got = DeadLetters.readDistinct(bootstrap, dlq, l -> l.size() >= 1, WAIT, SETTLE);
            assertEquals(List.of(new Letter(0 % partitions, letter.headers(), null, null)), got,
                    "the rejected offset's letter in the auto-created topic (" + partitions + " partitions)");
        }
    }

    @Test
    void aDlqTopicNameStartingWithTwoUnderscoresIsRefused() throws Exception {
        String group = unique("dlq-g-refused");
        Throwable refused;
        try (Admin admin = DeadLetters.admin(bootstrap())) {
            refused = DeadLetters.failure(admin.incrementalAlterConfigs(Map.of(
                    new ConfigResource(ConfigResource.Type.GROUP, group),
                    List.of(new AlterConfigOp(new ConfigEntry(GROUP_TOPIC_NAME, "__x"), AlterConfigOp.OpType.SET))))
                    .all());
        }
        assertInstanceOf(InvalidConfigurationException.class, refused, String.valueOf(refused));
    }

    @Test
    void shareVersionOneWritesNoLetter() throws Exception {
        String topic = unique("dlq-src-v1");
        String dlq = "dlq." + unique("v1");
        String group = unique("dlq-g-v1");
        assertEquals(2, finalizedShareVersion(), "share.version finalized on a new cluster");
        DeadLetters.createTopic(bootstrap(), topic, 1, Map.of());
        DeadLetters.createTopic(bootstrap(), dlq, 1, Map.of(TOPIC_GROUP_ENABLE, "true"));
        DeadLetters.groupConfigs(bootstrap(), group, Map.of("share.auto.offset.reset", "earliest",
                GROUP_TOPIC_NAME, dlq));
        DeadLetters.produce(bootstrap(), topic, records(0, 1, "s"));
        try {
            updateShareVersion(1, FeatureUpdate.UpgradeType.SAFE_DOWNGRADE);
            Awaitility.await("share.version 1").atMost(WAIT).until(() -> finalizedShareVersion() == 1);
            DeadLetters.shareConsume(bootstrap(), group, topic, 1, 0, (r, count) -> AcknowledgeType.REJECT, WAIT);
        } finally {
            updateShareVersion(2, FeatureUpdate.UpgradeType.UPGRADE);
        }
        Awaitility.await("share.version 2 again").atMost(WAIT).until(() -> finalizedShareVersion() == 2);
        // The barrier: a rejection at share.version 2 again is written; the one made at 1 never.
        DeadLetters.produce(bootstrap(), topic, List.of(Source.of(0, "k-s-0-1", "v-s-0-1")));
        DeadLetters.shareConsume(bootstrap(), group, topic, 1, 0, (r, count) -> AcknowledgeType.REJECT, WAIT);
        Letter second = Letter.expected(1, topic, 0, 1, group, 1, REJECTED, null, null);
        List<Letter> got = DeadLetters.readAtLeast(bootstrap(), dlq, List.of(second), WAIT, SETTLE);
        assertEquals(List.of(second), got, "nothing written for the rejection made at share.version 1");
        DeadLetters.deleteTopics(bootstrap(), topic, dlq);
    }

    private static short finalizedShareVersion() throws Exception {
        try (Admin admin = DeadLetters.admin(bootstrap())) {
            FinalizedVersionRange range = admin.describeFeatures().featureMetadata().get(30, TimeUnit.SECONDS)
                    .finalizedFeatures().get("share.version");
            return range == null ? 0 : range.maxVersionLevel();
        }
    }

    private static void updateShareVersion(int level, FeatureUpdate.UpgradeType type) throws Exception {
        try (Admin admin = DeadLetters.admin(bootstrap())) {
            admin.updateFeatures(Map.of("share.version", new FeatureUpdate((short) level, type)),
                    new UpdateFeaturesOptions()).all().get(30, TimeUnit.SECONDS);
        }
    }

    /**
     * The broker under test: Krill in this JVM, or Apache Kafka 4.4 in a JVM of its own when the system
     * property {@code krill.compat.dlq.target} is {@code kafka}; {@code configs} are given to either at
     * start. A JUnit extension for the class's broker, or started and closed by a test for a broker of its
     * own.
     */
    static final class Target implements BeforeAllCallback, AfterAllCallback, TestExecutionExceptionHandler,
            AutoCloseable {
        private final Map<String, String> configs;
        private KrillBrokerExtension krill;
        private KafkaKraftProcess kafka;

        Target(Map<String, String> configs) {
            this.configs = new HashMap<>(configs);
        }

        static boolean kafkaTarget() {
            return "kafka".equals(System.getProperty("krill.compat.dlq.target"));
        }

        void start() throws Exception {
            if (kafkaTarget()) {
                kafka = new KafkaKraftProcess("PLAINTEXT", configs);
                kafka.beforeAll(null);
                kafka.awaitReady(Duration.ofSeconds(120));
            } else {
                krill = new KrillBrokerExtension();
                configs.forEach(krill::with);
                krill.beforeAll(null);
            }
        }

        String bootstrapServers() {
            return kafka != null ? kafka.bootstrapServers() : krill.bootstrapServers();
        }

        @Override
        public void beforeAll(ExtensionContext context) throws Exception {
            start();
        }

        @Override
        public void afterAll(ExtensionContext context) {
            close();
        }

        @Override
        public void close() {
            if (kafka != null) {
                kafka.afterAll(null);
                kafka = null;
            }
            if (krill != null) {
                krill.afterAll(null);
                krill = null;
            }
        }

        @Override
        public void handleTestExecutionException(ExtensionContext context, Throwable throwable) throws Throwable {
            if (kafka != null) {
                kafka.handleTestExecutionException(context, throwable);
            } else if (krill != null) {
                krill.handleTestExecutionException(context, throwable);
            }
            throw throwable;
        }
    }
}

package io.krill.broker.share.dlq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.krill.broker.config.BrokerConfig;
import io.krill.broker.config.ConfigException;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.NewTopic;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Which dead-letter topics a share group may use, with Kafka 4.4's messages; the created topic; the partition. */
class DeadLetterTopicsTest {
    private static final BrokerConfig AUTO_CREATE = BrokerConfig.from(Map.of(
            "errors.deadletterqueue.auto.create.topics.enable", "true", "num.partitions", "3",
            "default.replication.factor", "3"));
    private static final BrokerConfig DEFAULTS = BrokerConfig.from(Map.of());

    private static MetadataImage image(TopicImage... topics) {
        return new MetadataImage("cluster", 1, List.of(), List.of(topics));
    }

    private static TopicImage topic(String name, Map<String, String> configs) {
        return new TopicImage(name, UUID.randomUUID(), List.of(new PartitionState(0, 1, 0, List.of(1), List.of(1), 0)),
                configs, false);
    }

    private static String refusal(String topic, MetadataImage image, BrokerConfig broker) {
        ConfigException e = DeadLetterTopics.refusal("g", topic, image, broker);
        return e == null ? null : e.getMessage();
    }

    @Test
    void refusalsInKafkasOrderWithItsMessages() {
        assertEquals("Configured DLQ topic name in share group: g is empty.", refusal("", image(), AUTO_CREATE));
        assertEquals("Configured DLQ topic name in share group: g cannot start with __, topic: __dlq.x.",
                refusal("__dlq.x", image(), AUTO_CREATE));
        assertEquals("DLQ is not enabled on configured DLQ topic for share group: g, topic: dlq.a.",
                refusal("dlq.a", image(topic("dlq.a", Map.of())), AUTO_CREATE));
        assertEquals("DLQ is not enabled on configured DLQ topic for share group: g, topic: dlq.a.",
                refusal("dlq.a", image(topic("dlq.a", Map.of("errors.deadletterqueue.group.enable", "false"))),
                        AUTO_CREATE));
        assertEquals("DLQ topic does not exist and auto create is disabled on cluster for share group: g, topic: dlq.b.",
                refusal("dlq.b", image(), DEFAULTS));
        assertEquals("Configured DLQ topic name does not comply with the DLQ topic prefix in share group: g, topic: "
                + "errors, prefix: dlq..", refusal("errors", image(), AUTO_CREATE));
        assertEquals("Configured DLQ topic name does not comply with the DLQ topic prefix in share group: g, topic: "
                + "errors, prefix: dlq..", refusal("errors", image(topic("errors",
                        Map.of("errors.deadletterqueue.group.enable", "true"))), DEFAULTS),
                "the prefix applies to existing topics too");
    }

    @Test
    void acceptedTopics() {
        assertNull(refusal("dlq.a", image(topic("dlq.a", Map.of("errors.deadletterqueue.group.enable", "true"))),
                DEFAULTS));
        assertNull(refusal("dlq.missing", image(), AUTO_CREATE), "created when missing");
        BrokerConfig noPrefix = BrokerConfig.from(Map.of("errors.deadletterqueue.topic.name.prefix", ""));
        assertNull(refusal("anything", image(topic("anything", Map.of("errors.deadletterqueue.group.enable", "true"))),
                noPrefix));
    }

    @Test
    void theCreatedTopicHasTheBrokerDefaultsCappedByLiveBrokersAndKafkasConfigs() {
        NewTopic spec = DeadLetterTopics.spec("dlq.x", AUTO_CREATE, 1);
        assertEquals(new NewTopic("dlq.x", 3, 1, Map.of(), Map.of("errors.deadletterqueue.group.enable", "true",
                "message.timestamp.type", "CreateTime"), false), spec);
        assertEquals(3, DeadLetterTopics.spec("dlq.x", AUTO_CREATE, 5).replicationFactor());
        assertEquals(1, DeadLetterTopics.spec("dlq.x", AUTO_CREATE, 0).replicationFactor());
    }

    @Test
    void theSourcePartitionModuloThePartitionCount() {
        assertEquals(0, DeadLetterTopics.partitionFor(0, 3));
        assertEquals(2, DeadLetterTopics.partitionFor(5, 3));
        assertEquals(0, DeadLetterTopics.partitionFor(7, 1));
    }
}

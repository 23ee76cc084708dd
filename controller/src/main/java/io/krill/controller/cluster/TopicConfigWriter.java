package io.krill.controller.cluster;

import io.krill.controller.metadata.TopicImage;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Changes a topic's config overrides (map {@code configs} of its topic node, {@link ZkPaths#topic}) as a
 * version-checked read-modify-write of that node ({@link ConditionalWrite}), without a thread waiting for
 * ZooKeeper: the change is applied to the overrides ZooKeeper holds, and again to fresh ones after a lost
 * race (another config change, a growth of the topic), so concurrent incremental changes through any
 * brokers all survive. The rest of the node (id, partition count) is written back as read.
 *
 * <p>Thread-safe: no state of its own; concurrent writers are ordered by ZooKeeper's versions.
 */
final class TopicConfigWriter {
    private static final Logger LOG = LoggerFactory.getLogger(TopicConfigWriter.class);

    private final StoreContext context;

    TopicConfigWriter(StoreContext context) {
        this.context = context;
    }

    /**
     * Completes with the topic as this broker's image shows it after the change; fails with
     * UNKNOWN_TOPIC_OR_PARTITION when there is no such topic (or it was deleted meanwhile), with what
     * {@code change} threw, or as {@link ConditionalWrite} fails. Never throws.
     */
    CompletableFuture<TopicImage> alter(String name, UnaryOperator<Map<String, String>> change) {
        return ConditionalWrite.start(context, context.paths().topic(name), "configs of topic " + name, data -> {
            if (data == null) {
                throw unknownTopic(name);
            }
            MetadataRecords.TopicRecord topic = MetadataRecords.decodeTopic(name, data);
            Map<String, String> next = Map.copyOf(change.apply(topic.configs()));
            if (next.equals(topic.configs())) {
                return ConditionalWrite.Decision.unchanged(topic.id());
            }
            return ConditionalWrite.Decision.write(MetadataRecords.encodeTopic(new MetadataRecords.TopicRecord(name,
                    topic.id(), topic.partitionCount(), topic.internal(), next)), topic.id());
        }).thenApply(outcome -> {
            UUID id = outcome.result();
            TopicImage shown = outcome.image().topic(name);
            if (shown == null || !shown.id().equals(id)) {
                throw unknownTopic(name); // deleted (and perhaps created again) after the change
            }
            if (outcome.written()) {
                LOG.info("configs of topic {} set: {}", name, shown.configs());
            }
            return shown;
        });
    }

    private static ApiException unknownTopic(String name) {
        return new ApiException(Errors.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic: " + name);
    }
}

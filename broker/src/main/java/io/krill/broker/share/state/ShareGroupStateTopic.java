package io.krill.broker.share.state;

import io.krill.broker.coordinator.InternalTopic;
import io.krill.controller.metadata.MetadataStore;
import io.krill.controller.metadata.NewTopic;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.UUID;

/**
 * Creates {@code __share_group_state}: {@code share.coordinator.state.topic.num.partitions} partitions,
 * replication factor {@code share.coordinator.state.topic.replication.factor} capped by the live brokers
 * (so one node works, as for {@code __consumer_offsets}), {@code min.insync.replicas} from
 * {@code share.coordinator.state.topic.min.isr} capped by that replication factor, compacted by
 * share-partition key (see {@link ShareStateRecords}), internal, segments of
 * {@code share.coordinator.state.topic.segment.bytes}. Stateless.
 */
public final class ShareGroupStateTopic {
    public static final String NAME = "__share_group_state";

    private ShareGroupStateTopic() {
    }

    /** The topic as it is created on first need: its replication factor bounded by the live brokers. */
    public static NewTopic spec(MetadataStore metadata, ShareCoordinatorConfig config) {
        return new InternalTopic(NAME, config.stateTopicNumPartitions(), config.stateTopicReplicationFactor(),
                config.stateTopicMinIsr(), "producer", config.stateTopicSegmentBytes()).spec(metadata);
    }

    /**
     * The share-partition of a FindCoordinator share key, parsed as Kafka parses it: {@code groupId:topicId:partition},
     * split at the last two colons (a group id may contain colons), the group id not blank, the topic id
     * in Kafka's base64 form, the partition an integer.
     *
     * @throws IllegalArgumentException for a key Kafka would refuse (FindCoordinator answers INVALID_REQUEST)
     */
    public static SharePartitionKey parseKey(String key) {
        if (key == null || key.isEmpty()) {
            throw new IllegalArgumentException("Share partition key cannot be empty");
        }
        String[] tokens = key.split(":");
        if (tokens.length < 3) {
            throw new IllegalArgumentException("Invalid key format: expected - groupId:topicId:partition, found - " + key);
        }
        String groupId = String.join(":", java.util.Arrays.copyOfRange(tokens, 0, tokens.length - 2));
        if (groupId.trim().isEmpty()) {
            throw new IllegalArgumentException("GroupId must not be empty");
        }
        String topic = tokens[tokens.length - 2];
        UUID topicId;
        try {
            if (topic.length() > 24) {
                throw new IllegalArgumentException("too long");
            }
            byte[] bytes = Base64.getUrlDecoder().decode(topic);
            if (bytes.length != 16) {
                throw new IllegalArgumentException(bytes.length + " bytes");
            }
            ByteBuffer buf = ByteBuffer.wrap(bytes);
            topicId = new UUID(buf.getLong(), buf.getLong());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Invalid topic ID: " + topic, e);
        }
        try {
            return new SharePartitionKey(groupId, topicId, Integer.parseInt(tokens[tokens.length - 1]));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Invalid partition: " + tokens[tokens.length - 1], e);
        }
    }

    /** The partition of {@code __share_group_state} that holds {@code key} (Kafka's hash of the coordinator key). */
    public static int partitionFor(SharePartitionKey key, int partitions) {
        int hash = key.coordinatorKey().hashCode();
        return (hash == Integer.MIN_VALUE ? 0 : Math.abs(hash)) % partitions;
    }
}

package io.krill.broker.share.state;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.Objects;
import java.util.UUID;

/**
 * A share-partition: the records of one topic partition as one share group consumes them. Its durable
 * state lives with the share coordinator of {@link #coordinatorKey()} (a partition of
 * {@code __share_group_state}). Immutable.
 */
public record SharePartitionKey(String groupId, UUID topicId, int partition) {
    public SharePartitionKey {
        Objects.requireNonNull(groupId, "groupId");
        Objects.requireNonNull(topicId, "topicId");
    }

    /**
     * The key FindCoordinator (key type 2, SHARE) takes and the share coordinator hashes to a partition of
     * {@code __share_group_state}: {@code groupId:topicId:partition}, the topic id in Kafka's base64 form.
     */
    public String coordinatorKey() {
        return groupId + ":" + kafkaString(topicId) + ":" + partition;
    }

    /** Kafka's text form of a topic id: the 16 bytes in URL-safe base64 without padding. */
    public static String kafkaString(UUID id) {
        ByteBuffer bytes = ByteBuffer.allocate(16).putLong(id.getMostSignificantBits()).putLong(id.getLeastSignificantBits());
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.array());
    }
}

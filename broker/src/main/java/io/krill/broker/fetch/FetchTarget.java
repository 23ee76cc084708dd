package io.krill.broker.fetch;

import io.krill.wire.message.FetchRequest;
import io.krill.wire.message.FetchResponse;
import java.util.Objects;
import java.util.UUID;

/**
 * One partition a fetch reads: its topic as the request named it (a name below Fetch v13, an id from
 * v13) and what was asked of it. For a fetch in a session this is the session's view: the parameters the
 * client last sent for the partition, in this request or an earlier one, and the session's slot, which
 * learns from each read whether the partition still has news for the client.
 *
 * @param topic   the topic's name as requested (null or empty when named by id)
 * @param topicId the topic's id as requested (zero below v13)
 * @param asked   the partition's fetch parameters; never modified once in a target
 * @param slot    the partition in its session, or null outside one
 */
public record FetchTarget(String topic, UUID topicId, FetchRequest.FetchPartition asked, SessionPartition slot) {
    /** Whether {@code other} names the same topic, so that both go under one topic in a response. */
    public boolean sameTopic(FetchTarget other) {
        return Objects.equals(topic, other.topic) && Objects.equals(topicId, other.topicId);
    }

    /** Called before the partition is read: from now on a change is news again. */
    public void reading() {
        if (slot != null) {
            slot.reading();
        }
    }

    /**
     * Called with what the read found: {@code data} as it would be answered, and whether more is readable
     * than it holds (a byte limit cut it short).
     */
    public void read(FetchResponse.PartitionData data, boolean more) {
        if (slot != null) {
            slot.read(data, more);
        }
    }
}

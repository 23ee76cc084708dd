package io.krill.broker.fetch;

import io.krill.wire.message.FetchRequest;
import java.util.UUID;

/**
 * One partition a fetch reads: its topic as the request named it (a name below Fetch v13, an id from
 * v13) and what was asked of it. For a fetch in a session this is the session's view: the parameters the
 * client last sent for the partition, in this request or an earlier one.
 *
 * @param topic   the topic's name as requested (null or empty when named by id)
 * @param topicId the topic's id as requested (zero below v13)
 * @param asked   the partition's fetch parameters; never modified once in a target
 */
public record FetchTarget(String topic, UUID topicId, FetchRequest.FetchPartition asked) {
    /** Whether {@code other} names the same topic, so that both go under one topic in a response. */
    public boolean sameTopic(FetchTarget other) {
        return java.util.Objects.equals(topic, other.topic) && java.util.Objects.equals(topicId, other.topicId);
    }
}

package io.krill.broker.group;

import io.krill.broker.coordinator.CoordinatorLog;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a consumer group's record (key type 1003 of {@link GroupRecords}): its group epoch and its members'
 * subscriptions, whenever the epoch moves or a previous write failed, so that a coordinator that loads
 * the partition never goes back to an epoch members were past. Member epochs and assignments are not
 * written: after a reload members are fenced and rejoin.
 *
 * <p>Thread-safety: thread-safe (the log is); {@link #write} expects the caller to hold the group's monitor.
 */
final class ConsumerGroupRecordWriter {
    private static final Logger LOG = LoggerFactory.getLogger(ConsumerGroupRecordWriter.class);

    private final CoordinatorLog log;

    ConsumerGroupRecordWriter(CoordinatorLog log) {
        this.log = log;
    }

    /**
     * Appends the group's record as it is now. The future completes when it is committed; a failure is
     * left to the group's next heartbeat, which answers its error and writes the record again.
     */
    CompletableFuture<Void> write(ClassicGroup group) {
        ConsumerGroup cg = group.consumer;
        List<GroupRecords.ConsumerMemberValue> members = new ArrayList<>();
        for (ConsumerGroup.Member m : cg.members.values()) {
            members.add(new GroupRecords.ConsumerMemberValue(m.memberId, m.instanceId, m.rackId, m.clientId,
                    m.clientHost, m.rebalanceTimeoutMs, m.serverAssignor, m.subscribedTopics, m.subscribedTopicRegex));
        }
        byte[] value = GroupRecords.consumerGroupValue(new GroupRecords.ConsumerGroupValue(cg.groupEpoch, members));
        CompletableFuture<Void> written = log.append(group.partition(), List.of(new CoordinatorLog.Entry(
                GroupRecords.consumerGroupKey(group.groupId()), value)));
        written.whenComplete((ok, failure) -> {
            if (failure != null) {
                LOG.warn("Failed to store consumer group {} (written again at its next heartbeat): {}",
                        group.groupId(), failure.getMessage());
            }
        });
        return written;
    }
}

package io.krill.broker.group;

import io.krill.broker.coordinator.CoordinatorLog;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a share group's record (key type 1004 of {@link GroupRecords}): the whole group, whenever what it
 * persists changed since the last write, or the last write failed.
 *
 * <p>Thread-safety: thread-safe (the log is); {@link #writeIfChanged} expects the caller to hold the group's
 * monitor.
 */
final class ShareGroupRecordWriter {
    private static final Logger LOG = LoggerFactory.getLogger(ShareGroupRecordWriter.class);

    private final CoordinatorLog log;

    ShareGroupRecordWriter(CoordinatorLog log) {
        this.log = log;
    }

    /**
     * Appends the group's record when it differs from the last one written, or when that write failed, and
     * makes it the group's {@link ShareGroup#lastWrite}: heartbeats are answered once it is committed.
     */
    void writeIfChanged(ClassicGroup group) {
        ShareGroup sg = group.share;
        byte[] value = GroupRecords.shareGroupValue(value(sg));
        if (Arrays.equals(value, sg.lastWritten) && !sg.lastWrite.isCompletedExceptionally()) {
            return;
        }
        sg.lastWritten = value;
        CompletableFuture<Void> written = log.append(group.partition(), List.of(new CoordinatorLog.Entry(
                GroupRecords.shareGroupKey(group.groupId()), value)));
        written.whenComplete((ok, failure) -> {
            if (failure != null) {
                LOG.warn("Failed to store share group {} (written again at its next heartbeat): {}",
                        group.groupId(), failure.getMessage());
            }
        });
        sg.lastWrite = written;
    }

    static GroupRecords.ShareGroupValue value(ShareGroup sg) {
        List<GroupRecords.ShareMemberValue> members = new ArrayList<>();
        for (ShareGroup.Member m : sg.members.values()) {
            members.add(new GroupRecords.ShareMemberValue(m.memberId, m.rackId, m.clientId, m.clientHost,
                    m.memberEpoch, m.previousMemberEpoch, m.subscribedTopics, m.assigned));
        }
        return new GroupRecords.ShareGroupValue(sg.groupEpoch, sg.assignmentEpoch, members, sg.initialized);
    }
}

package io.krill.broker.group;

import io.krill.broker.coordinator.CoordinatorLog;
import io.krill.controller.metadata.MetadataImage;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Appends what changed in a KIP-848 consumer group's or KIP-932 share group's records
 * ({@link ConsumerGroupRecords}, {@link ShareGroupRecords}) since they were last written: the delta its
 * {@link GroupRecordLedger} gives, one append per operation, which becomes the group's
 * {@link GroupRecordLedger#lastWrite} (heartbeats are answered once it is committed). A failed write makes
 * the next one rewrite the whole group.
 *
 * <p>Thread-safety: thread-safe (the log is); every method expects the caller to hold the group's monitor.
 */
final class ModernGroupRecordWriter {
    private static final Logger LOG = LoggerFactory.getLogger(ModernGroupRecordWriter.class);

    private final CoordinatorLog log;

    ModernGroupRecordWriter(CoordinatorLog log) {
        this.log = log;
    }

    /**
     * Appends what changed in the group's consumer group records since they were written; returns the
     * group's latest write (the previous one when nothing changed).
     */
    CompletableFuture<Void> writeConsumerGroup(ClassicGroup group) {
        ConsumerGroup cg = group.consumer;
        return write(group, cg.records, ConsumerGroupRecords.records(cg, cg.records.scope()));
    }

    /** As {@link #writeConsumerGroup}, for the group's share group records ({@code image} names topics). */
    CompletableFuture<Void> writeShareGroup(ClassicGroup group, MetadataImage image) {
        ShareGroup sg = group.share;
        return write(group, sg.records, ShareGroupRecords.records(sg, sg.records.scope(), image));
    }

    /**
     * Every record of the group's consumer or share group as changes to write, none if it is neither: the
     * one-time conversion of a former layout, whose append the caller makes (they count as written).
     */
    static List<CoordinatorLog.Entry> allRecords(ClassicGroup group, MetadataImage image) {
        if (group.consumer != null) {
            group.consumer.records.allChanged();
            return delta(group.groupId(), group.consumer.records, ConsumerGroupRecords.records(group.consumer, null));
        }
        if (group.share != null) {
            group.share.records.allChanged();
            return delta(group.groupId(), group.share.records, ShareGroupRecords.records(group.share, null, image));
        }
        return List.of();
    }

    private CompletableFuture<Void> write(ClassicGroup group, GroupRecordLedger ledger,
                                          Map<GroupRecordLedger.Slot, byte[]> current) {
        List<CoordinatorLog.Entry> entries = delta(group.groupId(), ledger, current);
        if (entries.isEmpty()) {
            return ledger.lastWrite;
        }
        CompletableFuture<Void> written = log.append(group.partition(), entries);
        ledger.appended(written);
        written.whenComplete((ok, failure) -> {
            if (failure != null) {
                LOG.warn("Failed to store group {} (written again at its next change): {}", group.groupId(),
                        failure.getMessage());
            }
        });
        ledger.lastWrite = written;
        return written;
    }

    /** The ledger's delta to {@code current} as entries of {@code groupId}'s keys (they count as written). */
    private static List<CoordinatorLog.Entry> delta(String groupId, GroupRecordLedger ledger,
                                            Map<GroupRecordLedger.Slot, byte[]> current) {
        return ledger.delta(current, slot -> GroupRecords.modernKey(slot.type(), groupId, slot.id()));
    }

    /**
     * The tombstones of every record of the group written (its deletion), in Kafka's order; the caller
     * appends them and gives the append to the ledger ({@link GroupRecordLedger#appended}).
     */
    static List<CoordinatorLog.Entry> tombstones(String groupId, GroupRecordLedger ledger) {
        return ledger.tombstones(slot -> GroupRecords.modernKey(slot.type(), groupId, slot.id()));
    }
}

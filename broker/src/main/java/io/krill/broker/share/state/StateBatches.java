package io.krill.broker.share.state;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How a write's batches combine with the stored ones, as Kafka's share coordinator combines them: every
 * offset a new batch covers takes that batch's state and delivery count (a later batch of the same write
 * wins over an earlier one), the rest keep theirs; what lies below the start offset is dropped (a batch
 * across it is cut at it); neighbours with the same state and count become one batch. Stateless.
 */
final class StateBatches {
    private StateBatches() {
    }

    /** {@code current} with {@code written} laid over it, from {@code startOffset} on, in offset order. */
    static List<StateBatch> merge(List<StateBatch> current, List<StateBatch> written, long startOffset) {
        TreeMap<Long, StateBatch> byFirst = new TreeMap<>();
        for (StateBatch batch : current) {
            overlay(byFirst, batch);
        }
        for (StateBatch batch : written) {
            overlay(byFirst, batch);
        }
        List<StateBatch> result = new ArrayList<>(byFirst.size());
        for (StateBatch batch : byFirst.values()) {
            if (batch.lastOffset() < startOffset) {
                continue;
            }
            if (batch.firstOffset() < startOffset) {
                batch = new StateBatch(startOffset, batch.lastOffset(), batch.deliveryState(), batch.deliveryCount());
            }
            StateBatch previous = result.isEmpty() ? null : result.get(result.size() - 1);
            if (previous != null && previous.lastOffset() + 1 == batch.firstOffset()
                    && previous.deliveryState() == batch.deliveryState()
                    && previous.deliveryCount() == batch.deliveryCount()) {
                result.set(result.size() - 1, new StateBatch(previous.firstOffset(), batch.lastOffset(),
                        batch.deliveryState(), batch.deliveryCount()));
            } else {
                result.add(batch);
            }
        }
        return result;
    }

    /** Puts {@code batch} into {@code byFirst}, cutting away what it overlaps of the batches there. */
    private static void overlay(TreeMap<Long, StateBatch> byFirst, StateBatch batch) {
        Map.Entry<Long, StateBatch> before = byFirst.lowerEntry(batch.firstOffset());
        if (before != null && before.getValue().lastOffset() >= batch.firstOffset()) {
            StateBatch old = before.getValue();
            byFirst.put(old.firstOffset(), with(old, old.firstOffset(), batch.firstOffset() - 1));
            if (old.lastOffset() > batch.lastOffset()) {
                byFirst.put(batch.lastOffset() + 1, with(old, batch.lastOffset() + 1, old.lastOffset()));
            }
        }
        for (StateBatch old : new ArrayList<>(byFirst.subMap(batch.firstOffset(), true, batch.lastOffset(), true)
                .values())) {
            byFirst.remove(old.firstOffset());
            if (old.lastOffset() > batch.lastOffset()) {
                byFirst.put(batch.lastOffset() + 1, with(old, batch.lastOffset() + 1, old.lastOffset()));
            }
        }
        byFirst.put(batch.firstOffset(), batch);
    }

    private static StateBatch with(StateBatch batch, long first, long last) {
        return new StateBatch(first, last, batch.deliveryState(), batch.deliveryCount());
    }

    /** Offsets at or above {@code startOffset} whose delivery is complete (acknowledged or archived). */
    static long completeCount(List<StateBatch> batches) {
        long count = 0;
        for (StateBatch batch : batches) {
            if (batch.deliveryState() == StateBatch.ACKNOWLEDGED || batch.deliveryState() == StateBatch.ARCHIVED) {
                count += batch.lastOffset() - batch.firstOffset() + 1;
            }
        }
        return count;
    }
}

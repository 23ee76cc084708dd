package io.krill.broker.txn;

import io.krill.broker.coordinator.CoordinatorLog;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link CoordinatorLog} in memory: appends commit at once unless a failure is armed or appends are held
 * ({@link #hold}: they complete on {@link #release}, as writes waiting for the in-sync replicas).
 */
final class FakeCoordinatorLog implements CoordinatorLog {
    final Map<Integer, List<Entry>> partitions = new ConcurrentHashMap<>();
    volatile Errors failNext;
    /** What {@link #isFenced} answers. */
    volatile boolean fenced;
    private final List<Runnable> held = new ArrayList<>();
    private boolean holding;

    /** From now on appends wait for {@link #release}. */
    synchronized void hold() {
        holding = true;
    }

    /** Completes the held appends in order and stops holding. */
    void release() {
        List<Runnable> ready;
        synchronized (this) {
            holding = false;
            ready = new ArrayList<>(held);
            held.clear();
        }
        ready.forEach(Runnable::run);
    }

    @Override
    public CompletableFuture<Void> append(int partition, List<Entry> entries) {
        synchronized (this) {
            if (holding) {
                CompletableFuture<Void> later = new CompletableFuture<>();
                held.add(() -> {
                    partitions.computeIfAbsent(partition, p -> new ArrayList<>()).addAll(entries);
                    later.complete(null);
                });
                return later;
            }
        }
        Errors failure = failNext;
        if (failure != null) {
            failNext = null;
            return CompletableFuture.failedFuture(new ApiException(failure, "injected"));
        }
        partitions.computeIfAbsent(partition, p -> new ArrayList<>()).addAll(entries);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public boolean isFenced() {
        return fenced;
    }

    @Override
    public CompletableFuture<Void> appendTransactional(int partition, long producerId, short producerEpoch,
                                                       List<Entry> entries) {
        throw new UnsupportedOperationException("the transaction coordinator never writes transactionally");
    }

    @Override
    public void replay(int partition, Replayer replayer) {
        for (Entry entry : partitions.getOrDefault(partition, List.of())) {
            replayer.replay(entry.key(), entry.value());
        }
    }

    /** The records written for {@code transactionalId}, oldest first (null values are tombstones). */
    List<TransactionValue> history(int partition, String transactionalId) {
        List<TransactionValue> values = new ArrayList<>();
        for (Entry entry : partitions.getOrDefault(partition, List.of())) {
            TransactionRecords.Key key = TransactionRecords.readKey(io.netty.buffer.Unpooled.wrappedBuffer(entry.key()));
            if (key != null && transactionalId.equals(key.transactionalId())) {
                io.netty.buffer.ByteBuf value = entry.value() == null ? null
                        : io.netty.buffer.Unpooled.wrappedBuffer(entry.value());
                values.add(value == null ? null : key.legacy() ? TransactionRecords.readLegacyValue(value)
                        : TransactionRecords.readValue(value));
            }
        }
        return values;
    }
}

package io.krill.broker.txn;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.krill.controller.metadata.MetadataStore;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Producer ids never make a request thread wait for the metadata store. */
@Timeout(30)
class ProducerIdManagerTest {
    private static final Duration PATIENCE = Duration.ofSeconds(10);

    /** A store whose only working method is allocateProducerIds, answered by {@code allocate}. */
    private static MetadataStore store(LongSupplier allocate) {
        return (MetadataStore) java.lang.reflect.Proxy.newProxyInstance(MetadataStore.class.getClassLoader(),
                new Class<?>[] {MetadataStore.class}, (proxy, method, args) -> {
                    if (method.getName().equals("allocateProducerIds")) {
                        return allocate.getAsLong();
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    /** Blocks of {@link ProducerIdManager#BLOCK_SIZE} handed out in order, counted. */
    private static final class Blocks implements LongSupplier {
        final AtomicInteger allocations = new AtomicInteger();
        private final AtomicLong next = new AtomicLong();

        @Override
        public long getAsLong() {
            allocations.incrementAndGet();
            return next.getAndAdd(ProducerIdManager.BLOCK_SIZE);
        }
    }

    private static long awaitId(ProducerIdManager ids) {
        long[] id = new long[1];
        await().atMost(PATIENCE).pollInterval(Duration.ofMillis(5)).until(() -> {
            try {
                id[0] = ids.nextProducerId();
                return true;
            } catch (ApiException e) {
                assertEquals(Errors.COORDINATOR_LOAD_IN_PROGRESS, e.error());
                return false;
            }
        });
        return id[0];
    }

    @Test
    void aSlowStoreIsAnsweredWithARetriableErrorNotAWait() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Blocks blocks = new Blocks();
        ProducerIdManager ids = new ProducerIdManager(store(() -> {
            try {
                release.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return blocks.getAsLong();
        }));
        ApiException e = assertThrows(ApiException.class, ids::nextProducerId, "the block is still being reserved");
        assertEquals(Errors.COORDINATOR_LOAD_IN_PROGRESS, e.error());
        release.countDown();
        assertEquals(0, awaitId(ids));
        assertEquals(1, ids.nextProducerId());
    }

    @Test
    void theNextBlockIsReservedBeforeTheCurrentOneRunsOut() {
        Blocks blocks = new Blocks();
        ProducerIdManager ids = new ProducerIdManager(store(blocks));
        assertEquals(0, awaitId(ids));
        for (long expected = 1; expected <= ProducerIdManager.BLOCK_SIZE - ProducerIdManager.PREFETCH_BELOW; expected++) {
            assertEquals(expected, ids.nextProducerId());
        }
        await().atMost(PATIENCE).until(() -> blocks.allocations.get() == 2); // prefetched
        for (long expected = ProducerIdManager.BLOCK_SIZE - ProducerIdManager.PREFETCH_BELOW + 1;
             expected < 2L * ProducerIdManager.BLOCK_SIZE; expected++) {
            assertEquals(expected, ids.nextProducerId(), "no id skipped or repeated across blocks");
        }
        await("the third block is on its way").atMost(PATIENCE).until(() -> blocks.allocations.get() == 3);
    }

    @Test
    void aFailedReservationIsAskedForAgain() {
        Blocks blocks = new Blocks();
        AtomicInteger calls = new AtomicInteger();
        ProducerIdManager ids = new ProducerIdManager(store(() -> {
            if (calls.getAndIncrement() == 0) {
                throw new ApiException(Errors.REQUEST_TIMED_OUT, "ZooKeeper is away");
            }
            return blocks.getAsLong();
        }));
        assertEquals(0, awaitId(ids));
        assertEquals(2, calls.get());
    }
}

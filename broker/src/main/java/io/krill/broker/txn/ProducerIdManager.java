package io.krill.broker.txn;

import io.krill.controller.metadata.MetadataStore;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands out producer ids from blocks reserved in the metadata store, so ids are unique across the
 * cluster and restarts while a block costs one durable write per {@link #BLOCK_SIZE} ids. One per broker,
 * shared by idempotent producers (InitProducerId without a transactional id) and the transaction
 * coordinator.
 *
 * <p>Never waits for the store on the caller's thread (a request thread): the first block is fetched
 * as soon as the manager exists, the next one in the background once 90 % of the current one is used
 * (as Kafka's RPCProducerIdManager does), and when the ids run out before it has come, the caller gets
 * COORDINATOR_LOAD_IN_PROGRESS, which producers retry, as from Kafka.
 *
 * <p>Thread-safe: synchronized; the store is called on a fetch thread ({@code krill-producer-ids}, which
 * exists only while a block is being fetched).
 */
public final class ProducerIdManager {
    private static final Logger LOG = LoggerFactory.getLogger(ProducerIdManager.class);
    static final int BLOCK_SIZE = 1000;
    /** The next block is fetched when fewer ids than this are left in the current one. */
    static final int PREFETCH_BELOW = BLOCK_SIZE / 10;

    private final MetadataStore store;
    private final Executor fetcher;
    // guarded by this
    private long next;
    private long end;
    private CompletableFuture<Long> nextBlock; // the start of the block being fetched or fetched; null: none asked

    public ProducerIdManager(MetadataStore store) {
        this(store, fetchThread());
    }

    /** @param fetcher runs the store's allocations */
    ProducerIdManager(MetadataStore store, Executor fetcher) {
        this.store = store;
        this.fetcher = fetcher;
        synchronized (this) {
            requestBlock();
        }
    }

    private static Executor fetchThread() {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread thread = new Thread(r, "krill-producer-ids");
            thread.setDaemon(true);
            return thread;
        });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    /**
     * The next unused producer id.
     *
     * @throws ApiException COORDINATOR_LOAD_IN_PROGRESS when the ids of the current block are used up and
     *                      the next block has not been reserved yet (retriable)
     */
    public synchronized long nextProducerId() {
        if (next >= end && !takeFetchedBlock()) {
            throw new ApiException(Errors.COORDINATOR_LOAD_IN_PROGRESS,
                    "Producer ids are being reserved in the metadata store; retry");
        }
        long id = next++;
        if (end - next < PREFETCH_BELOW) {
            requestBlock();
        }
        return id;
    }

    /** Switches to the fetched block; false when it is still on its way (or failed: asked again). */
    private boolean takeFetchedBlock() {
        CompletableFuture<Long> pending = requestBlock();
        if (!pending.isDone()) {
            return false;
        }
        nextBlock = null;
        long start;
        try {
            start = pending.join();
        } catch (CompletionException e) {
            LOG.warn("Reserving producer ids failed ({}); asking again", String.valueOf(e.getCause()));
            requestBlock();
            return false;
        }
        next = start;
        end = start + BLOCK_SIZE;
        return true;
    }

    private CompletableFuture<Long> requestBlock() {
        if (nextBlock == null) {
            nextBlock = CompletableFuture.supplyAsync(() -> store.allocateProducerIds(BLOCK_SIZE), fetcher);
        }
        return nextBlock;
    }
}

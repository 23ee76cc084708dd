package io.krill.controller.cluster;

import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * Producer-id blocks from the cluster's counter in ZooKeeper ({@link ZkPaths#producerIds()}), taken
 * with a version-checked write.
 *
 * <p>Thread-safe: {@link #allocate} is serialised on this object (one per store), so that only brokers
 * race (and back off at random when they do).
 */
final class ProducerIdBlocks {
    private static final int MAX_PRODUCER_ID_ATTEMPTS = 100;

    private final StoreContext context;

    ProducerIdBlocks(StoreContext context) {
        this.context = context;
    }

    /**
     * Takes the next block from the cluster's counter with a conditional write; serialised within this
     * broker, so that only brokers race (and back off at random when they do).
     */
    synchronized long allocate(int count) {
        if (count <= 0) {
            throw new IllegalArgumentException("count must be positive: " + count);
        }
        context.ensureOpen();
        ZkSession session = context.session();
        ZkPaths paths = context.paths();
        return context.guarded(() -> {
            for (int attempt = 0; attempt < MAX_PRODUCER_ID_ATTEMPTS; attempt++) {
                if (attempt > 0) {
                    backOff();
                }
                Stat stat = new Stat();
                byte[] data = session.readOrNull(paths.producerIds(), stat);
                if (data == null) {
                    throw new IllegalStateException("no producer-id counter at " + paths.producerIds());
                }
                long first = MetadataRecords.decodeNextProducerId(data);
                byte[] next = MetadataRecords.encodeNextProducerId(first + count);
                try {
                    session.call(zk -> zk.setData(paths.producerIds(), next, stat.getVersion()));
                    return first;
                } catch (KeeperException.BadVersionException e) {
                    // another broker took a block (or a retried write of ours landed): the block is lost, never reused
                } catch (KeeperException e) {
                    throw ZkSession.unexpected(e);
                }
            }
            throw new ApiException(Errors.REQUEST_TIMED_OUT, "producer-id counter kept changing");
        });
    }

    private void backOff() {
        try {
            Thread.sleep(1 + context.random().nextInt(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ZkUnavailableException("interrupted", e);
        }
    }
}

package io.krill.controller.cluster;

import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.TopicImage;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * What the parts of {@link ZooKeeperMetadataStore} share: its configuration, its ZooKeeper session,
 * layout and partition records, the watcher that holds its image, one random source, and whether the
 * store is closed; plus the error mapping every change uses.
 *
 * <p>Thread-safe: immutable; every component is thread-safe ({@link Random} included).
 *
 * @param closed true once the store is closing (read on every change)
 */
record StoreContext(ZooKeeperStoreConfig config, ZkPaths paths, ZkSession session, MetadataWatcher watcher,
                    PartitionRecords records, Random random, BooleanSupplier closed) {
    private static final String UNCLEAN_CONFIG = "unclean.leader.election.enable";

    int nodeId() {
        return config.nodeId();
    }

    MetadataImage image() {
        return watcher.image();
    }

    boolean isClosed() {
        return closed.getAsBoolean();
    }

    void ensureOpen() {
        if (isClosed()) {
            throw new IllegalStateException("metadata store of broker " + nodeId() + " is closed");
        }
    }

    /** Waits for a refresh of the image; ZooKeeper not answering in time is REQUEST_TIMED_OUT. */
    MetadataImage await(CompletableFuture<MetadataImage> refresh) {
        return guarded(() -> MetadataWatcher.await(refresh, config.operationTimeoutMs()));
    }

    /** Runs a ZooKeeper operation; ZooKeeper not answering within the operation timeout is REQUEST_TIMED_OUT. */
    <T> T guarded(Supplier<T> operation) {
        try {
            return operation.get();
        } catch (ZkUnavailableException e) {
            throw new ApiException(Errors.REQUEST_TIMED_OUT, e.getMessage(), e);
        }
    }

    /** The topic's {@code unclean.leader.election.enable} override, else the broker's default. */
    boolean uncleanElection(TopicImage topic) {
        String override = topic.configs().get(UNCLEAN_CONFIG);
        return override != null ? Boolean.parseBoolean(override.trim()) : config.uncleanLeaderElection();
    }
}

package io.krill.controller.cluster;

import io.krill.controller.metadata.FinalizedFeatures;
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
    static final String MIN_ISR_CONFIG = "min.insync.replicas";

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

    /**
     * The eligible-leader-replicas settings of {@code topic} in {@code image}: the feature's level, and the
     * topic's {@code min.insync.replicas} (its override, else the cluster-wide dynamic default, else this
     * broker's static default).
     */
    ElrSettings elrSettings(MetadataImage image, TopicImage topic) {
        if (image.finalizedFeatures().level(FinalizedFeatures.ELIGIBLE_LEADER_REPLICAS_VERSION) < 1) {
            return ElrSettings.OFF;
        }
        return new ElrSettings(true, minInsyncReplicas(image, topic));
    }

    /** The effective {@code min.insync.replicas} of {@code topic}; an unparsable value counts as unset. */
    int minInsyncReplicas(MetadataImage image, TopicImage topic) {
        Integer value = topic == null ? null : positiveInt(topic.configs().get(MIN_ISR_CONFIG));
        if (value == null) {
            value = positiveInt(image.entityConfigs("").get(MIN_ISR_CONFIG));
        }
        return value != null ? value : config.minInsyncReplicas();
    }

    private static Integer positiveInt(String value) {
        if (value == null) {
            return null;
        }
        try {
            int parsed = Integer.parseInt(value.trim());
            return parsed >= 1 ? parsed : null;
        } catch (NumberFormatException e) {
            return null; // refused by the config handlers before it is written; never from Krill itself
        }
    }
}

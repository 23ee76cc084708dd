package io.krill.controller.cluster;

/**
 * What the eligible-leader-replicas rules (Kafka's KIP-966) need to know of one topic: whether the
 * cluster's {@code eligible.leader.replicas.version} is at least 1, and the topic's effective
 * {@code min.insync.replicas} (its override, else the cluster-wide dynamic default, else the controller's
 * static default).
 *
 * <p>Immutable; thread-safe.
 *
 * @param enabled            whether ELRs are tracked and elected from
 * @param minInsyncReplicas  the topic's effective {@code min.insync.replicas}
 */
public record ElrSettings(boolean enabled, int minInsyncReplicas) {
    /** The feature off: no ELR is kept, the election is Krill's ISR-only rule. */
    public static final ElrSettings OFF = new ElrSettings(false, 1);

    public ElrSettings {
        if (minInsyncReplicas < 1) {
            throw new IllegalArgumentException("min.insync.replicas " + minInsyncReplicas + " < 1");
        }
    }
}

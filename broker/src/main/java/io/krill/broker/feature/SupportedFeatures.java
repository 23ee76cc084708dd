package io.krill.broker.feature;

import io.krill.controller.metadata.FinalizedFeatures;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The feature levels this broker's software can run (KIP-584's supported features), as ApiVersions reports
 * them and UpdateFeatures checks a new finalized level against. Every broker of a cluster runs the same
 * Krill, so one broker's table is the cluster's.
 *
 * <ul>
 *   <li>{@code transaction.version} 0-2: 2 is KIP-890 part 2 (an epoch bump per transaction, implicit
 *       AddPartitionsToTxn through Produce v12 and TxnOffsetCommit v5); 0 and 1 the classic flow.</li>
 *   <li>{@code group.version} 0-1: 1 serves the consumer group protocol of KIP-848
 *       (ConsumerGroupHeartbeat, ConsumerGroupDescribe).</li>
 *   <li>{@code eligible.leader.replicas.version} 0-{@link #ELR_MAX}: 1 keeps eligible leader replicas
 *       (KIP-966) and the strict min-ISR rule for the high watermark (docs/replication.md).</li>
 *   <li>{@code share.version} 0-{@link #SHARE_MAX}: 1 serves share groups (KIP-932: ShareGroupHeartbeat,
 *       ShareFetch, ShareAcknowledge, ... docs/share-groups.md); 2 adds their dead-letter queues (KIP-1191);
 *       0 turns them off.</li>
 * </ul>
 * Kafka's {@code metadata.version} and {@code kraft.version} describe KRaft's metadata log, which Krill
 * (ZooKeeper and Helix) does not have; {@code streams.version} waits for its protocol.
 *
 * <p>Immutable; thread-safe.
 */
public final class SupportedFeatures {
    /** The highest eligible leader replicas level served. */
    static final short ELR_MAX = 1;
    /** The highest share groups level served: 1 is KIP-932, 2 adds dead-letter queues (KIP-1191), as Kafka 4.4. */
    static final short SHARE_MAX = 2;

    /** Feature name to {min, max}, in the order ApiVersions lists them. */
    private static final Map<String, short[]> RANGES = new LinkedHashMap<>();

    static {
        RANGES.put(FinalizedFeatures.TRANSACTION_VERSION, new short[] {0, 2});
        RANGES.put(FinalizedFeatures.GROUP_VERSION, new short[] {0, 1});
        RANGES.put(FinalizedFeatures.ELIGIBLE_LEADER_REPLICAS_VERSION, new short[] {0, ELR_MAX});
        RANGES.put(FinalizedFeatures.SHARE_VERSION, new short[] {0, SHARE_MAX});
    }

    private SupportedFeatures() {
    }

    /** Every supported feature's {min, max} (copies). */
    public static Map<String, short[]> ranges() {
        Map<String, short[]> copy = new LinkedHashMap<>();
        RANGES.forEach((name, range) -> copy.put(name, range.clone()));
        return copy;
    }

    /** Why {@code level} of {@code feature} cannot be finalized here, or null if it can (Kafka's wording). */
    public static String reasonNotSupported(String feature, short level, int nodeId) {
        short[] range = RANGES.get(feature);
        if (range == null || range[1] == 0 && level != 0) {
            return "Broker " + nodeId + " does not support this feature.";
        }
        if (level < range[0] || level > range[1]) {
            return "Broker " + nodeId + " only supports versions [" + range[0] + "-" + range[1] + "]";
        }
        return null;
    }
}

package io.krill.controller.metadata;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The cluster-wide feature levels (Kafka's finalized features, KIP-584): which version of a protocol every
 * broker uses, whatever each one could support. Clients see them in ApiVersions; a Kafka 4.x producer uses
 * transactions version 2 only when {@code transaction.version} is finalized at 2 or more.
 *
 * <p>Stored as the entity configs of {@link #ENTITY} (one key per feature holding its level, and
 * {@code epoch}), written with {@link MetadataStore#updateEntityConfigsAsync}, so every broker's image has
 * them. A cluster that never changed a level has no such entity and runs at {@link #DEFAULTS}, the levels
 * Kafka 4.4 gives a new cluster, at epoch 0; each change bumps the epoch, which clients compare to keep the
 * newest levels any broker told them.
 *
 * <p>Immutable; thread-safe.
 *
 * @param epoch  increases with every change of any level
 * @param levels the level of every feature above 0 (a level of 0 is "off" and not listed)
 */
public record FinalizedFeatures(long epoch, Map<String, Short> levels) {
    public static final String ENTITY = "features/finalized";
    static final String EPOCH_KEY = "epoch";

    public static final String TRANSACTION_VERSION = "transaction.version";
    public static final String GROUP_VERSION = "group.version";
    public static final String ELIGIBLE_LEADER_REPLICAS_VERSION = "eligible.leader.replicas.version";
    public static final String SHARE_VERSION = "share.version";

    /** The levels of a cluster that never changed one. */
    public static final FinalizedFeatures DEFAULTS = new FinalizedFeatures(0, Map.of(
            TRANSACTION_VERSION, (short) 2,
            GROUP_VERSION, (short) 1,
            ELIGIBLE_LEADER_REPLICAS_VERSION, (short) 1,
            SHARE_VERSION, (short) 2));

    public FinalizedFeatures {
        Map<String, Short> positive = new TreeMap<>();
        levels.forEach((name, level) -> {
            if (level > 0) {
                positive.put(name, level);
            }
        });
        levels = Map.copyOf(positive);
    }

    /** The level of {@code feature}, 0 if it is not finalized. */
    public short level(String feature) {
        return levels.getOrDefault(feature, (short) 0);
    }

    /** The features as stored in {@code configs} (the entity's configs; empty: {@link #DEFAULTS}). */
    public static FinalizedFeatures fromConfigs(Map<String, String> configs) {
        if (configs.isEmpty()) {
            return DEFAULTS;
        }
        long epoch = 0;
        Map<String, Short> levels = new HashMap<>();
        for (Map.Entry<String, String> entry : configs.entrySet()) {
            try {
                if (entry.getKey().equals(EPOCH_KEY)) {
                    epoch = Long.parseLong(entry.getValue());
                } else {
                    levels.put(entry.getKey(), Short.parseShort(entry.getValue()));
                }
            } catch (NumberFormatException e) {
                throw new IllegalStateException("feature " + entry.getKey() + " has level " + entry.getValue(), e);
            }
        }
        return new FinalizedFeatures(epoch, levels);
    }

    /** These features with {@code changes} applied (level 0 removes one) and the epoch bumped, as stored. */
    public Map<String, String> toConfigsWith(Map<String, Short> changes) {
        Map<String, Short> next = new HashMap<>(levels);
        next.putAll(changes);
        Map<String, String> configs = new HashMap<>();
        next.forEach((name, level) -> {
            if (level > 0) {
                configs.put(name, Short.toString(level));
            }
        });
        configs.put(EPOCH_KEY, Long.toString(epoch + 1));
        return configs;
    }
}

package io.krill.broker.coordinator;

import io.krill.controller.metadata.MetadataStore;
import io.krill.controller.metadata.NewTopic;
import java.util.HashMap;
import java.util.Map;

/**
 * A coordinator's internal topic as it is created on first need: compacted, internal, its replication
 * factor capped by the live brokers (so one node works) and its {@code min.insync.replicas} by that
 * replication factor (else a small cluster could never write it). Immutable.
 *
 * @param name              e.g. {@code __transaction_state}
 * @param partitions        from the coordinator's {@code *.num.partitions}
 * @param replicationFactor from its {@code *.replication.factor}, before the cap
 * @param minIsr            from its {@code *.min.isr}, or 0 to leave the broker's default (and unclean election)
 * @param compression       its {@code compression.type}
 * @param segmentBytes      from its {@code *.segment.bytes}
 */
public record InternalTopic(String name, int partitions, int replicationFactor, int minIsr, String compression,
                            int segmentBytes) {

    /** The topic to create now, {@code metadata}'s live brokers bounding the replication factor. */
    public NewTopic spec(MetadataStore metadata) {
        int liveBrokers = Math.max(1, metadata.image().brokers().size());
        int replicas = Math.min(replicationFactor, liveBrokers);
        Map<String, String> configs = new HashMap<>();
        configs.put("cleanup.policy", "compact");
        configs.put("compression.type", compression);
        configs.put("segment.bytes", Integer.toString(segmentBytes));
        if (minIsr > 0) {
            configs.put("min.insync.replicas", Integer.toString(Math.min(minIsr, replicas)));
            configs.put("unclean.leader.election.enable", "false");
        }
        return new NewTopic(name, partitions, replicas, Map.of(), Map.copyOf(configs), true);
    }
}

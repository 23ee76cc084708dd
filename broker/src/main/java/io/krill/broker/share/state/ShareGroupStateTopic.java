package io.krill.broker.share.state;

import io.krill.controller.metadata.MetadataStore;
import io.krill.controller.metadata.NewTopic;
import java.util.Map;

/**
 * Creates {@code __share_group_state}: {@code share.coordinator.state.topic.num.partitions} partitions,
 * replication factor {@code share.coordinator.state.topic.replication.factor} capped by the live brokers
 * (so one node works, as for {@code __consumer_offsets}), {@code min.insync.replicas} from
 * {@code share.coordinator.state.topic.min.isr} capped by that replication factor, compacted by
 * share-partition key (see {@link ShareStateRecords}), internal, segments of
 * {@code share.coordinator.state.topic.segment.bytes}. Stateless.
 */
public final class ShareGroupStateTopic {
    public static final String NAME = "__share_group_state";

    private ShareGroupStateTopic() {
    }

    /** The topic as it is created on first need: its replication factor bounded by the live brokers. */
    public static NewTopic spec(MetadataStore metadata, ShareCoordinatorConfig config) {
        int liveBrokers = Math.max(1, metadata.image().brokers().size());
        int replicationFactor = Math.min(config.stateTopicReplicationFactor(), liveBrokers);
        int minIsr = Math.min(config.stateTopicMinIsr(), replicationFactor);
        Map<String, String> configs = Map.of(
                "cleanup.policy", "compact",
                "compression.type", "producer",
                "min.insync.replicas", Integer.toString(minIsr),
                "unclean.leader.election.enable", "false",
                "segment.bytes", Integer.toString(config.stateTopicSegmentBytes()));
        return new NewTopic(NAME, config.stateTopicNumPartitions(), replicationFactor, Map.of(), configs, true);
    }

    /** The partition of {@code __share_group_state} that holds {@code key} (Kafka's hash of the coordinator key). */
    public static int partitionFor(SharePartitionKey key, int partitions) {
        int hash = key.coordinatorKey().hashCode();
        return (hash == Integer.MIN_VALUE ? 0 : Math.abs(hash)) % partitions;
    }
}

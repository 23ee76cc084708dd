package io.krill.broker.config;

import static io.krill.broker.config.ConfigKey.builder;
import static io.krill.broker.config.ConfigType.INT;
import static io.krill.broker.config.ConfigType.SHORT;
import static io.krill.broker.config.Importance.HIGH;
import static io.krill.broker.config.Importance.LOW;
import static io.krill.broker.config.Validators.atLeast;
import static io.krill.broker.config.Validators.between;

/**
 * Share coordinator keys (KIP-932; Kafka 4.4's ShareCoordinatorConfig): the {@code __share_group_state}
 * topic and how the coordinator writes and snapshots it. Kafka's types, defaults and validators.
 */
final class ShareCoordinatorConfigDefs {
    private ShareCoordinatorConfigDefs() {
    }

    static ConfigDef define() {
        return new ConfigDef()
            .define(builder("share.coordinator.state.topic.num.partitions", INT).defaultValue(50)
                .validator(atLeast(1)).importance(HIGH)
                .doc("The number of partitions of __share_group_state (do not change after deployment)."))
            .define(builder("share.coordinator.state.topic.replication.factor", SHORT).defaultValue(3)
                .validator(atLeast(1)).importance(HIGH)
                .doc("The replication factor of __share_group_state; its creation fails while the cluster is "
                    + "smaller."))
            .define(builder("share.coordinator.state.topic.min.isr", SHORT).defaultValue(2).validator(atLeast(1))
                .importance(HIGH)
                .doc("The min.insync.replicas of __share_group_state."))
            .define(builder("share.coordinator.state.topic.segment.bytes", INT).defaultValue(100 * 1024 * 1024)
                .validator(atLeast(1)).importance(HIGH)
                .doc("The segment size of __share_group_state."))
            .define(builder("share.coordinator.state.topic.compression.codec", INT).defaultValue(0)
                .importance(HIGH)
                .doc("The compression codec id of share-state batches (0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd)."))
            .define(builder("share.coordinator.threads", INT).defaultValue(1).validator(atLeast(1))
                .doc("The threads of the share coordinator."))
            .define(builder("share.coordinator.snapshot.update.records.per.snapshot", INT).defaultValue(500)
                .validator(between(0, 500))
                .doc("How many update records of a share-partition are written between two snapshots of it."))
            .define(builder("share.coordinator.load.buffer.size", INT).defaultValue(5 * 1024 * 1024)
                .validator(atLeast(1)).importance(HIGH)
                .doc("The read batch size when loading __share_group_state into the coordinator."))
            .define(builder("share.coordinator.append.linger.ms", INT).defaultValue(-1).validator(atLeast(-1))
                .doc("How long the coordinator lets writes accumulate before appending them; -1 adapts to the "
                    + "load."))
            .define(builder("share.coordinator.write.timeout.ms", INT).defaultValue(5000).validator(atLeast(1))
                .importance(HIGH)
                .doc("How long a share coordinator write waits for the replicas of __share_group_state."))
            .define(builder("share.coordinator.state.topic.prune.interval.ms", INT).defaultValue(300000)
                .validator(atLeast(1)).importance(LOW).internal()
                .doc("The interval between prunings of records of __share_group_state no longer needed."))
            .define(builder("share.coordinator.cold.partition.snapshot.interval.ms", INT).defaultValue(300000)
                .validator(atLeast(1)).importance(LOW).internal()
                .doc("The interval between forced snapshots of share-partitions that are not being updated."))
            .define(builder("share.coordinator.cached.buffer.max.bytes", INT).defaultValue(1048588)
                .validator(atLeast(524288)).clusterWide()
                .doc("The largest write buffer the share coordinator keeps for reuse."));
    }
}

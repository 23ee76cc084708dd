package io.krill.broker.config;

import static io.krill.broker.config.ConfigKey.builder;
import static io.krill.broker.config.ConfigType.INT;
import static io.krill.broker.config.ConfigType.LIST;
import static io.krill.broker.config.ConfigType.LONG;
import static io.krill.broker.config.ConfigType.SHORT;
import static io.krill.broker.config.ConfigType.STRING;
import static io.krill.broker.config.Importance.HIGH;
import static io.krill.broker.config.Validators.atLeast;
import static io.krill.broker.config.Validators.listOf;
import static io.krill.broker.config.Validators.oneOfIgnoreCase;

/** Group coordinator and offset management keys (Kafka's GroupCoordinatorConfig). */
final class GroupConfigDefs {
    private GroupConfigDefs() {
    }

    static ConfigDef define() {
        return new ConfigDef()
            .define(builder("offset.metadata.max.bytes", INT).defaultValue(4096).importance(HIGH)
                .doc("The maximum size of the metadata string of an offset commit."))
            .define(builder("offsets.load.buffer.size", INT).defaultValue(5 * 1024 * 1024).validator(atLeast(1))
                .importance(HIGH)
                .doc("The read batch size when loading the offsets topic into the coordinator cache."))
            .define(builder("offsets.topic.replication.factor", SHORT).defaultValue(3).validator(atLeast(1))
                .importance(HIGH)
                .doc("The replication factor of __consumer_offsets; its creation fails while the cluster is smaller."))
            .define(builder("offsets.topic.num.partitions", INT).defaultValue(50).validator(atLeast(1))
                .importance(HIGH)
                .doc("The number of partitions of __consumer_offsets (do not change after deployment)."))
            .define(builder("offsets.topic.segment.bytes", INT).defaultValue(100 * 1024 * 1024).validator(atLeast(1))
                .importance(HIGH)
                .doc("The segment size of __consumer_offsets, small for fast compaction and loading."))
            .define(builder("offsets.topic.compression.codec", INT).defaultValue(0).importance(HIGH)
                .doc("The compression codec id of offset commit batches (0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd)."))
            .define(builder("offsets.retention.minutes", INT).defaultValue(7 * 24 * 60).validator(atLeast(1))
                .importance(HIGH)
                .doc("How long committed offsets of an empty group (or a standalone consumer) are kept."))
            .define(builder("offsets.retention.check.interval.ms", LONG).defaultValue(600000L).validator(atLeast(1))
                .importance(HIGH)
                .doc("How often expired offsets are looked for."))
            .define(builder("offsets.commit.timeout.ms", INT).defaultValue(5000).validator(atLeast(1))
                .importance(HIGH)
                .doc("How long a coordinator write waits for the offsets topic replicas before failing."))
            .define(builder("group.min.session.timeout.ms", INT).defaultValue(6000).importance(HIGH)
                .doc("The smallest session timeout a classic-protocol member may use."))
            .define(builder("group.max.session.timeout.ms", INT).defaultValue(1800000).importance(HIGH)
                .doc("The largest session timeout a classic-protocol member may use."))
            .define(builder("group.initial.rebalance.delay.ms", INT).defaultValue(3000).importance(Importance.MEDIUM)
                .doc("How long the coordinator waits for more members before the first rebalance of a new group."))
            .define(builder("group.max.size", INT).defaultValue(Integer.MAX_VALUE).validator(atLeast(1))
                .doc("The maximum number of members of a classic-protocol group."))
            .define(builder("group.coordinator.rebalance.protocols", LIST).defaultValue("classic,consumer")
                .validator(listOf(false, "classic", "consumer", "share", "streams"))
                .doc("The enabled rebalance protocols: classic (JoinGroup/SyncGroup) and consumer "
                    + "(KIP-848 ConsumerGroupHeartbeat)."))
            .define(builder("group.consumer.session.timeout.ms", INT).defaultValue(45000).validator(atLeast(1))
                .doc("The session timeout of consumer-protocol members."))
            .define(builder("group.consumer.min.session.timeout.ms", INT).defaultValue(45000).validator(atLeast(1))
                .doc("The smallest session timeout of consumer-protocol members."))
            .define(builder("group.consumer.max.session.timeout.ms", INT).defaultValue(60000).validator(atLeast(1))
                .doc("The largest session timeout of consumer-protocol members."))
            .define(builder("group.consumer.heartbeat.interval.ms", INT).defaultValue(5000).validator(atLeast(1))
                .doc("The heartbeat interval given to consumer-protocol members."))
            .define(builder("group.consumer.min.heartbeat.interval.ms", INT).defaultValue(5000).validator(atLeast(1))
                .doc("The smallest heartbeat interval of consumer-protocol members."))
            .define(builder("group.consumer.max.heartbeat.interval.ms", INT).defaultValue(15000)
                .validator(atLeast(1))
                .doc("The largest heartbeat interval of consumer-protocol members."))
            .define(builder("group.consumer.max.size", INT).defaultValue(Integer.MAX_VALUE).validator(atLeast(1))
                .doc("The maximum number of members of a consumer-protocol group."))
            .define(builder("group.consumer.assignors", LIST).defaultValue("uniform,range").validator(listOf(false))
                .doc("The server-side assignors (built-in names uniform, range); the first is the default."))
            .define(builder("group.consumer.migration.policy", STRING).defaultValue("bidirectional")
                .validator(oneOfIgnoreCase("disabled", "downgrade", "upgrade", "bidirectional"))
                .doc("Whether non-empty groups may be converted between the classic and consumer protocols."));
    }
}

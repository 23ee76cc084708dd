package io.krill.compat.differential;

import io.krill.wire.message.ApiKeys;
import java.util.List;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * Group configs (ConfigResource GROUP, KIP-848/KIP-932) as kafka-configs {@code --entity-type groups} and
 * the Admin client send them, and the broker's share-group keys: DescribeConfigs with synonyms and
 * documentation, IncrementalAlterConfigs (set, delete, invalid values, out of the broker's bounds) and
 * the legacy AlterConfigs.
 */
class GroupConfigsConformanceTest extends DifferentialTest {
    /** The broker keys of share groups and of the share coordinator, described alike. */
    private static final List<String> SHARE_BROKER_KEYS = List.of("group.share.session.timeout.ms",
            "group.share.min.session.timeout.ms", "group.share.max.session.timeout.ms",
            "group.share.heartbeat.interval.ms", "group.share.record.lock.duration.ms",
            "group.share.delivery.count.limit", "group.share.partition.max.record.locks", "group.share.max.size",
            "group.share.assignors", "group.share.max.share.sessions",
            "share.coordinator.state.topic.num.partitions", "share.coordinator.state.topic.replication.factor",
            "share.coordinator.state.topic.min.isr", "share.coordinator.state.topic.segment.bytes",
            "share.coordinator.snapshot.update.records.per.snapshot", "share.coordinator.write.timeout.ms",
            "share.coordinator.append.linger.ms", "share.coordinator.threads", "group.share.assignment.interval.ms",
            "share.coordinator.cached.buffer.max.bytes", "group.share.persister.class.name",
            "share.fetch.purgatory.purge.interval.requests", "errors.deadletterqueue.topic.name.prefix",
            "errors.deadletterqueue.auto.create.topics.enable");

    @Test
    void describeBrokerShareKeys() {
        sequence("DescribeConfigs of the broker's share-group keys", ApiKeys.DESCRIBE_CONFIGS)
                .from(3)
                .request((side, version) -> ClientRequests.describeBrokerConfigs("1", SHARE_BROKER_KEYS))
                .unordered("/results/0/configs", "name")
                .expect("/results/0/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void describeConfigsOfAGroupWithout() {
        sequence("DescribeConfigs of a group without configs", ApiKeys.DESCRIBE_CONFIGS)
                .from(3)
                .request((side, version) -> ClientRequests.describeGroupConfigs("diff-gc-none", null))
                .unordered("/results/0/configs", "name")
                .expect("/results/0/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void describeConfigsOfTheEmptyGroupName() {
        sequence("DescribeConfigs of group \"\"", ApiKeys.DESCRIBE_CONFIGS)
                .request((side, version) -> ClientRequests.describeGroupConfigs("", null))
                .expect("/results/0/errorCode", Errors.INVALID_REQUEST)
                .run();
    }

    @Test
    void setDescribeAndDeleteAGroupConfig() {
        sequence("IncrementalAlterConfigs share.auto.offset.reset=earliest", ApiKeys.INCREMENTAL_ALTER_CONFIGS)
                .request((side, version) -> ClientRequests.incrementalAlterGroupConfig("diff-gc-set",
                        "share.auto.offset.reset", "earliest", false))
                .expect("/responses/0/errorCode", Errors.NONE)
                .run();
        sequence("IncrementalAlterConfigs share.record.lock.duration.ms=20000", ApiKeys.INCREMENTAL_ALTER_CONFIGS)
                .request((side, version) -> ClientRequests.incrementalAlterGroupConfig("diff-gc-set",
                        "share.record.lock.duration.ms", "20000", false))
                .expect("/responses/0/errorCode", Errors.NONE)
                .run();
        sequence("DescribeConfigs of the group's configs", ApiKeys.DESCRIBE_CONFIGS)
                .from(3)
                .request((side, version) -> ClientRequests.describeGroupConfigs("diff-gc-set",
                        List.of("share.auto.offset.reset", "share.record.lock.duration.ms",
                                "share.session.timeout.ms")))
                .unordered("/results/0/configs", "name")
                .expect("/results/0/errorCode", Errors.NONE)
                .run();
        sequence("IncrementalAlterConfigs DELETE share.auto.offset.reset", ApiKeys.INCREMENTAL_ALTER_CONFIGS)
                .request((side, version) -> ClientRequests.incrementalAlterGroupConfig("diff-gc-set",
                        "share.auto.offset.reset", null, false))
                .expect("/responses/0/errorCode", Errors.NONE)
                .run();
        sequence("DescribeConfigs after the delete", ApiKeys.DESCRIBE_CONFIGS)
                .from(3)
                .request((side, version) -> ClientRequests.describeGroupConfigs("diff-gc-set",
                        List.of("share.auto.offset.reset")))
                .expect("/results/0/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void invalidGroupConfigValues() {
        sequence("IncrementalAlterConfigs share.auto.offset.reset=middle", ApiKeys.INCREMENTAL_ALTER_CONFIGS)
                .request((side, version) -> ClientRequests.incrementalAlterGroupConfig("diff-gc-bad",
                        "share.auto.offset.reset", "middle", false))
                .expect("/responses/0/errorCode", Errors.INVALID_CONFIG)
                .run();
        sequence("IncrementalAlterConfigs share.session.timeout.ms out of the broker's bounds",
                ApiKeys.INCREMENTAL_ALTER_CONFIGS)
                .request((side, version) -> ClientRequests.incrementalAlterGroupConfig("diff-gc-bad",
                        "share.session.timeout.ms", "1000", false))
                .expect("/responses/0/errorCode", Errors.INVALID_CONFIG)
                .run();
        sequence("IncrementalAlterConfigs share.delivery.count.limit=1", ApiKeys.INCREMENTAL_ALTER_CONFIGS)
                .request((side, version) -> ClientRequests.incrementalAlterGroupConfig("diff-gc-bad",
                        "share.delivery.count.limit", "1", false))
                .expect("/responses/0/errorCode", Errors.INVALID_CONFIG)
                .run();
        sequence("IncrementalAlterConfigs of an unknown group config", ApiKeys.INCREMENTAL_ALTER_CONFIGS)
                .request((side, version) -> ClientRequests.incrementalAlterGroupConfig("diff-gc-bad",
                        "no.such.config", "1", false))
                .expect("/responses/0/errorCode", Errors.INVALID_CONFIG)
                .run();
        sequence("IncrementalAlterConfigs validate_only share.isolation.level=read_committed",
                ApiKeys.INCREMENTAL_ALTER_CONFIGS)
                .request((side, version) -> ClientRequests.incrementalAlterGroupConfig("diff-gc-bad",
                        "share.isolation.level", "read_committed", true))
                .expect("/responses/0/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void incrementalAlterConfigsOfTheEmptyGroupName() {
        sequence("IncrementalAlterConfigs of group \"\"", ApiKeys.INCREMENTAL_ALTER_CONFIGS)
                .request((side, version) -> ClientRequests.incrementalAlterGroupConfig("", "share.auto.offset.reset",
                        "earliest", false))
                .expect("/responses/0/errorCode", Errors.INVALID_REQUEST)
                .run();
    }

    @Test
    void legacyAlterConfigsOfAGroup() {
        sequence("AlterConfigs of a group", ApiKeys.ALTER_CONFIGS)
                .request((side, version) -> ClientRequests.alterGroupConfig("diff-gc-legacy",
                        "share.auto.offset.reset", "earliest"))
                .expect("/responses/0/errorCode", Errors.NONE)
                .run();
    }
}

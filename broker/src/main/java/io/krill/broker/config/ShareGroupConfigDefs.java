package io.krill.broker.config;

import static io.krill.broker.config.ConfigKey.builder;
import static io.krill.broker.config.ConfigType.BOOLEAN;
import static io.krill.broker.config.ConfigType.INT;
import static io.krill.broker.config.ConfigType.LIST;
import static io.krill.broker.config.ConfigType.STRING;
import static io.krill.broker.config.Importance.LOW;
import static io.krill.broker.config.Validators.atLeast;
import static io.krill.broker.config.Validators.between;
import static io.krill.broker.config.Validators.listOf;

/**
 * Share-group keys of the broker (KIP-932; Kafka 4.4's {@code group.share.*} of GroupCoordinatorConfig and
 * ShareGroupConfig, and the dead-letter queue keys of KIP-1191): the defaults of each share group's settings
 * and the bounds a group config must stay within ({@link GroupConfigValidator}). Types, defaults and
 * validators are Kafka 4.4's, so a Kafka server.properties works unchanged and DescribeConfigs lists them
 * alike.
 */
final class ShareGroupConfigDefs {
    private ShareGroupConfigDefs() {
    }

    static ConfigDef define() {
        return new ConfigDef()
            .define(builder("group.share.session.timeout.ms", INT).defaultValue(45000).validator(atLeast(1))
                .doc("The session timeout of share-group members (share.session.timeout.ms of a group overrides "
                    + "it)."))
            .define(builder("group.share.min.session.timeout.ms", INT).defaultValue(45000).validator(atLeast(1))
                .doc("The smallest share.session.timeout.ms a group config may set."))
            .define(builder("group.share.max.session.timeout.ms", INT).defaultValue(60000).validator(atLeast(1))
                .doc("The largest share.session.timeout.ms a group config may set."))
            .define(builder("group.share.heartbeat.interval.ms", INT).defaultValue(5000).validator(atLeast(1))
                .doc("The heartbeat interval given to share-group members."))
            .define(builder("group.share.min.heartbeat.interval.ms", INT).defaultValue(5000).validator(atLeast(1))
                .doc("The smallest share.heartbeat.interval.ms a group config may set."))
            .define(builder("group.share.max.heartbeat.interval.ms", INT).defaultValue(15000).validator(atLeast(1))
                .doc("The largest share.heartbeat.interval.ms a group config may set."))
            .define(builder("group.share.max.size", INT).defaultValue(200).validator(between(1, 1000))
                .doc("The maximum number of members of one share group."))
            .define(builder("group.share.assignors", LIST).defaultValue("simple").validator(listOf(false))
                .doc("The server-side share assignor, one built-in name (simple) or class name used by every "
                    + "share group."))
            .define(builder("group.share.assignment.interval.ms", INT).defaultValue(1000).validator(atLeast(0))
                .clusterWide()
                .doc("The interval between assignment updates of a share group."))
            .define(builder("group.share.min.assignment.interval.ms", INT).defaultValue(0).validator(atLeast(0))
                .doc("The smallest share.assignment.interval.ms a group config may set."))
            .define(builder("group.share.max.assignment.interval.ms", INT).defaultValue(15000).validator(atLeast(0))
                .doc("The largest share.assignment.interval.ms a group config may set."))
            .define(builder("group.share.assignor.offload.enable", BOOLEAN).defaultValue(true).clusterWide()
                .internal()
                .doc("Whether share-group assignments are computed off the coordinator's thread."))
            .define(builder("group.share.initialize.retry.interval.ms", INT).defaultValue(30000)
                .validator(atLeast(1)).importance(LOW).internal()
                .doc("How long before initializing a share group's state is retried (at least "
                    + "offsets.commit.timeout.ms)."))
            .define(builder("group.share.delivery.count.limit", INT).defaultValue(5).validator(between(2, 10))
                .doc("Deliveries of a record to a share group before it is archived."))
            .define(builder("group.share.min.delivery.count.limit", INT).defaultValue(2).validator(between(2, 5))
                .doc("The smallest share.delivery.count.limit a group config may set."))
            .define(builder("group.share.max.delivery.count.limit", INT).defaultValue(10).validator(between(5, 25))
                .doc("The largest share.delivery.count.limit a group config may set."))
            .define(builder("group.share.record.lock.duration.ms", INT).defaultValue(30000)
                .validator(between(1000, 3600000))
                .doc("How long a record acquired by a share consumer stays locked to it."))
            .define(builder("group.share.min.record.lock.duration.ms", INT).defaultValue(15000)
                .validator(between(1000, 30000))
                .doc("The smallest share.record.lock.duration.ms a group config may set."))
            .define(builder("group.share.max.record.lock.duration.ms", INT).defaultValue(60000)
                .validator(between(30000, 3600000))
                .doc("The largest share.record.lock.duration.ms a group config may set."))
            .define(builder("group.share.partition.max.record.locks", INT).defaultValue(2000)
                .validator(between(100, 10000))
                .doc("The records of one share-partition that may be in flight (acquired) at once."))
            .define(builder("group.share.min.partition.max.record.locks", INT).defaultValue(100)
                .validator(between(100, 2000))
                .doc("The smallest share.partition.max.record.locks a group config may set."))
            .define(builder("group.share.max.partition.max.record.locks", INT).defaultValue(4000)
                .validator(between(2000, 10000))
                .doc("The largest share.partition.max.record.locks a group config may set."))
            .define(builder("group.share.max.share.sessions", INT).defaultValue(2000).validator(atLeast(1))
                .doc("The share sessions (ShareFetch sessions) one broker keeps at most."))
            .define(builder("share.fetch.purgatory.purge.interval.requests", INT).defaultValue(1000)
                .doc("The purge interval, in requests, of the share fetch purgatory."))
            .define(builder("errors.deadletterqueue.auto.create.topics.enable", BOOLEAN).defaultValue(false)
                .clusterWide()
                .doc("Whether a share group's dead-letter queue topic is created when missing (KIP-1191)."))
            .define(builder("errors.deadletterqueue.topic.name.prefix", STRING).defaultValue("dlq.")
                .clusterWide()
                .doc("The prefix every dead-letter queue topic name must have; empty for none (KIP-1191)."));
    }
}

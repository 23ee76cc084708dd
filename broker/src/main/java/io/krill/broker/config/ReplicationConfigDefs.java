package io.krill.broker.config;

import static io.krill.broker.config.ConfigKey.builder;
import static io.krill.broker.config.ConfigType.BOOLEAN;
import static io.krill.broker.config.ConfigType.INT;
import static io.krill.broker.config.ConfigType.LONG;
import static io.krill.broker.config.ConfigType.STRING;
import static io.krill.broker.config.Importance.HIGH;
import static io.krill.broker.config.Validators.atLeast;
import static io.krill.broker.config.Validators.oneOf;

/** Replication, leadership and purgatory keys (Kafka's ReplicationConfigs). */
final class ReplicationConfigDefs {
    /** Kafka's default selector: consumers fetch from the leader. */
    public static final String LEADER_SELECTOR = "org.apache.kafka.common.replica.LeaderSelector";
    /** Kafka's rack-aware selector: a replica in the consumer's rack, else the leader. */
    public static final String RACK_AWARE_SELECTOR = "org.apache.kafka.common.replica.RackAwareReplicaSelector";

    private ReplicationConfigDefs() {
    }

    static ConfigDef define() {
        return new ConfigDef()
            .define(builder("default.replication.factor", INT).defaultValue(1).importance(HIGH)
                .doc("The replication factor of automatically created topics and of CreateTopics with -1."))
            .define(builder("replica.lag.time.max.ms", LONG).defaultValue(30000L).importance(HIGH)
                .doc("A follower that has not caught up with the leader's log end for this long leaves the ISR."))
            .define(builder("replica.socket.timeout.ms", INT).defaultValue(30000).importance(HIGH)
                .doc("The socket timeout of follower fetch requests; at least replica.fetch.wait.max.ms."))
            .define(builder("replica.socket.receive.buffer.bytes", INT).defaultValue(64 * 1024).importance(HIGH)
                .doc("SO_RCVBUF of follower fetch connections."))
            .define(builder("replica.fetch.max.bytes", INT).defaultValue(1024 * 1024).validator(atLeast(0))
                .importance(HIGH)
                .doc("The number of bytes a follower fetches per partition (soft: a larger first batch is returned)."))
            .define(builder("replica.fetch.wait.max.ms", INT).defaultValue(500).importance(HIGH)
                .doc("The maximum wait of a follower fetch; at most replica.lag.time.max.ms."))
            .define(builder("replica.fetch.min.bytes", INT).defaultValue(1).importance(HIGH)
                .doc("The minimum bytes a follower fetch waits for (up to replica.fetch.wait.max.ms)."))
            .define(builder("replica.fetch.response.max.bytes", INT).defaultValue(10 * 1024 * 1024)
                .validator(atLeast(0))
                .doc("The maximum bytes of a whole follower fetch response (soft limit)."))
            .define(builder("replica.fetch.backoff.ms", INT).defaultValue(1000).validator(atLeast(0))
                .doc("The time a follower waits after a fetch error."))
            .define(builder("num.replica.fetchers", INT).defaultValue(1).importance(HIGH).clusterWide()
                .doc("The number of fetcher threads per source broker."))
            .define(builder("replica.high.watermark.checkpoint.interval.ms", LONG).defaultValue(5000L)
                .importance(HIGH)
                .doc("How often the high watermarks are checkpointed to disk."))
            .define(builder("fetch.purgatory.purge.interval.requests", INT).defaultValue(1000)
                .doc("The purge interval, in requests, of the fetch request purgatory."))
            .define(builder("producer.purgatory.purge.interval.requests", INT).defaultValue(1000)
                .doc("The purge interval, in requests, of the produce request purgatory."))
            .define(builder("delete.records.purgatory.purge.interval.requests", INT).defaultValue(1)
                .doc("The purge interval, in requests, of the delete records purgatory."))
            .define(builder("auto.leader.rebalance.enable", BOOLEAN).defaultValue(true).importance(HIGH)
                .doc("Periodically move leadership back to the preferred replica when the imbalance is too high."))
            .define(builder("leader.imbalance.per.broker.percentage", INT).defaultValue(10).importance(HIGH)
                .doc("The leader imbalance percentage per broker that triggers a rebalance."))
            .define(builder("leader.imbalance.check.interval.seconds", LONG).defaultValue(300L).validator(atLeast(1))
                .importance(HIGH)
                .doc("How often the leader imbalance is checked."))
            .define(builder("unclean.leader.election.enable", BOOLEAN).defaultValue(false).importance(HIGH)
                .clusterWide()
                .doc("Allow a replica outside the ISR to become leader when no in-sync replica is left, "
                    + "at the cost of losing acknowledged writes."))
            .define(builder("controller.socket.timeout.ms", INT).defaultValue(30000)
                .doc("The socket timeout of controller-to-broker channels."))
            .define(builder("replica.selector.class", STRING).defaultValue(null)
                .validator(oneOf(LEADER_SELECTOR, RACK_AWARE_SELECTOR))
                .doc("Which replica a consumer fetches from (KIP-392): Kafka's LeaderSelector (the leader, also "
                    + "when unset) or RackAwareReplicaSelector (a replica in the consumer's client.rack). "
                    + "Krill loads no plug-ins: these two built-in selectors are known by Kafka's class names."));
    }
}

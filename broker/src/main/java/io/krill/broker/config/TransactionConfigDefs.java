package io.krill.broker.config;

import static io.krill.broker.config.ConfigKey.builder;
import static io.krill.broker.config.ConfigType.BOOLEAN;
import static io.krill.broker.config.ConfigType.INT;
import static io.krill.broker.config.ConfigType.SHORT;
import static io.krill.broker.config.Importance.HIGH;
import static io.krill.broker.config.Importance.LOW;
import static io.krill.broker.config.Validators.atLeast;

/** Transaction coordinator and producer-state keys (Kafka's TransactionLogConfig/TransactionStateManagerConfig). */
final class TransactionConfigDefs {
    private TransactionConfigDefs() {
    }

    static ConfigDef define() {
        return new ConfigDef()
            .define(builder("transactional.id.expiration.ms", INT).defaultValue(7 * 24 * 3600 * 1000)
                .validator(atLeast(1)).importance(HIGH)
                .doc("A transactional id with no transaction status update for this long expires."))
            .define(builder("transaction.max.timeout.ms", INT).defaultValue(900000).validator(atLeast(1))
                .importance(HIGH)
                .doc("The largest transaction timeout a producer may ask for."))
            .define(builder("transaction.state.log.min.isr", INT).defaultValue(2).validator(atLeast(1))
                .importance(HIGH)
                .doc("min.insync.replicas of __transaction_state."))
            .define(builder("transaction.state.log.load.buffer.size", INT).defaultValue(5 * 1024 * 1024)
                .validator(atLeast(1)).importance(HIGH)
                .doc("The read batch size when loading __transaction_state into the coordinator cache."))
            .define(builder("transaction.state.log.num.partitions", INT).defaultValue(50).validator(atLeast(1))
                .importance(HIGH)
                .doc("The number of partitions of __transaction_state (do not change after deployment)."))
            .define(builder("transaction.state.log.segment.bytes", INT).defaultValue(100 * 1024 * 1024)
                .validator(atLeast(1)).importance(HIGH)
                .doc("The segment size of __transaction_state."))
            .define(builder("transaction.state.log.replication.factor", SHORT).defaultValue(3).validator(atLeast(1))
                .importance(HIGH)
                .doc("The replication factor of __transaction_state; its creation fails while the cluster is smaller."))
            .define(builder("transaction.abort.timed.out.transaction.cleanup.interval.ms", INT).defaultValue(10000)
                .validator(atLeast(1)).importance(LOW)
                .doc("How often transactions that exceeded their timeout are looked for and aborted."))
            .define(builder("transaction.remove.expired.transaction.cleanup.interval.ms", INT).defaultValue(3600000)
                .validator(atLeast(1)).importance(LOW)
                .doc("How often expired transactional ids are removed."))
            .define(builder("transaction.partition.verification.enable", BOOLEAN).defaultValue(true).importance(LOW)
                .clusterWide()
                .doc("Verify that a partition was added to the transaction before accepting transactional writes."))
            .define(builder("producer.id.expiration.ms", INT).defaultValue(86400000).validator(atLeast(1))
                .importance(LOW).clusterWide()
                .doc("How long a producer id's state is kept after its last write once no transaction is open."))
            .define(builder("producer.id.expiration.check.interval.ms", INT).defaultValue(600000)
                .validator(atLeast(1)).importance(LOW)
                .doc("How often expired producer ids are removed."));
    }
}

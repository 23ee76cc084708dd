package io.krill.broker.config;

import static io.krill.broker.config.ConfigKey.builder;
import static io.krill.broker.config.ConfigType.BOOLEAN;
import static io.krill.broker.config.ConfigType.DOUBLE;
import static io.krill.broker.config.ConfigType.INT;
import static io.krill.broker.config.ConfigType.LONG;
import static io.krill.broker.config.Validators.atLeast;
import static io.krill.broker.config.Validators.between;

/** Log compaction keys (Kafka's CleanerConfig). */
final class LogCleanerConfigDefs {
    private LogCleanerConfigDefs() {
    }

    static ConfigDef define() {
        return new ConfigDef()
            .define(builder("log.cleaner.enable", BOOLEAN).defaultValue(true)
                .doc("Run the log cleaner; needed for compacted topics, including the internal offsets topic."))
            .define(builder("log.cleaner.threads", INT).defaultValue(1).validator(atLeast(0)).clusterWide()
                .doc("The number of log cleaner threads."))
            .define(builder("log.cleaner.io.max.bytes.per.second", DOUBLE).defaultValue(Double.MAX_VALUE)
                .clusterWide()
                .doc("The cleaner's I/O throttle: read plus write bytes per second."))
            .define(builder("log.cleaner.dedupe.buffer.size", LONG).defaultValue(128 * 1024 * 1024L).clusterWide()
                .doc("The memory for key deduplication across all cleaner threads."))
            .define(builder("log.cleaner.io.buffer.size", INT).defaultValue(512 * 1024).validator(atLeast(0))
                .clusterWide()
                .doc("The memory for cleaner I/O buffers across all cleaner threads."))
            .define(builder("log.cleaner.io.buffer.load.factor", DOUBLE).defaultValue(0.9).clusterWide()
                .doc("The load factor of the deduplication hash table."))
            .define(builder("log.cleaner.backoff.ms", LONG).defaultValue(15000L).validator(atLeast(0)).clusterWide()
                .doc("How long the cleaner sleeps when there is nothing to clean."))
            .define(builder("log.cleaner.min.cleanable.ratio", DOUBLE).defaultValue(0.5).validator(between(0, 1))
                .clusterWide()
                .doc("The minimum ratio of dirty log to total log for a log to be compacted."))
            .define(builder("log.cleaner.delete.retention.ms", LONG).defaultValue(24 * 60 * 60 * 1000L)
                .validator(atLeast(0)).clusterWide()
                .doc("How long tombstones are kept on compacted topics."))
            .define(builder("log.cleaner.min.compaction.lag.ms", LONG).defaultValue(0L).validator(atLeast(0))
                .clusterWide()
                .doc("The minimum time a record stays uncompacted."))
            .define(builder("log.cleaner.max.compaction.lag.ms", LONG).defaultValue(Long.MAX_VALUE)
                .validator(atLeast(1)).clusterWide()
                .doc("The maximum time a record may stay uncompacted."));
    }
}

package io.krill.broker.config;

import static io.krill.broker.config.ConfigKey.builder;
import static io.krill.broker.config.ConfigType.BOOLEAN;
import static io.krill.broker.config.ConfigType.CLASS;
import static io.krill.broker.config.ConfigType.INT;
import static io.krill.broker.config.ConfigType.LIST;
import static io.krill.broker.config.ConfigType.LONG;
import static io.krill.broker.config.ConfigType.STRING;
import static io.krill.broker.config.Importance.HIGH;
import static io.krill.broker.config.Importance.LOW;
import static io.krill.broker.config.Validators.atLeast;
import static io.krill.broker.config.Validators.listOf;
import static io.krill.broker.config.Validators.oneOf;

/**
 * Broker-level log keys (Kafka's ServerLogConfigs and server-wide compression keys). Most are the defaults of a
 * topic config; {@link TopicConfigSynonyms} says which.
 */
final class LogConfigDefs {
    /** The compression.type values, as Kafka's BrokerCompressionType (case-sensitive). */
    static final String[] COMPRESSION_TYPES = {"uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"};
    static final String[] TIMESTAMP_TYPES = {"CreateTime", "LogAppendTime"};
    static final String[] CLEANUP_POLICIES = {"compact", "delete"};
    /** gzip levels 1..9 or -1 for the codec's default. */
    static final Validator GZIP_LEVEL = Validators.custom("[1,...,9] or -1",
            v -> (Integer) v == -1 || (Integer) v >= 1 && (Integer) v <= 9, "Value must be between 1 and 9, or -1");

    private LogConfigDefs() {
    }

    static ConfigDef define() {
        return new ConfigDef()
            .define(builder("num.partitions", INT).defaultValue(1).validator(atLeast(1))
                .doc("The default number of partitions of a new topic (auto-created or created with -1 partitions)."))
            .define(builder("log.dirs", LIST).validator(listOf(false)).importance(HIGH)
                .doc("Comma-separated directories where partition logs are stored; if not set, log.dir."))
            .define(builder("log.dir", LIST).defaultValue("/tmp/kafka-logs").validator(listOf(false))
                .importance(HIGH)
                .doc("The log directories, used when log.dirs is not set."))
            .define(builder("log.segment.bytes", INT).defaultValue(1024 * 1024 * 1024)
                .validator(atLeast(1024 * 1024)).importance(HIGH).clusterWide()
                .doc("The maximum size of one segment file."))
            .define(builder("log.roll.ms", LONG).importance(HIGH).clusterWide()
                .doc("The maximum age of the active segment before a new one is rolled; if not set, log.roll.hours."))
            .define(builder("log.roll.hours", INT).defaultValue(168).validator(atLeast(1)).importance(HIGH)
                .clusterWide()
                .doc("The maximum age of the active segment in hours, secondary to log.roll.ms."))
            .define(builder("log.roll.jitter.ms", LONG).importance(HIGH).clusterWide()
                .doc("The maximum random jitter subtracted from the roll time; if not set, log.roll.jitter.hours."))
            .define(builder("log.roll.jitter.hours", INT).defaultValue(0).validator(atLeast(0)).importance(HIGH)
                .clusterWide()
                .doc("The maximum roll jitter in hours, secondary to log.roll.jitter.ms."))
            .define(builder("log.retention.ms", LONG).importance(HIGH).clusterWide()
                .doc("How long to keep a segment before deleting it; -1 means no time limit. "
                    + "If not set, log.retention.minutes."))
            .define(builder("log.retention.minutes", INT).importance(HIGH).clusterWide()
                .doc("Retention in minutes, secondary to log.retention.ms; if not set, log.retention.hours."))
            .define(builder("log.retention.hours", INT).defaultValue(168).importance(HIGH).clusterWide()
                .doc("Retention in hours, tertiary to log.retention.ms."))
            .define(builder("log.retention.bytes", LONG).defaultValue(-1L).importance(HIGH).clusterWide()
                .doc("The maximum size of a partition log before old segments are deleted; -1 means no limit."))
            .define(builder("log.retention.check.interval.ms", LONG).defaultValue(5 * 60 * 1000L)
                .validator(atLeast(1))
                .doc("How often logs are checked for segments eligible for deletion."))
            .define(builder("log.cleanup.policy", LIST).defaultValue("delete").validator(listOf(true, CLEANUP_POLICIES))
                .clusterWide()
                .doc("The default cleanup policy: delete, compact, or both; empty keeps segments forever."))
            .define(builder("log.index.size.max.bytes", INT).defaultValue(10 * 1024 * 1024).validator(atLeast(4))
                .clusterWide()
                .doc("The maximum size of an offset index file."))
            .define(builder("log.index.interval.bytes", INT).defaultValue(4096).validator(atLeast(0)).clusterWide()
                .doc("How many bytes of records between two offset index entries."))
            .define(builder("log.flush.interval.messages", LONG).defaultValue(Long.MAX_VALUE).validator(atLeast(1))
                .importance(HIGH).clusterWide()
                .doc("The number of records appended to a partition before it is fsynced."))
            .define(builder("log.segment.delete.delay.ms", LONG).defaultValue(60000L).validator(atLeast(0))
                .importance(HIGH).clusterWide()
                .doc("How long a deleted segment's files are kept before they are removed from the file system."))
            .define(builder("log.flush.scheduler.interval.ms", LONG).defaultValue(Long.MAX_VALUE).importance(HIGH)
                .clusterWide()
                .doc("How often the flusher checks whether a log needs an fsync."))
            .define(builder("log.flush.interval.ms", LONG).importance(HIGH).clusterWide()
                .doc("The maximum time a record stays unflushed; if not set, log.flush.scheduler.interval.ms."))
            .define(builder("log.flush.offset.checkpoint.interval.ms", INT).defaultValue(60000).validator(atLeast(0))
                .importance(HIGH)
                .doc("How often the recovery point (last flushed offset) checkpoint is written."))
            .define(builder("log.flush.start.offset.checkpoint.interval.ms", INT).defaultValue(60000)
                .validator(atLeast(0)).importance(HIGH)
                .doc("How often the log start offset checkpoint is written."))
            .define(builder("log.preallocate", BOOLEAN).defaultValue(false).clusterWide()
                .doc("Preallocate segment files to their full size when they are created."))
            .define(builder("log.message.timestamp.type", STRING).defaultValue("CreateTime")
                .validator(oneOf(TIMESTAMP_TYPES)).clusterWide()
                .doc("Whether record timestamps are the producer's (CreateTime) or the append time (LogAppendTime)."))
            .define(builder("log.message.timestamp.before.max.ms", LONG).defaultValue(Long.MAX_VALUE)
                .validator(atLeast(0)).clusterWide()
                .doc("With CreateTime, how far a record timestamp may lie before the broker's time."))
            .define(builder("log.message.timestamp.after.max.ms", LONG).defaultValue(3600000L).validator(atLeast(0))
                .clusterWide()
                .doc("With CreateTime, how far a record timestamp may lie after the broker's time."))
            .define(builder("num.recovery.threads.per.data.dir", INT).defaultValue(2).validator(atLeast(1))
                .importance(HIGH).clusterWide()
                .doc("Threads per log directory for log recovery at startup and flushing at shutdown."))
            .define(builder("min.insync.replicas", INT).defaultValue(1).validator(atLeast(1)).importance(HIGH)
                .clusterWide()
                .doc("With acks=all, the minimum number of in-sync replicas that must have a write; "
                    + "otherwise the producer gets NOT_ENOUGH_REPLICAS."))
            .define(builder("message.max.bytes", INT).defaultValue(1024 * 1024 + 12).validator(atLeast(0))
                .importance(HIGH).clusterWide()
                .doc("The largest record batch the broker accepts (after compression); per topic: max.message.bytes."))
            .define(builder("compression.type", STRING).defaultValue("producer").validator(oneOf(COMPRESSION_TYPES))
                .importance(HIGH).clusterWide()
                .doc("The compression of stored batches: gzip, snappy, lz4, zstd, uncompressed, or producer "
                    + "(keep the producer's codec)."))
            .define(builder("compression.gzip.level", INT).defaultValue(-1).validator(GZIP_LEVEL)
                .clusterWide()
                .doc("The gzip level used when compression.type is gzip."))
            .define(builder("compression.lz4.level", INT).defaultValue(9).validator(Validators.between(1, 17))
                .clusterWide()
                .doc("The lz4 level used when compression.type is lz4."))
            .define(builder("compression.zstd.level", INT).defaultValue(3).validator(Validators.between(-131072, 22))
                .clusterWide()
                .doc("The zstd level used when compression.type is zstd."))
            .define(builder("remote.log.storage.system.enable", BOOLEAN).defaultValue(false).notSupported()
                .doc("Tiered storage. Accepted for compatibility; Krill does not support tiered storage."))
            .define(builder("log.local.retention.ms", LONG).defaultValue(-2L).validator(atLeast(-2)).clusterWide()
                .notSupported()
                .doc("Tiered storage local retention time. Accepted for compatibility; not supported."))
            .define(builder("log.local.retention.bytes", LONG).defaultValue(-2L).validator(atLeast(-2)).clusterWide()
                .notSupported()
                .doc("Tiered storage local retention size. Accepted for compatibility; not supported."))
            .define(builder("create.topic.policy.class.name", CLASS).importance(LOW).notSupported()
                .doc("Kafka's CreateTopicPolicy plug-in. Accepted for compatibility; Krill does not load plug-ins."))
            .define(builder("alter.config.policy.class.name", CLASS).importance(LOW).notSupported()
                .doc("Kafka's AlterConfigPolicy plug-in. Accepted for compatibility; Krill does not load plug-ins."));
    }
}

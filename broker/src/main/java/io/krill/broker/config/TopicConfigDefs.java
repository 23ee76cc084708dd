package io.krill.broker.config;

import static io.krill.broker.config.ConfigKey.builder;
import static io.krill.broker.config.ConfigType.BOOLEAN;
import static io.krill.broker.config.ConfigType.DOUBLE;
import static io.krill.broker.config.ConfigType.INT;
import static io.krill.broker.config.ConfigType.LIST;
import static io.krill.broker.config.ConfigType.LONG;
import static io.krill.broker.config.ConfigType.STRING;
import static io.krill.broker.config.Validators.atLeast;
import static io.krill.broker.config.Validators.between;
import static io.krill.broker.config.Validators.listOf;
import static io.krill.broker.config.Validators.oneOf;

import java.util.List;
import java.util.regex.Pattern;

/**
 * The per-topic keys Kafka defines (its LogConfig), with the defaults used when neither the topic nor the broker
 * sets them. The broker key that supplies each default is in {@link TopicConfigSynonyms}.
 */
public final class TopicConfigDefs {
    private static final Pattern THROTTLED_REPLICA = Pattern.compile("\\d+:\\d+");
    private static final Validator THROTTLED_REPLICAS = Validators.custom("[partitionId]:[brokerId],... or *",
            v -> isThrottledReplicaList((List<?>) v),
            "must be the literal '*' or a list of replicas in the following format: "
                    + "[partitionId]:[brokerId],[partitionId]:[brokerId],...");

    /** All topic keys, sorted by name as Kafka lists them. Read-only after class initialisation; safe to share. */
    public static final ConfigDef DEF = define();

    private TopicConfigDefs() {
    }

    private static ConfigDef define() {
        return new ConfigDef()
            .define(builder("cleanup.policy", LIST).defaultValue("delete")
                .validator(listOf(true, LogConfigDefs.CLEANUP_POLICIES))
                .doc("delete removes old segments by time or size; compact keeps the latest record per key; both "
                    + "may be combined (delete,compact); an empty list keeps all segments."))
            .define(builder("compression.gzip.level", INT).defaultValue(-1).validator(LogConfigDefs.GZIP_LEVEL)
                .doc("The gzip level used when compression.type is gzip."))
            .define(builder("compression.lz4.level", INT).defaultValue(9).validator(between(1, 17))
                .doc("The lz4 level used when compression.type is lz4."))
            .define(builder("compression.type", STRING).defaultValue("producer")
                .validator(oneOf(LogConfigDefs.COMPRESSION_TYPES))
                .doc("The compression of stored batches: uncompressed, zstd, lz4, snappy, gzip, or producer "
                    + "(keep the producer's codec)."))
            .define(builder("compression.zstd.level", INT).defaultValue(3).validator(between(-131072, 22))
                .doc("The zstd level used when compression.type is zstd."))
            .define(builder("delete.retention.ms", LONG).defaultValue(86400000L).validator(atLeast(0))
                .doc("How long tombstones are kept on a compacted topic, so consumers can see the deletes."))
            .define(builder("file.delete.delay.ms", LONG).defaultValue(60000L).validator(atLeast(0))
                .doc("How long a deleted segment's files stay on disk before removal."))
            .define(builder("flush.messages", LONG).defaultValue(Long.MAX_VALUE).validator(atLeast(1))
                .doc("Force an fsync after this many records; by default the OS flushes (replication gives "
                    + "durability)."))
            .define(builder("flush.ms", LONG).defaultValue(Long.MAX_VALUE).validator(atLeast(0))
                .doc("Force an fsync when the oldest unflushed record is this old."))
            .define(builder("errors.deadletterqueue.group.enable", BOOLEAN).defaultValue(false)
                .doc("Whether share groups may use this topic as their dead-letter queue (KIP-1191)."))
            .define(builder("follower.replication.throttled.replicas", LIST).defaultValue("")
                .validator(THROTTLED_REPLICAS)
                .doc("Replicas whose follower replication is throttled: partitionId:brokerId,... or *."))
            .define(builder("index.interval.bytes", INT).defaultValue(4096).validator(atLeast(0))
                .doc("How many bytes of records between two offset index entries."))
            .define(builder("leader.replication.throttled.replicas", LIST).defaultValue("")
                .validator(THROTTLED_REPLICAS)
                .doc("Replicas whose leader-side replication is throttled: partitionId:brokerId,... or *."))
            .define(builder("local.retention.bytes", LONG).defaultValue(-2L).validator(atLeast(-2)).notSupported()
                .doc("Tiered storage local retention size (-2: retention.bytes). Accepted; tiered storage is not "
                    + "supported by Krill."))
            .define(builder("local.retention.ms", LONG).defaultValue(-2L).validator(atLeast(-2)).notSupported()
                .doc("Tiered storage local retention time (-2: retention.ms). Accepted; tiered storage is not "
                    + "supported by Krill."))
            .define(builder("max.compaction.lag.ms", LONG).defaultValue(Long.MAX_VALUE).validator(atLeast(1))
                .doc("The maximum time a record may stay uncompacted."))
            .define(builder("max.message.bytes", INT).defaultValue(1024 * 1024 + 12).validator(atLeast(0))
                .doc("The largest record batch (after compression) the topic accepts."))
            .define(builder("message.timestamp.after.max.ms", LONG).defaultValue(3600000L).validator(atLeast(0))
                .doc("With CreateTime, how far a record timestamp may lie after the broker's time."))
            .define(builder("message.timestamp.before.max.ms", LONG).defaultValue(Long.MAX_VALUE)
                .validator(atLeast(0))
                .doc("With CreateTime, how far a record timestamp may lie before the broker's time."))
            .define(builder("message.timestamp.type", STRING).defaultValue("CreateTime")
                .validator(oneOf(LogConfigDefs.TIMESTAMP_TYPES))
                .doc("CreateTime keeps the producer's timestamps; LogAppendTime stamps records on append."))
            .define(builder("min.cleanable.dirty.ratio", DOUBLE).defaultValue(0.5).validator(between(0, 1))
                .doc("The minimum share of uncompacted log for a log to be compacted."))
            .define(builder("min.compaction.lag.ms", LONG).defaultValue(0L).validator(atLeast(0))
                .doc("The minimum time a record stays uncompacted."))
            .define(builder("min.insync.replicas", INT).defaultValue(1).validator(atLeast(1))
                .doc("With acks=all, the minimum number of in-sync replicas that must have a write."))
            .define(builder("preallocate", BOOLEAN).defaultValue(false)
                .doc("Preallocate segment files to their full size."))
            .define(builder("remote.copy.lag.bytes", LONG).defaultValue(0L).validator(atLeast(-1)).notSupported()
                .doc("Tiered storage upload lag by size. Accepted; tiered storage is not supported by Krill."))
            .define(builder("remote.copy.lag.ms", LONG).defaultValue(0L).validator(atLeast(-1)).notSupported()
                .doc("Tiered storage upload lag by time. Accepted; tiered storage is not supported by Krill."))
            .define(builder("remote.log.copy.disable", BOOLEAN).defaultValue(false).notSupported()
                .doc("Stop copying segments to tiered storage. Accepted; tiered storage is not supported by Krill."))
            .define(builder("remote.log.delete.on.disable", BOOLEAN).defaultValue(false).notSupported()
                .doc("Delete tiered data when tiered storage is disabled. Accepted; not supported by Krill."))
            .define(builder("remote.storage.enable", BOOLEAN).defaultValue(false).notSupported()
                .doc("Tiered storage for this topic. Only false is accepted: Krill has no tiered storage."))
            .define(builder("retention.bytes", LONG).defaultValue(-1L)
                .doc("The maximum size of a partition before old segments are deleted; -1 means no limit."))
            .define(builder("retention.ms", LONG).defaultValue(604800000L).validator(atLeast(-1))
                .doc("How long records are kept before old segments are deleted; -1 means no time limit."))
            .define(builder("segment.bytes", INT).defaultValue(1024 * 1024 * 1024).validator(atLeast(1024 * 1024))
                .doc("The segment file size: retention and compaction work on whole segments."))
            .define(builder("segment.index.bytes", INT).defaultValue(10 * 1024 * 1024).validator(atLeast(4))
                .doc("The size of the offset index preallocated for each segment."))
            .define(builder("segment.jitter.ms", LONG).defaultValue(0L).validator(atLeast(0))
                .doc("The maximum random jitter subtracted from segment.ms, to avoid rolling all segments at once."))
            .define(builder("segment.ms", LONG).defaultValue(604800000L).validator(atLeast(1))
                .doc("Roll a new segment after this time even if it is not full, so retention can delete old data."))
            .define(builder("unclean.leader.election.enable", BOOLEAN).defaultValue(false)
                .doc("Allow a replica outside the ISR to become leader as a last resort, losing acknowledged writes."));
    }

    private static boolean isThrottledReplicaList(List<?> values) {
        if (values.size() == 1 && "*".equals(values.get(0))) {
            return true;
        }
        for (Object v : values) {
            if (!THROTTLED_REPLICA.matcher(v.toString()).matches()) {
                return false;
            }
        }
        return true;
    }
}

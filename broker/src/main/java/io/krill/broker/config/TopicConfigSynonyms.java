package io.krill.broker.config;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which broker keys supply each topic key's default, in priority order, and how their values convert (Kafka's
 * ServerTopicConfigSynonyms): e.g. {@code retention.ms} comes from {@code log.retention.ms}, else
 * {@code log.retention.minutes} x 60000, else {@code log.retention.hours} x 3600000. Stateless.
 */
public final class TopicConfigSynonyms {
    /** One broker key that can supply a topic key, and the factor that turns its value into the topic's unit. */
    public record BrokerSynonym(String name, long multiplier) {
        static BrokerSynonym same(String name) {
            return new BrokerSynonym(name, 1);
        }
    }

    private static final long MINUTE_MS = 60_000L;
    private static final long HOUR_MS = 3_600_000L;

    private static final Map<String, List<BrokerSynonym>> SYNONYMS = new LinkedHashMap<>();

    static {
        one("segment.bytes", "log.segment.bytes");
        SYNONYMS.put("segment.ms", List.of(BrokerSynonym.same("log.roll.ms"),
                new BrokerSynonym("log.roll.hours", HOUR_MS)));
        SYNONYMS.put("segment.jitter.ms", List.of(BrokerSynonym.same("log.roll.jitter.ms"),
                new BrokerSynonym("log.roll.jitter.hours", HOUR_MS)));
        one("segment.index.bytes", "log.index.size.max.bytes");
        one("flush.messages", "log.flush.interval.messages");
        SYNONYMS.put("flush.ms", List.of(BrokerSynonym.same("log.flush.interval.ms"),
                BrokerSynonym.same("log.flush.scheduler.interval.ms")));
        one("retention.bytes", "log.retention.bytes");
        SYNONYMS.put("retention.ms", List.of(BrokerSynonym.same("log.retention.ms"),
                new BrokerSynonym("log.retention.minutes", MINUTE_MS),
                new BrokerSynonym("log.retention.hours", HOUR_MS)));
        one("max.message.bytes", "message.max.bytes");
        one("index.interval.bytes", "log.index.interval.bytes");
        one("delete.retention.ms", "log.cleaner.delete.retention.ms");
        one("min.compaction.lag.ms", "log.cleaner.min.compaction.lag.ms");
        one("max.compaction.lag.ms", "log.cleaner.max.compaction.lag.ms");
        one("file.delete.delay.ms", "log.segment.delete.delay.ms");
        one("min.cleanable.dirty.ratio", "log.cleaner.min.cleanable.ratio");
        one("cleanup.policy", "log.cleanup.policy");
        one("unclean.leader.election.enable", "unclean.leader.election.enable");
        one("min.insync.replicas", "min.insync.replicas");
        one("compression.type", "compression.type");
        one("compression.gzip.level", "compression.gzip.level");
        one("compression.lz4.level", "compression.lz4.level");
        one("compression.zstd.level", "compression.zstd.level");
        one("preallocate", "log.preallocate");
        one("message.timestamp.type", "log.message.timestamp.type");
        one("message.timestamp.before.max.ms", "log.message.timestamp.before.max.ms");
        one("message.timestamp.after.max.ms", "log.message.timestamp.after.max.ms");
        one("local.retention.ms", "log.local.retention.ms");
        one("local.retention.bytes", "log.local.retention.bytes");
    }

    private TopicConfigSynonyms() {
    }

    private static void one(String topicKey, String brokerKey) {
        SYNONYMS.put(topicKey, List.of(BrokerSynonym.same(brokerKey)));
    }

    /** The broker synonyms of a topic key in priority order; empty if the topic key has no broker default. */
    public static List<BrokerSynonym> of(String topicKey) {
        return SYNONYMS.getOrDefault(topicKey, List.of());
    }

    /** The highest-priority broker key for a topic key (Kafka's "Server Default Property"). */
    public static Optional<String> primaryBrokerKey(String topicKey) {
        List<BrokerSynonym> list = of(topicKey);
        return list.isEmpty() ? Optional.empty() : Optional.of(list.get(0).name());
    }

    /**
     * The broker keys that describe the same setting as {@code brokerKey}, in priority order, as Kafka lists them
     * when describing a broker key: the retention and roll unit variants, and log.flush.interval.ms with its
     * fallback log.flush.scheduler.interval.ms. Any other key is its only synonym.
     */
    public static List<String> brokerSynonymGroup(String brokerKey) {
        return switch (brokerKey) {
            case "log.roll.ms", "log.roll.hours" -> names("segment.ms");
            case "log.roll.jitter.ms", "log.roll.jitter.hours" -> names("segment.jitter.ms");
            case "log.retention.ms", "log.retention.minutes", "log.retention.hours" -> names("retention.ms");
            case "log.flush.interval.ms" -> names("flush.ms");
            default -> List.of(brokerKey);
        };
    }

    private static List<String> names(String topicKey) {
        return of(topicKey).stream().map(BrokerSynonym::name).toList();
    }

    /** The broker key that supplies a topic key's default (the first one set), or the topic key if none is set. */
    static String suppliedBy(String topicKey, ConfigValues broker) {
        for (BrokerSynonym s : of(topicKey)) {
            if (broker.get(s.name()) != null) {
                return s.name();
            }
        }
        return topicKey;
    }

    /**
     * The default of a topic key given the broker's effective values: the first set synonym (converted), else the
     * topic key's own default. Negative retention times mean "unlimited" and become -1, as in Kafka.
     */
    static Object brokerDefault(String topicKey, ConfigValues broker) {
        for (BrokerSynonym s : of(topicKey)) {
            Object v = broker.get(s.name());
            if (v != null) {
                Object converted = s.multiplier() == 1 ? v : ((Number) v).longValue() * s.multiplier();
                if (topicKey.equals("retention.ms") && ((Number) converted).longValue() < 0) {
                    return -1L;
                }
                return converted instanceof Integer i && TopicConfigDefs.DEF.key(topicKey).type() == ConfigType.LONG
                        ? Long.valueOf(i) : converted;
            }
        }
        return TopicConfigDefs.DEF.key(topicKey).defaultValue();
    }
}

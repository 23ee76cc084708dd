package io.krill.broker.config;

import static io.krill.broker.config.ConfigKey.builder;
import static io.krill.broker.config.ConfigType.BOOLEAN;
import static io.krill.broker.config.ConfigType.INT;
import static io.krill.broker.config.ConfigType.LIST;
import static io.krill.broker.config.ConfigType.LONG;
import static io.krill.broker.config.ConfigType.STRING;
import static io.krill.broker.config.Importance.LOW;
import static io.krill.broker.config.Validators.atLeast;
import static io.krill.broker.config.Validators.listOf;
import static io.krill.broker.config.Validators.oneOf;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The keys of a group config (ConfigResource GROUP, KIP-848/KIP-932): Kafka 4.4's set, with its types and
 * value validators, and for each the broker key that gives its default (its DescribeConfigs synonym, e.g.
 * {@code group.share.session.timeout.ms} for {@code share.session.timeout.ms}). A group key's own default
 * serves only where the broker key is not one Krill defines (the {@code group.streams.*} keys): it is Kafka's
 * broker default. Internal keys may be set but DescribeConfigs does not list them, as in Kafka. Stateless.
 */
public final class GroupConfigKeys {
    /** Entity name prefix of a group's configs in the metadata store: {@code groups/<groupId>}. */
    public static final String ENTITY_PREFIX = "groups/";

    public static final String SHARE_AUTO_OFFSET_RESET = "share.auto.offset.reset";
    public static final String SHARE_ISOLATION_LEVEL = "share.isolation.level";

    /** Every group key, in no particular order. Read-only after class initialisation. */
    static final ConfigDef DEF = new ConfigDef()
        .define(builder("consumer.session.timeout.ms", INT).defaultValue(45000).validator(atLeast(1))
            .doc("The session timeout of this consumer-protocol group's members."))
        .define(builder("consumer.heartbeat.interval.ms", INT).defaultValue(5000).validator(atLeast(1))
            .doc("The heartbeat interval given to this consumer-protocol group's members."))
        .define(builder("consumer.assignment.interval.ms", INT).defaultValue(1000).validator(atLeast(0))
            .doc("The interval between assignment updates of this consumer group."))
        .define(builder("consumer.assignor.offload.enable", BOOLEAN).defaultValue(true)
            .internal()
            .doc("Whether this consumer group's assignments are computed off the coordinator's thread."))
        .define(builder("share.session.timeout.ms", INT).defaultValue(45000).validator(atLeast(1))
            .doc("The session timeout of this share group's members."))
        .define(builder("share.heartbeat.interval.ms", INT).defaultValue(5000).validator(atLeast(1))
            .doc("The heartbeat interval given to this share group's members."))
        .define(builder("share.record.lock.duration.ms", INT).defaultValue(30000).validator(atLeast(1000))
            .doc("How long a record acquired by a member of this share group stays locked to it."))
        .define(builder("share.delivery.count.limit", INT).defaultValue(5).validator(atLeast(2))
            .doc("Deliveries of a record to this share group before it is archived."))
        .define(builder("share.partition.max.record.locks", INT).defaultValue(2000).validator(atLeast(100))
            .doc("The records of one share-partition of this group that may be in flight at once."))
        .define(builder(SHARE_AUTO_OFFSET_RESET, STRING).defaultValue("latest")
            .validator(new AutoOffsetReset())
            .doc("Where a share-partition of this group starts when it has no state: latest, earliest, or "
                + "by_duration:<ISO-8601 duration> (that long before now; not negative)."))
        .define(builder(SHARE_ISOLATION_LEVEL, STRING).defaultValue("read_uncommitted")
            .validator(oneOf("read_committed", "read_uncommitted"))
            .doc("read_committed: this share group gets only committed transactional records; "
                + "read_uncommitted: all records."))
        .define(builder("share.renew.acknowledge.enable", BOOLEAN).defaultValue(true)
            .doc("Whether members of this share group may renew the lock of a record (the RENEW "
                + "acknowledgement)."))
        .define(builder("share.assignment.interval.ms", INT).defaultValue(1000).validator(atLeast(0))
            .doc("The interval between assignment updates of this share group."))
        .define(builder("share.assignor.offload.enable", BOOLEAN).defaultValue(true)
            .internal()
            .doc("Whether this share group's assignments are computed off the coordinator's thread."))
        .define(builder("streams.session.timeout.ms", INT).defaultValue(45000).validator(atLeast(1))
            .doc("The session timeout of this streams group's members."))
        .define(builder("streams.heartbeat.interval.ms", INT).defaultValue(5000).validator(atLeast(1))
            .doc("The heartbeat interval given to this streams group's members."))
        .define(builder("streams.num.standby.replicas", INT).defaultValue(0).validator(atLeast(0))
            .doc("The standby replicas of each task of this streams group."))
        .define(builder("streams.initial.rebalance.delay.ms", INT).defaultValue(3000).validator(atLeast(0))
            .doc("How long the coordinator waits for more members before the first rebalance of this streams "
                + "group."))
        .define(builder("streams.assignment.interval.ms", INT).defaultValue(1000).validator(atLeast(0))
            .doc("The interval between assignment updates of this streams group."))
        .define(builder("streams.assignor.offload.enable", BOOLEAN).defaultValue(true)
            .internal()
            .doc("Whether this streams group's assignments are computed off the coordinator's thread."))
        .define(builder("streams.task.offset.interval.ms", INT).defaultValue(60000).validator(atLeast(1))
            .internal()
            .doc("How often members of this streams group report the changelog offsets of warm-up tasks."))
        .define(builder("streams.num.warmup.replicas", INT).defaultValue(2).validator(atLeast(0))
            .internal()
            .doc("The warm-up task replicas of this streams group at most."))
        .define(builder("streams.rack.aware.assignment.tags", LIST).defaultValue("").validator(listOf(true))
            .importance(LOW)
            .doc("The client tags over which standby replicas of this streams group are spread."))
        .define(builder("streams.acceptable.recovery.lag", LONG).defaultValue(10000L).validator(atLeast(0))
            .internal()
            .doc("How far behind a member may be and still count as caught up for an active task."))
        .define(builder("streams.assignor.name", STRING)
            .doc("The task assignor of this streams group, one of group.streams.assignors (default: the first)."))
        .define(builder("errors.deadletterqueue.topic.name", STRING).defaultValue("")
            .doc("The dead-letter queue topic of this share group (KIP-1191); empty for none."))
        .define(builder("errors.deadletterqueue.copy.record.enable", BOOLEAN).defaultValue(false)
            .doc("Whether a record sent to the dead-letter queue is copied, not only described by headers."));

    /** The broker key each group key defaults to (absent: none, the group key's own default). */
    private static final Map<String, String> BROKER_SYNONYMS = Map.ofEntries(
            Map.entry("consumer.session.timeout.ms", "group.consumer.session.timeout.ms"),
            Map.entry("consumer.heartbeat.interval.ms", "group.consumer.heartbeat.interval.ms"),
            Map.entry("consumer.assignment.interval.ms", "group.consumer.assignment.interval.ms"),
            Map.entry("consumer.assignor.offload.enable", "group.consumer.assignor.offload.enable"),
            Map.entry("share.session.timeout.ms", "group.share.session.timeout.ms"),
            Map.entry("share.heartbeat.interval.ms", "group.share.heartbeat.interval.ms"),
            Map.entry("share.record.lock.duration.ms", "group.share.record.lock.duration.ms"),
            Map.entry("share.delivery.count.limit", "group.share.delivery.count.limit"),
            Map.entry("share.partition.max.record.locks", "group.share.partition.max.record.locks"),
            Map.entry("share.assignment.interval.ms", "group.share.assignment.interval.ms"),
            Map.entry("share.assignor.offload.enable", "group.share.assignor.offload.enable"),
            Map.entry("streams.session.timeout.ms", "group.streams.session.timeout.ms"),
            Map.entry("streams.heartbeat.interval.ms", "group.streams.heartbeat.interval.ms"),
            Map.entry("streams.num.standby.replicas", "group.streams.num.standby.replicas"),
            Map.entry("streams.initial.rebalance.delay.ms", "group.streams.initial.rebalance.delay.ms"),
            Map.entry("streams.assignment.interval.ms", "group.streams.assignment.interval.ms"),
            Map.entry("streams.assignor.offload.enable", "group.streams.assignor.offload.enable"),
            Map.entry("streams.task.offset.interval.ms", "group.streams.task.offset.interval.ms"),
            Map.entry("streams.num.warmup.replicas", "group.streams.num.warmup.replicas"),
            Map.entry("streams.rack.aware.assignment.tags", "group.streams.rack.aware.assignment.tags"),
            Map.entry("streams.acceptable.recovery.lag", "group.streams.acceptable.recovery.lag"),
            Map.entry("streams.assignor.name", "group.streams.assignors"));

    /** Kafka's built-in streams task assignors (group.streams.assignors, which Krill does not define). */
    static final List<String> STREAMS_ASSIGNORS = List.of("sticky");

    private GroupConfigKeys() {
    }

    /** The metadata store entity holding the configs of {@code groupId}. */
    public static String entity(String groupId) {
        return ENTITY_PREFIX + groupId;
    }

    static Optional<ConfigKey> find(String name) {
        return DEF.find(name);
    }

    static boolean internal(String name) {
        return DEF.find(name).map(ConfigKey::internal).orElse(false);
    }

    /** The broker key {@code name} defaults to, if any. */
    static Optional<String> brokerSynonym(String name) {
        return Optional.ofNullable(BROKER_SYNONYMS.get(name));
    }

    /** The value of a group without an override of {@code name}: its broker key's, else Kafka's default. */
    static Object brokerDefault(String name, BrokerConfig broker) {
        String brokerKey = BROKER_SYNONYMS.get(name);
        if ("streams.assignor.name".equals(name)) {
            return STREAMS_ASSIGNORS.get(0);
        }
        if (brokerKey != null && BrokerConfigDefs.DEF.contains(brokerKey)) {
            return broker.values().get(brokerKey);
        }
        return DEF.key(name).defaultValue();
    }

    /**
     * {@code share.auto.offset.reset}: {@code latest}, {@code earliest} or {@code by_duration:<ISO-8601>}, not
     * negative; case matters, as in Kafka.
     */
    static final class AutoOffsetReset implements Validator {
        static final String BY_DURATION = "by_duration:";

        @Override
        public void ensureValid(String name, Object value) {
            String s = value.toString();
            if (s.equals("latest") || s.equals("earliest") || validDuration(s)) {
                return;
            }
            throw new ConfigException(name, value, "Invalid value `" + s + "` for configuration " + name
                    + ". The value must be either 'earliest', 'latest' or of the format "
                    + "'by_duration:<PnDTnHnMn.nS>'.");
        }

        private static boolean validDuration(String s) {
            if (!s.startsWith(BY_DURATION)) {
                return false;
            }
            try {
                return !Duration.parse(s.substring(BY_DURATION.length())).isNegative();
            } catch (DateTimeParseException e) {
                return false;
            }
        }

        @Override
        public String toString() {
            return "[latest, earliest, by_duration:PnDTnHnMn.nS]";
        }
    }
}

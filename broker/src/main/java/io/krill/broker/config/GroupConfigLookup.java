package io.krill.broker.config;

import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.MetadataStore;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The effective settings of a group: its group configs (kept in the metadata store as the entity
 * {@code groups/<groupId>}, so every broker reads them from its image) over this broker's defaults. Each call
 * reads the latest image and configuration, so a change made through any broker applies at the next call.
 *
 * <p>Thread-safe: holds only its two suppliers, which must be thread-safe (the metadata store's image and the
 * dynamic broker configuration are).
 */
public final class GroupConfigLookup implements ShareGroupConfigs {
    private final Supplier<MetadataImage> image;
    private final Supplier<BrokerConfig> broker;

    /**
     * @param image  the latest metadata image (e.g. {@code metadataStore::image})
     * @param broker the current broker configuration (e.g. {@code dynamicBrokerConfig::current})
     */
    public GroupConfigLookup(Supplier<MetadataImage> image, Supplier<BrokerConfig> broker) {
        this.image = image;
        this.broker = broker;
    }

    /** The lookup of a running broker: its metadata store's latest image and its current configuration. */
    public static GroupConfigLookup of(MetadataStore metadata, DynamicBrokerConfig configs) {
        return new GroupConfigLookup(metadata::image, configs::current);
    }

    /** The settings of share group {@code groupId}: its group configs, else the broker's group.share.* keys. */
    @Override
    public ShareGroupConfig of(String groupId) {
        Values v = values(groupId);
        return new ShareGroupConfig((String) v.get(GroupConfigKeys.SHARE_AUTO_OFFSET_RESET),
                "read_committed".equals(v.get(GroupConfigKeys.SHARE_ISOLATION_LEVEL)),
                (Integer) v.get("share.record.lock.duration.ms"), (Integer) v.get("share.delivery.count.limit"),
                (Integer) v.get("share.partition.max.record.locks"), (Integer) v.get("share.session.timeout.ms"),
                (Integer) v.get("share.heartbeat.interval.ms"));
    }

    /**
     * The dead-letter queue settings of share group {@code groupId} (KIP-1191): its topic, empty for none,
     * and whether records are copied there.
     */
    public DeadLetterConfig deadLetter(String groupId) {
        Values v = values(groupId);
        return new DeadLetterConfig((String) v.get("errors.deadletterqueue.topic.name"),
                (Boolean) v.get("errors.deadletterqueue.copy.record.enable"));
    }

    /**
     * A share group's dead-letter queue settings. Immutable.
     *
     * @param topic       {@code errors.deadletterqueue.topic.name}; empty when the group has none
     * @param copyRecords {@code errors.deadletterqueue.copy.record.enable}: the original key and value are copied
     */
    public record DeadLetterConfig(String topic, boolean copyRecords) {
        public boolean enabled() {
            return topic != null && !topic.isEmpty();
        }
    }

    /** The session timeout and heartbeat interval of consumer-protocol group {@code groupId}. */
    public ConsumerGroupConfig consumer(String groupId) {
        Values v = values(groupId);
        return new ConsumerGroupConfig((Integer) v.get("consumer.session.timeout.ms"),
                (Integer) v.get("consumer.heartbeat.interval.ms"));
    }

    private Values values(String groupId) {
        return new Values(image.get().entityConfigs(GroupConfigKeys.entity(groupId)), broker.get());
    }

    /** One group's stored configs over one broker configuration. */
    private record Values(Map<String, String> overrides, BrokerConfig broker) {
        Object get(String name) {
            // Stored values parsed when they were set (GroupConfigValidator), so they parse again here.
            String raw = overrides.get(name);
            return raw != null ? GroupConfigKeys.DEF.key(name).parse(raw) : GroupConfigKeys.brokerDefault(name, broker);
        }
    }

    /**
     * The consumer-protocol (KIP-848) settings of one group. Immutable.
     *
     * @param sessionTimeoutMs    {@code consumer.session.timeout.ms}
     * @param heartbeatIntervalMs {@code consumer.heartbeat.interval.ms}
     */
    public record ConsumerGroupConfig(int sessionTimeoutMs, int heartbeatIntervalMs) {
    }
}

package io.krill.controller.metadata;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * One consistent snapshot of cluster metadata: cluster id, controller, live brokers, topics. Request
 * handlers read the current image once per request and answer from it, so one answer never mixes two
 * versions of the cluster. Immutable; a change publishes a new image.
 */
public final class MetadataImage {
    private final String clusterId;
    private final int controllerId;
    private final Map<Integer, BrokerInfo> brokers;
    private final Map<String, TopicImage> topicsByName;
    private final Map<UUID, TopicImage> topicsById;
    /** Entity configs by entity name; see {@link MetadataStore#updateEntityConfigsAsync}. */
    private final Map<String, Map<String, String>> entityConfigs;
    /** Parsed from {@link #entityConfigs} on first use; a benign race may parse twice. */
    private volatile FinalizedFeatures features;

    public MetadataImage(String clusterId, int controllerId, Collection<BrokerInfo> brokers,
                         Collection<TopicImage> topics) {
        this(clusterId, controllerId, brokers, topics, Map.of());
    }

    public MetadataImage(String clusterId, int controllerId, Collection<BrokerInfo> brokers,
                         Collection<TopicImage> topics, Map<String, Map<String, String>> entityConfigs) {
        this.clusterId = clusterId;
        this.controllerId = controllerId;
        Map<Integer, BrokerInfo> byId = new HashMap<>();
        for (BrokerInfo broker : brokers) {
            byId.put(broker.nodeId(), broker);
        }
        this.brokers = Map.copyOf(byId);
        Map<String, TopicImage> byName = new HashMap<>();
        Map<UUID, TopicImage> byTopicId = new HashMap<>();
        for (TopicImage topic : topics) {
            byName.put(topic.name(), topic);
            byTopicId.put(topic.id(), topic);
        }
        this.topicsByName = Map.copyOf(byName);
        this.topicsById = Map.copyOf(byTopicId);
        Map<String, Map<String, String>> configs = new HashMap<>();
        entityConfigs.forEach((entity, values) -> {
            if (!values.isEmpty()) {
                configs.put(entity, Map.copyOf(values));
            }
        });
        this.entityConfigs = Map.copyOf(configs);
    }

    /**
     * The configs of {@code entity} ("" for the cluster-wide broker defaults, a broker id, or a
     * {@code type/name} entity as {@link MetadataStore#updateEntityConfigsAsync} describes); empty if none.
     */
    public Map<String, String> entityConfigs(String entity) {
        return entityConfigs.getOrDefault(entity, Map.of());
    }

    /**
     * Every entity of one type, keyed by the rest of the entity name: {@code entitiesOfType("users")}
     * maps "alice" to the configs of "users/alice" (and "alice/clients/app" to "users/alice/clients/app").
     */
    public Map<String, Map<String, String>> entitiesOfType(String type) {
        String prefix = type + "/";
        Map<String, Map<String, String>> result = new HashMap<>();
        entityConfigs.forEach((entity, configs) -> {
            if (entity.startsWith(prefix)) {
                result.put(entity.substring(prefix.length()), configs);
            }
        });
        return result;
    }

    /** The cluster's feature levels ({@link FinalizedFeatures#DEFAULTS} until one was changed). */
    public FinalizedFeatures finalizedFeatures() {
        FinalizedFeatures parsed = features;
        if (parsed == null) {
            parsed = FinalizedFeatures.fromConfigs(entityConfigs(FinalizedFeatures.ENTITY));
            features = parsed;
        }
        return parsed;
    }

    public Map<String, Map<String, String>> allEntityConfigs() {
        return entityConfigs;
    }

    public MetadataImage withEntityConfigs(String entity, Map<String, String> configs) {
        Map<String, Map<String, String>> next = new HashMap<>(entityConfigs);
        next.put(entity, configs);
        return new MetadataImage(clusterId, controllerId, brokers.values(), topicsByName.values(), next);
    }

    public String clusterId() {
        return clusterId;
    }

    public int controllerId() {
        return controllerId;
    }

    public Collection<BrokerInfo> brokers() {
        return brokers.values();
    }

    public BrokerInfo broker(int nodeId) {
        return brokers.get(nodeId);
    }

    public Collection<TopicImage> topics() {
        return topicsByName.values();
    }

    public TopicImage topic(String name) {
        return topicsByName.get(name);
    }

    public TopicImage topic(UUID id) {
        return topicsById.get(id);
    }

    /** A copy with {@code topic} added or replaced. */
    public MetadataImage withTopic(TopicImage topic) {
        Map<String, TopicImage> updated = new HashMap<>(topicsByName);
        updated.put(topic.name(), topic);
        return new MetadataImage(clusterId, controllerId, brokers.values(), updated.values(), entityConfigs);
    }

    /** A copy without the topic named {@code name}. */
    public MetadataImage withoutTopic(String name) {
        Map<String, TopicImage> updated = new HashMap<>(topicsByName);
        updated.remove(name);
        return new MetadataImage(clusterId, controllerId, brokers.values(), updated.values(), entityConfigs);
    }

    /** A copy with these live brokers and controller. */
    public MetadataImage withBrokers(int newControllerId, List<BrokerInfo> liveBrokers) {
        return new MetadataImage(clusterId, newControllerId, liveBrokers, topicsByName.values(), entityConfigs);
    }
}

package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.Request;
import io.krill.broker.config.BrokerConfigDefs;
import io.krill.broker.config.ConfigException;
import io.krill.broker.config.DynamicBrokerConfig;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.TopicImage;
import io.krill.controller.metadata.TopicNames;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * What AlterConfigs and IncrementalAlterConfigs share: the checks Kafka's broker makes before forwarding
 * (ConfigAdminManager.preprocess), the controller's checks of a TOPIC resource in its order (name, new
 * values, existence), and writing the new overrides to the metadata store, whose listener hands them to
 * the live logs.
 *
 * <p>A BROKER resource (the cluster default "" or this broker's id) changes that entity's dynamic layer in
 * the metadata store, which every broker applies ({@link DynamicBrokerConfig}); keys Krill reads only at
 * startup are refused with INVALID_REQUEST and the reason, invalid values with INVALID_CONFIG.
 *
 * <p>Thread-safe: a topic's overrides are read, changed and written under {@link #TOPIC_OVERRIDES}, so
 * two concurrent incremental changes cannot lose one another (the store serialises writes, not the read
 * before them).
 */
final class ConfigAlteration {
    private static final Object TOPIC_OVERRIDES = new Object();
    private static final Object BROKER_CONFIGS = new Object();

    private ConfigAlteration() {
    }

    /**
     * For each resource, whether the request names it (same type and name) more than once: Kafka answers
     * every occurrence INVALID_REQUEST "Each resource must appear at most once.".
     */
    static <R> boolean[] repeated(List<R> resources, Function<R, Object> key) {
        Map<Object, Integer> occurrences = new HashMap<>();
        for (R resource : resources) {
            occurrences.merge(key.apply(resource), 1, Integer::sum);
        }
        boolean[] repeated = new boolean[resources.size()];
        for (int i = 0; i < repeated.length; i++) {
            repeated[i] = occurrences.get(key.apply(resources.get(i))) > 1;
        }
        return repeated;
    }

    /** Throws INVALID_REQUEST, Kafka's answer, when a key is named twice in one resource. */
    static void checkNoDuplicateKeys(List<String> names) {
        Set<String> seen = new HashSet<>();
        for (String name : names) {
            if (!seen.add(name)) {
                throw new ApiException(Errors.INVALID_REQUEST, "Error due to duplicate config keys");
            }
        }
    }

    /** Throws INVALID_REQUEST naming the keys set to null, if any. */
    static void checkNoNullValues(List<String> keysWithNullValues) {
        if (!keysWithNullValues.isEmpty()) {
            throw new ApiException(Errors.INVALID_REQUEST, "Null value not supported for : "
                    + String.join(", ", keysWithNullValues));
        }
    }

    /**
     * Changes the overrides of topic {@code name} to {@code change(current)}, or only checks them when
     * {@code validateOnly}. {@code change} validates and throws {@link ConfigException}, answered
     * INVALID_CONFIG; an unknown topic is UNKNOWN_TOPIC_OR_PARTITION, after the values are checked.
     */
    static void alterTopic(BrokerContext context, String name, UnaryOperator<Map<String, String>> change,
                           boolean validateOnly) {
        if (name.isEmpty()) {
            throw new ApiException(Errors.INVALID_REQUEST, "Default topic resources are not allowed.");
        }
        TopicNames.validate(name);
        synchronized (TOPIC_OVERRIDES) {
            TopicImage topic = context.metadata().image().topic(name);
            Map<String, String> overrides;
            try {
                overrides = change.apply(topic == null ? Map.of() : topic.configs());
            } catch (ConfigException e) {
                throw new ApiException(Errors.INVALID_CONFIG, e.getMessage());
            }
            if (topic == null) {
                throw new ApiException(Errors.UNKNOWN_TOPIC_OR_PARTITION, "The topic '" + name + "' does not exist.");
            }
            if (!validateOnly) {
                context.metadata().alterTopicConfigs(name, overrides);
            }
        }
    }

    /**
     * A BROKER resource: {@code name} is empty (the cluster default) or this broker's id, as Kafka checks.
     * The entity's dynamic layer becomes {@code change(current layer)}, validated against this broker's
     * static configuration, and is written to the metadata store unless {@code validateOnly}.
     */
    static void alterBroker(BrokerContext context, String name, UnaryOperator<Map<String, String>> change,
                            boolean validateOnly) {
        if (!name.isEmpty()) {
            checkIsThisNode(context, name);
        }
        synchronized (BROKER_CONFIGS) {
            MetadataImage image = context.metadata().image();
            String own = context.configs().ownEntity();
            Map<String, String> current = image.entityConfigs(name);
            Map<String, String> next;
            try {
                next = change.apply(current);
            } catch (ConfigException e) {
                throw new ApiException(Errors.INVALID_CONFIG, e.getMessage());
            }
            for (String key : changedKeys(current, next)) {
                if (BrokerConfigDefs.DEF.find(key).map(k -> k.dynamicMode().isDynamic()).orElse(false)
                        && !DynamicBrokerConfig.appliedLive(key)) {
                    throw new ApiException(Errors.INVALID_REQUEST, "Krill applies " + key + " only at startup: "
                            + "set it in server.properties and restart the broker");
                }
            }
            try {
                context.configs().statics().withDynamicConfigs(name.isEmpty() ? image.entityConfigs(own) : next,
                        name.isEmpty() ? next : image.entityConfigs(""));
            } catch (ConfigException e) {
                throw new ApiException(Errors.INVALID_CONFIG, e.getMessage());
            }
            if (!validateOnly && !next.equals(current)) {
                context.metadata().alterEntityConfigs(name, next);
            }
        }
    }

    private static Set<String> changedKeys(Map<String, String> before, Map<String, String> after) {
        Set<String> changed = new HashSet<>();
        after.forEach((k, v) -> {
            if (!v.equals(before.get(k))) {
                changed.add(k);
            }
        });
        for (String k : before.keySet()) {
            if (!after.containsKey(k)) {
                changed.add(k);
            }
        }
        return changed;
    }

    /** Kafka's check that a BROKER or BROKER_LOGGER resource names this node. */
    static void checkIsThisNode(BrokerContext context, String name) {
        int id;
        try {
            id = Integer.parseInt(name);
        } catch (NumberFormatException e) {
            throw new ApiException(Errors.INVALID_REQUEST, "Node id must be an integer, but it is: " + name);
        }
        if (id != context.nodeId()) {
            throw new ApiException(Errors.INVALID_REQUEST, "Unexpected broker id, expected " + context.nodeId()
                    + ", but received " + name);
        }
    }

    /** Resource types neither API handles here. */
    static ApiException unsupported(byte resourceType) {
        return new ApiException(Errors.INVALID_REQUEST, "Unknown resource type " + resourceType);
    }

    /**
     * Kafka's check of a config resource: {@code operation} (DESCRIBE_CONFIGS or ALTER_CONFIGS) on the
     * topic, on the group, or on the cluster for broker, broker-logger and client-metrics resources;
     * the matching *_AUTHORIZATION_FAILED otherwise.
     */
    static void authorize(Request request, Authorization authorization, AclOperation operation, byte resourceType,
                          String name) {
        switch (ConfigResourceType.forId(resourceType)) {
            case TOPIC -> {
                if (!authorization.topic(request, operation, name)) {
                    throw new ApiException(Errors.TOPIC_AUTHORIZATION_FAILED, "Authorization failed.");
                }
            }
            case GROUP -> {
                if (!authorization.group(request, operation, name)) {
                    throw new ApiException(Errors.GROUP_AUTHORIZATION_FAILED, "Authorization failed.");
                }
            }
            case BROKER, BROKER_LOGGER, CLIENT_METRICS -> {
                if (!authorization.cluster(request, operation)) {
                    throw new ApiException(Errors.CLUSTER_AUTHORIZATION_FAILED, "Authorization failed.");
                }
            }
            default -> {
            }
        }
    }
}

package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.Request;
import io.krill.broker.config.BrokerConfigDefs;
import io.krill.broker.config.ConfigException;
import io.krill.broker.config.DynamicBrokerConfig;
import io.krill.broker.config.GroupConfigKeys;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.controller.metadata.FinalizedFeatures;
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
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
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
 * <p>A GROUP resource changes the group's configs, the metadata store entity {@code groups/<groupId>}
 * ({@link GroupConfigKeys}), checked against this broker's share-group and consumer-group bounds.
 *
 * <p>Writes never block the request thread: each resource's write is a future of the metadata store
 * (a version-checked read-modify-write in ZooKeeper), and the handlers answer once all of a request's
 * writes have completed ({@link PendingAnswer}). No lock is held across a write: two concurrent
 * incremental changes of one resource, through one broker or several, cannot lose one another because
 * the store applies each change to what it holds at its write, not to what this broker's image showed.
 *
 * <p>Stateless; thread-safe. The changes handed to the store run on its threads: they are pure and quick.
 */
final class ConfigAlteration {

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
     * {@code validateOnly}. Checked first against this broker's image, on the calling thread, in Kafka's
     * order: {@code change} validates and throws {@link ConfigException}, thrown here as INVALID_CONFIG;
     * then an unknown topic is UNKNOWN_TOPIC_OR_PARTITION. The returned future is the write (complete at
     * once under validateOnly or when nothing changes): a version-checked write of the store, which
     * applies {@code change} again to the overrides it holds when they are not the ones checked here
     * (another connection or broker changed them meanwhile), so concurrent incremental changes all
     * survive; its failures are ApiExceptions (INVALID_CONFIG if the change no longer validates then,
     * UNKNOWN_TOPIC_OR_PARTITION, REQUEST_TIMED_OUT).
     */
    static CompletableFuture<Void> alterTopic(BrokerContext context, String name, UnaryOperator<Map<String, String>> change,
                                              boolean validateOnly) {
        if (name.isEmpty()) {
            throw new ApiException(Errors.INVALID_REQUEST, "Default topic resources are not allowed.");
        }
        TopicNames.validate(name);
        TopicImage topic = context.metadata().image().topic(name);
        Map<String, String> current = topic == null ? Map.of() : topic.configs();
        Map<String, String> next = validated(change, current);
        if (topic == null) {
            throw new ApiException(Errors.UNKNOWN_TOPIC_OR_PARTITION, "The topic '" + name + "' does not exist.");
        }
        if (validateOnly || next.equals(current)) {
            return CompletableFuture.completedFuture(null);
        }
        // Runs on a store thread (ZooKeeper's): the stored overrides are almost always the ones checked
        // above, so the usual case only hands back the result; a concurrent change costs a validation.
        return context.metadata().alterTopicConfigsAsync(name,
                stored -> stored.equals(current) ? next : validated(change, stored)).thenApply(altered -> null);
    }

    private static Map<String, String> validated(UnaryOperator<Map<String, String>> change, Map<String, String> current) {
        try {
            return change.apply(current);
        } catch (ConfigException e) {
            throw new ApiException(Errors.INVALID_CONFIG, e.getMessage());
        }
    }

    /**
     * A BROKER resource: {@code name} is empty (the cluster default) or this broker's id, as Kafka checks.
     * The entity's dynamic layer becomes {@code change(current layer)}, validated against this broker's
     * static configuration (and the other dynamic layer as this broker's image has it), on the calling
     * thread against the image, and is written to the metadata store unless {@code validateOnly} or
     * nothing changes. As for topics, the write is version-checked and re-applies (and re-validates)
     * {@code change} to the layer the store holds when it is not the one checked here.
     */
    static CompletableFuture<Void> alterBroker(BrokerContext context, String name, UnaryOperator<Map<String, String>> change,
                                               boolean validateOnly) {
        if (!name.isEmpty()) {
            checkIsThisNode(context, name);
        }
        Map<String, String> current = context.metadata().image().entityConfigs(name);
        Map<String, String> next = checkedBrokerLayer(context, name, change, current);
        if (validateOnly || next.equals(current)) {
            return CompletableFuture.completedFuture(null);
        }
        return context.metadata().updateEntityConfigsAsync(name,
                stored -> stored.equals(current) ? next : checkedBrokerLayer(context, name, change, stored))
                .thenApply(written -> null);
    }

    /**
     * A GROUP resource: the configs of group {@code name} (which need not exist, as in Kafka; the empty
     * name, a default group, is INVALID_REQUEST) become
     * {@code change(current)}, validated by {@code change} against this broker's bounds (INVALID_CONFIG with
     * Kafka's message), and are written as the metadata store entity {@code groups/<name>} unless
     * {@code validateOnly} or nothing changes. The write is version-checked like a topic's.
     */
    static CompletableFuture<Void> alterGroup(BrokerContext context, String name,
                                              UnaryOperator<Map<String, String>> change, boolean validateOnly) {
        if (name.isEmpty()) {
            throw new ApiException(Errors.INVALID_REQUEST, "Default group resources are not allowed.");
        }
        String entity = GroupConfigKeys.entity(name);
        Map<String, String> current = context.metadata().image().entityConfigs(entity);
        Map<String, String> next = validated(change, current);
        if (validateOnly || next.equals(current)) {
            return CompletableFuture.completedFuture(null);
        }
        return context.metadata().updateEntityConfigsAsync(entity,
                stored -> stored.equals(current) ? next : validated(change, stored)).thenApply(written -> null);
    }

    /**
     * A CLIENT_METRICS resource (KIP-714): the configs of subscription {@code name} become {@code change(current)},
     * validated by {@code change} as Kafka validates them ({@link io.krill.broker.telemetry.ClientMetricsConfigs}),
     * and are written as the metadata store entity {@code client-metrics/<name>} unless {@code validateOnly} or
     * nothing changes; a subscription whose configs are all deleted no longer exists. Version-checked as a group's.
     */
    static CompletableFuture<Void> alterClientMetrics(BrokerContext context, String name,
                                                      UnaryOperator<Map<String, String>> change, boolean validateOnly) {
        String entity = io.krill.broker.telemetry.ClientMetricsConfigs.entity(name);
        Map<String, String> current = context.metadata().image().entityConfigs(entity);
        Map<String, String> next = validated(change, current);
        if (validateOnly || next.equals(current)) {
            return CompletableFuture.completedFuture(null);
        }
        return context.metadata().updateEntityConfigsAsync(entity,
                stored -> stored.equals(current) ? next : validated(change, stored)).thenApply(written -> null);
    }

    /** {@code change(current)} for a broker entity, or the ApiException Kafka answers for it. */
    private static Map<String, String> checkedBrokerLayer(BrokerContext context, String name,
                                                          UnaryOperator<Map<String, String>> change,
                                                          Map<String, String> current) {
        Map<String, String> next = validated(change, current);
        checkMinIsrWithEligibleLeaderReplicas(context, name, current, next);
        for (String key : changedKeys(current, next)) {
            if (BrokerConfigDefs.DEF.find(key).map(k -> k.dynamicMode().isDynamic()).orElse(false)
                    && !DynamicBrokerConfig.appliedLive(key)) {
                throw new ApiException(Errors.INVALID_REQUEST, "Krill applies " + key + " only at startup: "
                        + "set it in server.properties and restart the broker");
            }
        }
        MetadataImage image = context.metadata().image();
        String own = context.configs().ownEntity();
        try {
            context.configs().statics().withDynamicConfigs(name.isEmpty() ? image.entityConfigs(own) : next,
                    name.isEmpty() ? next : image.entityConfigs(""));
        } catch (ConfigException e) {
            throw new ApiException(Errors.INVALID_CONFIG, e.getMessage());
        }
        return next;
    }

    /**
     * With eligible leader replicas on, {@code min.insync.replicas} decides which replicas the controller may
     * elect, so it must be one value cluster-wide: as Kafka, a broker's own value may not change and the
     * cluster-wide one may not be removed (INVALID_CONFIG).
     */
    private static void checkMinIsrWithEligibleLeaderReplicas(BrokerContext context, String name,
                                                              Map<String, String> current, Map<String, String> next) {
        String key = "min.insync.replicas";
        if (Objects.equals(current.get(key), next.get(key)) || context.metadata().image()
                .finalizedFeatures().level(FinalizedFeatures.ELIGIBLE_LEADER_REPLICAS_VERSION) < 1) {
            return;
        }
        if (!name.isEmpty()) {
            throw new ApiException(Errors.INVALID_CONFIG, "Broker-level " + key
                    + " cannot be altered while ELR is enabled.");
        }
        if (!next.containsKey(key)) {
            throw new ApiException(Errors.INVALID_CONFIG, "Cluster-level " + key
                    + " cannot be removed while ELR is enabled.");
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

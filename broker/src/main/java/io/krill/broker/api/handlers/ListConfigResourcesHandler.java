package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.config.GroupConfigKeys;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.telemetry.ClientMetricsManager;
import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.TopicImage;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.ListConfigResourcesRequest;
import io.krill.wire.message.ListConfigResourcesResponse;
import io.krill.wire.protocol.ApiMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * ListConfigResources (v0-1, KIP-1142; v0 is KIP-714's ListClientMetricsResources): the config resources of the
 * requested types, as Kafka 4.4 lists them: v0 only CLIENT_METRICS (the subscriptions), v1 also GROUP (groups
 * with configs), BROKER_LOGGER and BROKER (live brokers) and TOPIC (every topic); an empty list of types means
 * all that the version supports, a type it does not support UNSUPPORTED_VERSION. Needs DESCRIBE_CONFIGS on the
 * cluster. Thread-safe: stateless over the image and the telemetry manager.
 */
public final class ListConfigResourcesHandler extends AbstractApiHandler {
    private static final Set<Byte> V0_TYPES = Set.of(ConfigResourceType.CLIENT_METRICS.id());
    private static final List<Byte> V1_TYPES = List.of(ConfigResourceType.TOPIC.id(), ConfigResourceType.BROKER.id(),
            ConfigResourceType.BROKER_LOGGER.id(), ConfigResourceType.CLIENT_METRICS.id(),
            ConfigResourceType.GROUP.id());

    private final BrokerContext context;
    private final ClientMetricsManager telemetry;

    public ListConfigResourcesHandler(BrokerContext context, ClientMetricsManager telemetry) {
        super(ApiKeys.LIST_CONFIG_RESOURCES, 0, 1);
        this.context = context;
        this.telemetry = telemetry;
    }

    @Override
    public void handle(Request request) {
        if (!context.authorization().cluster(request, AclOperation.DESCRIBE_CONFIGS)) {
            request.respond(errorResponse(request, Errors.CLUSTER_AUTHORIZATION_FAILED));
            return;
        }
        ListConfigResourcesRequest body = request.body();
        List<Byte> supported = request.version() == 0 ? List.copyOf(V0_TYPES) : V1_TYPES;
        List<Byte> types = request.version() == 0 || body.resourceTypes().isEmpty() ? supported : body.resourceTypes();
        for (Byte type : types) {
            if (!supported.contains(type)) {
                request.respond(errorResponse(request, Errors.UNSUPPORTED_VERSION));
                return;
            }
        }
        MetadataImage image = context.metadata().image();
        List<ListConfigResourcesResponse.ConfigResource> resources = new ArrayList<>();
        if (types.contains(ConfigResourceType.GROUP.id())) {
            image.entitiesOfType(GroupConfigKeys.ENTITY_PREFIX.substring(0, GroupConfigKeys.ENTITY_PREFIX.length() - 1))
                    .forEach((group, configs) -> {
                        if (!configs.isEmpty()) {
                            resources.add(resource(group, ConfigResourceType.GROUP));
                        }
                    });
        }
        if (types.contains(ConfigResourceType.CLIENT_METRICS.id())) {
            for (String name : telemetry.subscriptionNames()) {
                resources.add(resource(name, ConfigResourceType.CLIENT_METRICS));
            }
        }
        for (ConfigResourceType brokerType : List.of(ConfigResourceType.BROKER_LOGGER, ConfigResourceType.BROKER)) {
            if (types.contains(brokerType.id())) {
                for (BrokerInfo broker : image.brokers()) {
                    resources.add(resource(Integer.toString(broker.nodeId()), brokerType));
                }
            }
        }
        if (types.contains(ConfigResourceType.TOPIC.id())) {
            for (TopicImage topic : image.topics()) {
                resources.add(resource(topic.name(), ConfigResourceType.TOPIC));
            }
        }
        request.respond(new ListConfigResourcesResponse().setConfigResources(resources));
    }

    private static ListConfigResourcesResponse.ConfigResource resource(String name, ConfigResourceType type) {
        return new ListConfigResourcesResponse.ConfigResource().setResourceName(name).setResourceType(type.id());
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        return new ListConfigResourcesResponse().setErrorCode(error.code());
    }
}

package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.config.ConfigDescriber;
import io.krill.broker.config.ConfigSource;
import io.krill.broker.config.ConfigSynonym;
import io.krill.broker.config.ConfigType;
import io.krill.broker.config.DescribedConfig;
import io.krill.broker.config.GroupConfigKeys;
import io.krill.broker.config.TopicConfig;
import io.krill.broker.telemetry.ClientMetricsConfigs;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.controller.metadata.TopicImage;
import io.krill.controller.metadata.TopicNames;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.DescribeConfigsRequest;
import io.krill.wire.message.DescribeConfigsResponse;
import io.krill.wire.protocol.ApiMessage;
import java.util.ArrayList;
import java.util.List;

/**
 * DescribeConfigs of TOPIC resources (every topic key: its value, source, synonyms, type and
 * documentation) and BROKER resources (this broker's id, or the empty name for the cluster-wide dynamic
 * defaults), as Kafka's ConfigHelper answers them; {@link ConfigDescriber} knows the values. A
 * BROKER_LOGGER resource of this broker is answered with no loggers: Krill does not expose its log levels
 * through the protocol. A GROUP resource is described from the group's configs in this broker's
 * metadata image over the broker defaults (a group without configs, or that does not exist, shows the
 * defaults, as in Kafka). A CLIENT_METRICS resource shows a client metrics subscription's three keys (KIP-714).
 *
 * <p>Thread-safe: stateless.
 */
public final class DescribeConfigsHandler extends AbstractApiHandler {
    private final BrokerContext context;

    public DescribeConfigsHandler(BrokerContext context) {
        super(ApiKeys.DESCRIBE_CONFIGS, 1, 4);
        this.context = context;
    }

    @Override
    public void handle(Request request) {
        DescribeConfigsRequest body = request.body();
        DescribeConfigsResponse response = new DescribeConfigsResponse();
        for (DescribeConfigsRequest.DescribeConfigsResource resource : body.resources()) {
            DescribeConfigsResponse.DescribeConfigsResult result;
            try {
                ConfigAlteration.authorize(request, context.authorization(), AclOperation.DESCRIBE_CONFIGS,
                        resource.resourceType(), resource.resourceName());
                result = new DescribeConfigsResponse.DescribeConfigsResult();
                for (DescribedConfig config : describe(resource)) {
                    if (wanted(resource, config.name())) {
                        result.configs().add(entry(config, body.includeSynonyms(), body.includeDocumentation()));
                    }
                }
            } catch (ApiException e) {
                result = new DescribeConfigsResponse.DescribeConfigsResult()
                        .setErrorCode(e.error().code())
                        .setErrorMessage(e.getMessage());
            }
            response.results().add(result.setResourceType(resource.resourceType()).setResourceName(resource.resourceName()));
        }
        request.respond(response);
    }

    private List<DescribedConfig> describe(DescribeConfigsRequest.DescribeConfigsResource resource) {
        String name = resource.resourceName();
        ConfigResourceType type = ConfigResourceType.forId(resource.resourceType());
        switch (type) {
            case TOPIC -> {
                TopicNames.validate(name);
                TopicImage topic = context.metadata().image().topic(name);
                if (topic == null) {
                    throw new ApiException(Errors.UNKNOWN_TOPIC_OR_PARTITION, null);
                }
                return ConfigDescriber.describeTopic(TopicConfig.resolve(topic.configs(), context.config()),
                        context.config());
            }
            case BROKER -> {
                if (name.isEmpty()) {
                    return ConfigDescriber.describeClusterDefault(context.config());
                }
                if (brokerId(name) != context.nodeId()) {
                    throw new ApiException(Errors.INVALID_REQUEST, "Unexpected broker id, expected "
                            + context.nodeId() + " or empty string, but received " + name);
                }
                return ConfigDescriber.describeBroker(context.config());
            }
            case GROUP -> {
                if (name.isEmpty()) {
                    throw new ApiException(Errors.INVALID_REQUEST, "Group name must not be empty");
                }
                return ConfigDescriber.describeGroup(
                        context.metadata().image().entityConfigs(GroupConfigKeys.entity(name)), context.config());
            }
            case CLIENT_METRICS -> {
                if (name.isEmpty()) {
                    throw new ApiException(Errors.INVALID_REQUEST, "Client metrics subscription name must not be empty");
                }
                return describeClientMetrics(context.metadata().image().entityConfigs(ClientMetricsConfigs.entity(name)));
            }
            case BROKER_LOGGER -> {
                if (name.isEmpty()) {
                    throw new ApiException(Errors.INVALID_REQUEST, "Broker id must not be empty");
                }
                if (brokerId(name) != context.nodeId()) {
                    throw new ApiException(Errors.INVALID_REQUEST, "Unexpected broker id, expected "
                            + context.nodeId() + " but received " + name);
                }
                return List.of();
            }
            default -> throw new ApiException(Errors.INVALID_REQUEST, "Unsupported resource type: " + type);
        }
    }

    /**
     * A CLIENT_METRICS resource as Kafka's ConfigHelper describes it: its three keys in name order, each with the
     * subscription's value (source CLIENT_METRICS_CONFIG, that one synonym) or the default (DEFAULT_CONFIG, no
     * synonyms). A subscription that does not exist shows the defaults.
     */
    static List<DescribedConfig> describeClientMetrics(java.util.Map<String, String> configs) {
        List<DescribedConfig> result = new ArrayList<>();
        List<ClientMetricsConfigs.Key> keys = new ArrayList<>(ClientMetricsConfigs.KEYS);
        keys.sort(java.util.Comparator.comparing(ClientMetricsConfigs.Key::name));
        for (ClientMetricsConfigs.Key key : keys) {
            String raw = configs.get(key.name());
            ConfigType type = key.list() ? ConfigType.LIST : ConfigType.INT;
            if (raw == null) {
                result.add(new DescribedConfig(key.name(), key.defaultValue(), ConfigSource.DEFAULT_CONFIG, false,
                        false, type, key.documentation(), List.of()));
            } else {
                String value = key.list() ? String.join(",", ClientMetricsConfigs.splitList(raw)) : raw.trim();
                result.add(new DescribedConfig(key.name(), value, ConfigSource.CLIENT_METRICS_CONFIG, false, false,
                        type, key.documentation(),
                        List.of(new ConfigSynonym(key.name(), value, ConfigSource.CLIENT_METRICS_CONFIG))));
            }
        }
        return result;
    }

    private static int brokerId(String name) {
        try {
            return Integer.parseInt(name);
        } catch (NumberFormatException e) {
            throw new ApiException(Errors.INVALID_REQUEST, "Broker id must be an integer, but it is: " + name);
        }
    }

    /** Null or empty keys mean every key, as in Kafka. */
    private static boolean wanted(DescribeConfigsRequest.DescribeConfigsResource resource, String key) {
        List<String> keys = resource.configurationKeys();
        return keys == null || keys.isEmpty() || keys.contains(key);
    }

    private static DescribeConfigsResponse.DescribeConfigsResourceResult entry(DescribedConfig config, boolean synonyms,
                                                                              boolean documentation) {
        List<DescribeConfigsResponse.DescribeConfigsSynonym> listed = new ArrayList<>();
        if (synonyms) {
            for (ConfigSynonym synonym : config.synonyms()) {
                listed.add(new DescribeConfigsResponse.DescribeConfigsSynonym()
                        .setName(synonym.name())
                        .setValue(synonym.value())
                        .setSource((byte) synonym.source().id()));
            }
        }
        return new DescribeConfigsResponse.DescribeConfigsResourceResult()
                .setName(config.name())
                .setValue(config.value())
                .setReadOnly(config.readOnly())
                .setConfigSource((byte) config.source().id())
                .setIsSensitive(config.sensitive())
                .setSynonyms(listed)
                .setConfigType((byte) config.type().id())
                .setDocumentation(documentation ? config.documentation() : null);
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        DescribeConfigsRequest body = request.body();
        DescribeConfigsResponse response = new DescribeConfigsResponse();
        for (DescribeConfigsRequest.DescribeConfigsResource resource : body.resources()) {
            response.results().add(new DescribeConfigsResponse.DescribeConfigsResult()
                    .setErrorCode(error.code())
                    .setErrorMessage(error.message())
                    .setResourceType(resource.resourceType())
                    .setResourceName(resource.resourceName()));
        }
        return response;
    }
}

package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.config.GroupConfigValidator;
import io.krill.broker.telemetry.ClientMetricsConfigs;
import io.krill.broker.config.TopicConfigValidator;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.AlterConfigsRequest;
import io.krill.wire.message.AlterConfigsResponse;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.protocol.ApiMessage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.Map;

/**
 * AlterConfigs, the legacy API: a TOPIC resource's overrides are replaced by exactly the given ones
 * (validated as CreateTopics validates them); a BROKER resource's dynamic layer likewise (see
 * {@link ConfigAlteration}), and a GROUP resource's configs (Kafka 4.4 accepts GROUP here too). Each
 * resource succeeds or fails on its own. Checks are answered from this
 * broker's image; the writes go to the metadata store together and the request is answered when the
 * last one completes ({@link PendingAnswer}), so the request thread never waits for ZooKeeper.
 *
 * <p>Thread-safe: stateless (a request's state lives in its callbacks); see {@link ConfigAlteration} for
 * concurrent changes.
 */
public final class AlterConfigsHandler extends AbstractApiHandler {
    private final BrokerContext context;

    public AlterConfigsHandler(BrokerContext context) {
        super(ApiKeys.ALTER_CONFIGS, 0, 2);
        this.context = context;
    }

    @Override
    public void handle(Request request) {
        AlterConfigsRequest body = request.body();
        List<AlterConfigsRequest.AlterConfigsResource> resources = body.resources();
        boolean[] repeated = ConfigAlteration.repeated(resources, r -> List.of(r.resourceType(), r.resourceName()));
        AlterConfigsResponse response = new AlterConfigsResponse();
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        for (int i = 0; i < resources.size(); i++) {
            AlterConfigsRequest.AlterConfigsResource resource = resources.get(i);
            AlterConfigsResponse.AlterConfigsResourceResponse result = new AlterConfigsResponse.AlterConfigsResourceResponse()
                    .setResourceType(resource.resourceType())
                    .setResourceName(resource.resourceName())
                    .setErrorMessage(null);
            try {
                if (repeated[i]) {
                    throw new ApiException(Errors.INVALID_REQUEST, "Each resource must appear at most once.");
                }
                ConfigAlteration.authorize(request, context.authorization(), AclOperation.ALTER_CONFIGS,
                        resource.resourceType(), resource.resourceName());
                writes.add(PendingAnswer.onFailure(alter(resource, body.validateOnly()), resource,
                        (error, message) -> result.setErrorCode(error.code()).setErrorMessage(message)));
            } catch (ApiException e) {
                result.setErrorCode(e.error().code()).setErrorMessage(e.getMessage());
            }
            response.responses().add(result);
        }
        PendingAnswer.respondWhenDone(request, this, writes, () -> response);
    }

    /** Checks the resource (throwing its error) and returns its write, complete at once under validateOnly. */
    private CompletableFuture<Void> alter(AlterConfigsRequest.AlterConfigsResource resource, boolean validateOnly) {
        List<String> names = new ArrayList<>();
        List<String> nulls = new ArrayList<>();
        Map<String, String> configs = new HashMap<>();
        for (AlterConfigsRequest.AlterableConfig config : resource.configs()) {
            names.add(config.name());
            if (config.value() == null) {
                nulls.add(config.name());
            }
            configs.put(config.name(), config.value());
        }
        ConfigAlteration.checkNoDuplicateKeys(names);
        ConfigAlteration.checkNoNullValues(nulls);
        return switch (ConfigResourceType.forId(resource.resourceType())) {
            case TOPIC -> ConfigAlteration.alterTopic(context, resource.resourceName(),
                    current -> TopicConfigValidator.validate(configs, context.config()), validateOnly);
            case BROKER -> ConfigAlteration.alterBroker(context, resource.resourceName(), current -> configs,
                    validateOnly);
            case GROUP -> ConfigAlteration.alterGroup(context, resource.resourceName(),
                    current -> GroupConfigValidator.validate(configs, context.config()), validateOnly);
            case CLIENT_METRICS -> ConfigAlteration.alterClientMetrics(context, resource.resourceName(),
                    current -> ClientMetricsConfigs.validate(resource.resourceName(), configs), validateOnly);
            default -> throw ConfigAlteration.unsupported(resource.resourceType());
        };
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        AlterConfigsRequest body = request.body();
        AlterConfigsResponse response = new AlterConfigsResponse();
        for (AlterConfigsRequest.AlterConfigsResource resource : body.resources()) {
            response.responses().add(new AlterConfigsResponse.AlterConfigsResourceResponse()
                    .setErrorCode(error.code())
                    .setErrorMessage(error.message())
                    .setResourceType(resource.resourceType())
                    .setResourceName(resource.resourceName()));
        }
        return response;
    }
}

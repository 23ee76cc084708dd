package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.config.AlterConfigOp;
import io.krill.broker.config.DynamicBrokerConfig;
import io.krill.broker.config.TopicConfigValidator;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.IncrementalAlterConfigsRequest;
import io.krill.wire.message.IncrementalAlterConfigsResponse;
import io.krill.wire.protocol.ApiMessage;
import java.util.ArrayList;
import java.util.List;

/**
 * IncrementalAlterConfigs: SET, DELETE, APPEND and SUBTRACT on a TOPIC resource's overrides, applied
 * to its current ones and validated as a whole ({@link TopicConfigValidator#applyIncremental}). BROKER
 * resources are refused while Krill has no dynamic broker configs, BROKER_LOGGER ones because log levels
 * cannot be changed through the protocol (after Kafka's name checks in both cases). Each resource
 * succeeds or fails on its own.
 *
 * <p>Thread-safe: stateless; see {@link ConfigAlteration} for concurrent changes.
 */
public final class IncrementalAlterConfigsHandler extends AbstractApiHandler {
    private final BrokerContext context;

    public IncrementalAlterConfigsHandler(BrokerContext context) {
        super(ApiKeys.INCREMENTAL_ALTER_CONFIGS, 0, 1);
        this.context = context;
    }

    @Override
    public void handle(Request request) {
        IncrementalAlterConfigsRequest body = request.body();
        List<IncrementalAlterConfigsRequest.AlterConfigsResource> resources = body.resources();
        boolean[] repeated = ConfigAlteration.repeated(resources, r -> List.of(r.resourceType(), r.resourceName()));
        IncrementalAlterConfigsResponse response = new IncrementalAlterConfigsResponse();
        for (int i = 0; i < resources.size(); i++) {
            IncrementalAlterConfigsRequest.AlterConfigsResource resource = resources.get(i);
            IncrementalAlterConfigsResponse.AlterConfigsResourceResponse result =
                    new IncrementalAlterConfigsResponse.AlterConfigsResourceResponse()
                            .setResourceType(resource.resourceType())
                            .setResourceName(resource.resourceName())
                            .setErrorMessage(null);
            try {
                if (repeated[i]) {
                    throw new ApiException(Errors.INVALID_REQUEST, "Each resource must appear at most once.");
                }
                ConfigAlteration.authorize(request, context.authorization(), AclOperation.ALTER_CONFIGS,
                        resource.resourceType(), resource.resourceName());
                alter(resource, body.validateOnly());
            } catch (ApiException e) {
                result.setErrorCode(e.error().code()).setErrorMessage(e.getMessage());
            }
            response.responses().add(result);
        }
        request.respond(response);
    }

    private void alter(IncrementalAlterConfigsRequest.AlterConfigsResource resource, boolean validateOnly) {
        List<String> names = new ArrayList<>();
        List<String> nulls = new ArrayList<>();
        List<AlterConfigOp> ops = new ArrayList<>();
        for (IncrementalAlterConfigsRequest.AlterableConfig config : resource.configs()) {
            names.add(config.name());
            AlterConfigOp.OpType op = opType(config.configOperation());
            if (op != AlterConfigOp.OpType.DELETE && config.value() == null) {
                nulls.add(config.name());
            }
            ops.add(new AlterConfigOp(config.name(), op, config.value()));
        }
        ConfigAlteration.checkNoDuplicateKeys(names);
        ConfigAlteration.checkNoNullValues(nulls);
        String name = resource.resourceName();
        switch (ConfigResourceType.forId(resource.resourceType())) {
            case TOPIC -> ConfigAlteration.alterTopic(context, name,
                    current -> TopicConfigValidator.applyIncremental(current, ops, context.config()), validateOnly);
            case BROKER -> ConfigAlteration.alterBroker(context, name,
                    current -> DynamicBrokerConfig.applyIncremental(current, ops), validateOnly);
            case BROKER_LOGGER -> {
                ConfigAlteration.checkIsThisNode(context, name);
                if (!ops.isEmpty()) {
                    throw new ApiException(Errors.INVALID_REQUEST,
                            "Krill does not support changing log levels through the Kafka protocol");
                }
            }
            default -> throw ConfigAlteration.unsupported(resource.resourceType());
        }
    }

    private static AlterConfigOp.OpType opType(byte id) {
        try {
            return AlterConfigOp.OpType.forId(id);
        } catch (IllegalArgumentException e) {
            throw new ApiException(Errors.INVALID_REQUEST, "Unknown operation type " + id);
        }
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        IncrementalAlterConfigsRequest body = request.body();
        IncrementalAlterConfigsResponse response = new IncrementalAlterConfigsResponse();
        for (IncrementalAlterConfigsRequest.AlterConfigsResource resource : body.resources()) {
            response.responses().add(new IncrementalAlterConfigsResponse.AlterConfigsResourceResponse()
                    .setErrorCode(error.code())
                    .setErrorMessage(error.message())
                    .setResourceType(resource.resourceType())
                    .setResourceName(resource.resourceName()));
        }
        return response;
    }
}

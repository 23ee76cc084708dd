package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.config.AlterConfigOp;
import io.krill.broker.config.DynamicBrokerConfig;
import io.krill.broker.config.GroupConfigValidator;
import io.krill.broker.config.TopicConfigValidator;
import io.krill.broker.telemetry.ClientMetricsConfigs;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.IncrementalAlterConfigsRequest;
import io.krill.wire.message.IncrementalAlterConfigsResponse;
import io.krill.wire.protocol.ApiMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * IncrementalAlterConfigs: SET, DELETE, APPEND and SUBTRACT on a TOPIC resource's overrides, applied
 * to its current ones and validated as a whole ({@link TopicConfigValidator#applyIncremental}); the same
 * on a BROKER resource's dynamic layer ({@link ConfigAlteration}) and on a GROUP resource's configs
 * ({@link GroupConfigValidator}) and on a CLIENT_METRICS resource's ({@link ClientMetricsConfigs}); BROKER_LOGGER ones are refused because
 * log levels cannot be changed through the protocol (after Kafka's name check). Each resource succeeds
 * or fails on its own. Checks are answered from this broker's image; the writes go to the metadata store
 * together and the request is answered when the last one completes ({@link PendingAnswer}), so the
 * request thread never waits for ZooKeeper. The store applies each change to the configs it holds when
 * it writes, so concurrent incremental changes of one resource all survive.
 *
 * <p>Thread-safe: stateless (a request's state lives in its callbacks); see {@link ConfigAlteration} for
 * concurrent changes.
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
        List<CompletableFuture<Void>> writes = new ArrayList<>();
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
    private CompletableFuture<Void> alter(IncrementalAlterConfigsRequest.AlterConfigsResource resource,
                                          boolean validateOnly) {
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
        return switch (ConfigResourceType.forId(resource.resourceType())) {
            case TOPIC -> ConfigAlteration.alterTopic(context, name,
                    current -> TopicConfigValidator.applyIncremental(current, ops, context.config()), validateOnly);
            case BROKER -> ConfigAlteration.alterBroker(context, name,
                    current -> DynamicBrokerConfig.applyIncremental(current, ops), validateOnly);
            case GROUP -> ConfigAlteration.alterGroup(context, name,
                    current -> GroupConfigValidator.applyIncremental(current, ops, context.config()), validateOnly);
            case CLIENT_METRICS -> ConfigAlteration.alterClientMetrics(context, name,
                    current -> ClientMetricsConfigs.applyIncremental(name, current, ops), validateOnly);
            case BROKER_LOGGER -> {
                ConfigAlteration.checkIsThisNode(context, name);
                if (!ops.isEmpty()) {
                    throw new ApiException(Errors.INVALID_REQUEST,
                            "Krill does not support changing log levels through the Kafka protocol");
                }
                yield CompletableFuture.completedFuture(null);
            }
            default -> throw ConfigAlteration.unsupported(resource.resourceType());
        };
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

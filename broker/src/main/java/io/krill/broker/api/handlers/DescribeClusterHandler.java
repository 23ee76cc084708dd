package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.MetadataImage;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.DescribeClusterRequest;
import io.krill.wire.message.DescribeClusterResponse;
import io.krill.wire.protocol.ApiMessage;

/**
 * DescribeCluster: cluster id, controller and the live brokers with their endpoint on the listener the
 * client came in by. A broker answers only for endpoint type 1 (brokers): type 2 (controllers) is
 * MISMATCHED_ENDPOINT_TYPE and any other UNSUPPORTED_ENDPOINT_TYPE, as in Kafka (INVALID_REQUEST at v0,
 * which cannot carry another type anyway). Krill fences no brokers, so v2's includeFencedBrokers changes
 * nothing.
 *
 * <p>Thread-safe: stateless.
 */
public final class DescribeClusterHandler extends AbstractApiHandler {
    private static final byte BROKERS = 1;
    private static final byte CONTROLLERS = 2;

    private final BrokerContext context;

    public DescribeClusterHandler(BrokerContext context) {
        super(ApiKeys.DESCRIBE_CLUSTER, 0, 2);
        this.context = context;
    }

    @Override
    public void handle(Request request) {
        DescribeClusterRequest body = request.body();
        byte endpointType = body.endpointType();
        if (endpointType != BROKERS) {
            boolean known = endpointType == CONTROLLERS;
            Errors error = request.version() == 0 ? Errors.INVALID_REQUEST
                    : known ? Errors.MISMATCHED_ENDPOINT_TYPE : Errors.UNSUPPORTED_ENDPOINT_TYPE;
            request.respond(new DescribeClusterResponse()
                    .setErrorCode(error.code())
                    .setErrorMessage(known
                            ? "The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type CONTROLLER"
                            : "Unsupported endpoint type " + endpointType));
            return;
        }
        MetadataImage image = context.metadata().image();
        DescribeClusterResponse response = new DescribeClusterResponse()
                .setClusterId(image.clusterId())
                .setControllerId(image.controllerId())
                .setClusterAuthorizedOperations(body.includeClusterAuthorizedOperations()
                        ? context.authorization().clusterAuthorizedOperations(request) : AuthorizedOperations.OMITTED);
        for (BrokerInfo broker : image.brokers()) {
            BrokerInfo.Endpoint endpoint = broker.endpoint(request.connection().listenerName());
            if (endpoint != null) {
                response.brokers().add(new DescribeClusterResponse.DescribeClusterBroker()
                        .setBrokerId(broker.nodeId())
                        .setHost(endpoint.host())
                        .setPort(endpoint.port())
                        .setRack(broker.rack()));
            }
        }
        request.respond(response);
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        return new DescribeClusterResponse().setErrorCode(error.code()).setErrorMessage(error.message());
    }
}

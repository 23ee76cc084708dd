package io.krill.broker.api.handlers;

import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.telemetry.ClientMetricsManager;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.GetTelemetrySubscriptionsRequest;
import io.krill.wire.message.GetTelemetrySubscriptionsResponse;
import io.krill.wire.protocol.ApiMessage;

/**
 * GetTelemetrySubscriptions (v0, KIP-714): a client instance's subscription, from {@link ClientMetricsManager}.
 * No authorization, as in Kafka. Thread-safe: the manager is.
 */
public final class GetTelemetrySubscriptionsHandler extends AbstractApiHandler {
    private final ClientMetricsManager telemetry;

    public GetTelemetrySubscriptionsHandler(ClientMetricsManager telemetry) {
        super(ApiKeys.GET_TELEMETRY_SUBSCRIPTIONS, 0, 0);
        this.telemetry = telemetry;
    }

    @Override
    public void handle(Request request) {
        GetTelemetrySubscriptionsRequest body = request.body();
        request.respond(telemetry.getSubscriptions(body.clientInstanceId(), TelemetryClients.of(request)));
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        return new GetTelemetrySubscriptionsResponse().setErrorCode(error.code());
    }
}

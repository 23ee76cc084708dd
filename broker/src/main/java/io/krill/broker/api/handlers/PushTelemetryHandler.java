package io.krill.broker.api.handlers;

import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.telemetry.ClientMetricsManager;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.PushTelemetryRequest;
import io.krill.wire.message.PushTelemetryResponse;
import io.krill.wire.protocol.ApiMessage;

/**
 * PushTelemetry (v0, KIP-714): a client instance's metrics, checked and kept by {@link ClientMetricsManager}
 * for /metrics. The metrics are a slice of the request's buffer, read before this method returns. No
 * authorization, as in Kafka. Thread-safe: the manager is.
 */
public final class PushTelemetryHandler extends AbstractApiHandler {
    private final ClientMetricsManager telemetry;

    public PushTelemetryHandler(ClientMetricsManager telemetry) {
        super(ApiKeys.PUSH_TELEMETRY, 0, 0);
        this.telemetry = telemetry;
    }

    @Override
    public void handle(Request request) {
        PushTelemetryRequest body = request.body();
        request.respond(telemetry.push(body.clientInstanceId(), body.subscriptionId(), body.terminating(),
                body.compressionType(), body.metrics(), TelemetryClients.of(request)));
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        return new PushTelemetryResponse().setErrorCode(error.code());
    }
}

package io.krill.broker.api.handlers;

import io.krill.broker.api.Request;
import io.krill.broker.security.Session;
import io.krill.broker.telemetry.ClientMetricsManager;
import java.net.InetSocketAddress;

/** The client of a telemetry request as {@link ClientMetricsManager} matches it. Stateless. */
final class TelemetryClients {
    private TelemetryClients() {
    }

    static ClientMetricsManager.Client of(Request request) {
        Session session = request.session();
        String name = session == null ? "unknown" : session.clientSoftwareName();
        String version = session == null ? "unknown" : session.clientSoftwareVersion();
        if (request.connection().remoteAddress() instanceof InetSocketAddress inet) {
            return new ClientMetricsManager.Client(request.clientId(), name, version, inet.getAddress(), inet.getPort(),
                    request.connection().connectionId(), request::whenConnectionClosed);
        }
        return new ClientMetricsManager.Client(request.clientId(), name, version, null, -1,
                request.connection().connectionId(), request::whenConnectionClosed);
    }
}

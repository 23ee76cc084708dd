package io.krill.broker.security;

import io.krill.broker.config.BrokerConfig;
import io.krill.broker.config.ConfigException;
import io.krill.broker.config.Listener;
import io.krill.broker.config.SecurityProtocol;
import io.krill.broker.security.authentication.ServerMechanismFactory;
import io.krill.broker.security.ssl.SslFactory;

/**
 * What the network layer needs to secure one listener: TLS (SSL and SASL_SSL), the SASL mechanisms
 * (SASL_PLAINTEXT and SASL_SSL), the re-authentication period and the frame bound of unauthenticated
 * connections, all resolved with the listener's {@code listener.name.<name>.} overrides.
 *
 * @param ssl                null unless the protocol runs over TLS
 * @param mechanisms         null unless the protocol is SASL_*
 * @param reauthMs           {@code connections.max.reauth.ms}, 0 for sessions that never expire
 * @param maxUnauthenticatedFrameBytes {@code sasl.server.max.receive.size}
 */
public record ListenerSecurity(Listener listener, SslFactory ssl, ServerMechanismFactory mechanisms, long reauthMs,
                               int maxUnauthenticatedFrameBytes) {

    public static ListenerSecurity of(BrokerConfig config, Listener listener, ServerMechanismFactory mechanisms) {
        ListenerSecurityConfig values = new ListenerSecurityConfig(config, listener.name());
        SecurityProtocol protocol = listener.securityProtocol();
        boolean tls = protocol == SecurityProtocol.SSL || protocol == SecurityProtocol.SASL_SSL;
        boolean sasl = protocol == SecurityProtocol.SASL_PLAINTEXT || protocol == SecurityProtocol.SASL_SSL;
        SslFactory ssl = tls ? new SslFactory(values) : null;
        if (ssl != null && ssl.serverContext() == null) {
            throw new ConfigException("Listener " + listener.name() + " (" + protocol + ") needs a key store: set "
                    + "ssl.keystore.location or listener.name." + listener.name().toLowerCase(java.util.Locale.ROOT)
                    + ".ssl.keystore.location");
        }
        return new ListenerSecurity(listener, ssl, sasl ? mechanisms : null,
                values.longValue("connections.max.reauth.ms"), values.intValue("sasl.server.max.receive.size"));
    }

    /** A PLAINTEXT listener (tests). */
    public static ListenerSecurity plaintext(Listener listener) {
        return new ListenerSecurity(listener, null, null, 0, 524288);
    }

    public boolean sasl() {
        return mechanisms != null;
    }
}

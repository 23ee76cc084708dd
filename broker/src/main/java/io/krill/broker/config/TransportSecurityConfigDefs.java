package io.krill.broker.config;

import static io.krill.broker.config.ConfigKey.builder;
import static io.krill.broker.config.ConfigType.INT;
import static io.krill.broker.config.ConfigType.LIST;
import static io.krill.broker.config.ConfigType.LONG;
import static io.krill.broker.config.ConfigType.STRING;
import static io.krill.broker.config.Validators.atLeast;

/**
 * The transport side of security: TLS details beyond the key stores, the principal mapping of
 * certificates, KIP-368 re-authentication and the memory bound of unauthenticated connections.
 */
final class TransportSecurityConfigDefs {
    private TransportSecurityConfigDefs() {
    }

    static ConfigDef define() {
        return new ConfigDef()
            .define(builder("ssl.cipher.suites", LIST).defaultValue(java.util.List.of()).perBroker()
                .doc("The TLS cipher suites enabled; empty enables the JDK's defaults."))
            .define(builder("ssl.keymanager.algorithm", STRING).defaultValue("SunX509").perBroker()
                .doc("The key manager factory algorithm of TLS connections."))
            .define(builder("ssl.trustmanager.algorithm", STRING).defaultValue("PKIX").perBroker()
                .doc("The trust manager factory algorithm of TLS connections."))
            .define(builder("ssl.principal.mapping.rules", STRING).defaultValue("DEFAULT")
                .doc("Rules mapping a client certificate's distinguished name to a principal name: DEFAULT "
                    + "or RULE:pattern/replacement/[LU], comma separated, first match wins."))
            .define(builder("connections.max.reauth.ms", LONG).defaultValue(0L).validator(atLeast(0))
                .doc("The longest a SASL session lasts before the client must re-authenticate; 0 disables it."))
            .define(builder("sasl.server.max.receive.size", INT).defaultValue(524288).validator(atLeast(1))
                .doc("The largest frame accepted from a connection that has not authenticated yet."));
    }
}

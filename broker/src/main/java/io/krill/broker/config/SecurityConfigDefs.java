package io.krill.broker.config;

import static io.krill.broker.config.ConfigKey.builder;
import static io.krill.broker.config.ConfigType.LIST;
import static io.krill.broker.config.ConfigType.PASSWORD;
import static io.krill.broker.config.ConfigType.STRING;
import static io.krill.broker.config.Importance.HIGH;
import static io.krill.broker.config.Validators.oneOfIgnoreCase;

/** The common TLS and SASL keys of a Kafka server.properties; passwords are PASSWORD-typed, never printed. */
final class SecurityConfigDefs {
    private SecurityConfigDefs() {
    }

    static ConfigDef define() {
        return new ConfigDef()
            .define(builder("ssl.keystore.type", STRING).defaultValue("JKS").perBroker()
                .doc("The key store format: JKS, PKCS12 or PEM."))
            .define(builder("ssl.keystore.location", STRING).importance(HIGH).perBroker()
                .doc("The key store file of the broker's TLS listeners."))
            .define(builder("ssl.keystore.password", PASSWORD).importance(HIGH).perBroker()
                .doc("The key store password."))
            .define(builder("ssl.key.password", PASSWORD).importance(HIGH).perBroker()
                .doc("The password of the private key in the key store."))
            .define(builder("ssl.truststore.type", STRING).defaultValue("JKS").perBroker()
                .doc("The trust store format: JKS, PKCS12 or PEM."))
            .define(builder("ssl.truststore.location", STRING).importance(HIGH).perBroker()
                .doc("The trust store file."))
            .define(builder("ssl.truststore.password", PASSWORD).importance(HIGH).perBroker()
                .doc("The trust store password."))
            .define(builder("ssl.client.auth", STRING).defaultValue("none")
                .validator(oneOfIgnoreCase("required", "requested", "none")).perBroker()
                .doc("Whether TLS clients must (required), may (requested) or need not (none) present a certificate."))
            .define(builder("ssl.enabled.protocols", LIST).defaultValue("TLSv1.2,TLSv1.3").perBroker()
                .doc("The TLS protocol versions enabled on TLS listeners."))
            .define(builder("ssl.protocol", STRING).defaultValue("TLSv1.3").perBroker()
                .doc("The TLS protocol used to create the SSLContext."))
            .define(builder("ssl.endpoint.identification.algorithm", STRING).defaultValue("https").perBroker()
                .doc("The algorithm verifying a peer's host name against its certificate; empty disables it."))
            .define(builder("sasl.enabled.mechanisms", LIST).defaultValue("GSSAPI").perBroker()
                .doc("The SASL mechanisms enabled on SASL listeners."))
            .define(builder("sasl.mechanism.inter.broker.protocol", STRING).defaultValue("GSSAPI")
                .doc("The SASL mechanism brokers use with each other."))
            .define(builder("sasl.jaas.config", PASSWORD).perBroker()
                .doc("The JAAS login context of SASL connections, in JAAS file format."));
    }
}

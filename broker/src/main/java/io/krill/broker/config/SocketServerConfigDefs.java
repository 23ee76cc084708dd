package io.krill.broker.config;

import static io.krill.broker.config.ConfigKey.builder;
import static io.krill.broker.config.ConfigType.INT;
import static io.krill.broker.config.ConfigType.LIST;
import static io.krill.broker.config.ConfigType.LONG;
import static io.krill.broker.config.ConfigType.STRING;
import static io.krill.broker.config.Importance.HIGH;
import static io.krill.broker.config.Importance.LOW;
import static io.krill.broker.config.Validators.atLeast;
import static io.krill.broker.config.Validators.listOf;
import static io.krill.broker.config.Validators.oneOf;

/** Listener, socket and connection-limit keys (Kafka's SocketServerConfigs). */
final class SocketServerConfigDefs {
    static final String LISTENERS = "listeners";
    static final String ADVERTISED_LISTENERS = "advertised.listeners";
    static final String PROTOCOL_MAP = "listener.security.protocol.map";
    static final String INTER_BROKER_LISTENER_NAME = "inter.broker.listener.name";
    static final String INTER_BROKER_PROTOCOL = "security.inter.broker.protocol";

    private SocketServerConfigDefs() {
    }

    static ConfigDef define() {
        return new ConfigDef()
            .define(builder(LISTENERS, LIST).defaultValue("PLAINTEXT://:9092").validator(listOf(false))
                .importance(HIGH).perBroker()
                .doc("Comma-separated NAME://host:port URIs to listen on. An empty host binds the default "
                    + "interface, 0.0.0.0 all interfaces, [::1] an IPv6 address. Names and ports must be unique."))
            .define(builder(ADVERTISED_LISTENERS, LIST).validator(listOf(false)).importance(HIGH).perBroker()
                .doc("The addresses given to clients and other brokers, if different from listeners (the default). "
                    + "An empty host is advertised as localhost in Krill; 0.0.0.0 cannot be advertised."))
            .define(builder(PROTOCOL_MAP, STRING).defaultValue(Listeners.DEFAULT_PROTOCOL_MAP).importance(LOW)
                .perBroker()
                .doc("Map of listener names to security protocols, e.g. INTERNAL:SSL,EXTERNAL:SSL."))
            .define(builder(INTER_BROKER_LISTENER_NAME, STRING).importance(Importance.MEDIUM)
                .doc("The listener brokers use to talk to each other; if not set, the listener named by "
                    + "security.inter.broker.protocol. Only one of the two may be set."))
            .define(builder(INTER_BROKER_PROTOCOL, STRING).defaultValue("PLAINTEXT")
                .validator(oneOf("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"))
                .doc("The security protocol between brokers; the listener of the same name is used."))
            .define(builder("socket.send.buffer.bytes", INT).defaultValue(100 * 1024).importance(HIGH)
                .doc("SO_SNDBUF of server sockets; -1 uses the OS default."))
            .define(builder("socket.receive.buffer.bytes", INT).defaultValue(100 * 1024).importance(HIGH)
                .doc("SO_RCVBUF of server sockets; -1 uses the OS default."))
            .define(builder("socket.request.max.bytes", INT).defaultValue(100 * 1024 * 1024).validator(atLeast(1))
                .importance(HIGH)
                .doc("The largest request the broker accepts; larger ones close the connection."))
            .define(builder("socket.listen.backlog.size", INT).defaultValue(50).validator(atLeast(1))
                .doc("The maximum number of pending connections on a server socket."))
            .define(builder("max.connections.per.ip", INT).defaultValue(Integer.MAX_VALUE).validator(atLeast(0))
                .clusterWide()
                .doc("The maximum number of connections from one IP address; new ones are dropped at the limit."))
            .define(builder("max.connections.per.ip.overrides", STRING).defaultValue("").clusterWide()
                .doc("Per-IP or per-host overrides of max.connections.per.ip, e.g. hostName:100,127.0.0.1:200."))
            .define(builder("max.connections", INT).defaultValue(Integer.MAX_VALUE).validator(atLeast(0))
                .clusterWide()
                .doc("The maximum number of connections to the broker at any time."))
            .define(builder("max.connection.creation.rate", INT).defaultValue(Integer.MAX_VALUE)
                .validator(atLeast(0)).clusterWide()
                .doc("The maximum number of new connections per second; more are throttled."))
            .define(builder("connections.max.idle.ms", LONG).defaultValue(10 * 60 * 1000L)
                .doc("Connections idle for longer are closed."))
            .define(builder("connection.failed.authentication.delay.ms", INT).defaultValue(100)
                .validator(atLeast(0)).importance(LOW)
                .doc("How long to delay closing a connection after a failed authentication."))
            .define(builder("queued.max.requests", INT).defaultValue(500).validator(atLeast(1)).importance(HIGH)
                .doc("The number of requests queued for the I/O threads before network threads stop reading."))
            .define(builder("queued.max.request.bytes", LONG).defaultValue(-1L)
                .doc("The number of queued request bytes before no more requests are read; -1 means no limit."))
            .define(builder("num.network.threads", INT).defaultValue(3).validator(atLeast(1)).importance(HIGH)
                .clusterWide()
                .doc("The number of threads receiving requests from and sending responses to the network."));
    }
}

package io.krill.compat.differential;

import io.krill.compat.KrillBrokerExtension;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * A second pair of brokers configured alike for security: one SASL_PLAINTEXT listener with PLAIN, the ACL
 * authorizer ({@code StandardAuthorizer} on both), super user {@code admin} (and {@code ANONYMOUS}, the
 * principal of Kafka's PLAINTEXT controller listener), and an ordinary user {@code alice} without any ACL.
 * Started once for the run by the first class that registers it, stopped at its end, as
 * {@link DifferentialNodes}.
 *
 * <p>Each broker is seen by four clients: {@code admin} and {@code alice} log in before every request,
 * {@code anonymous} does not (requests before authentication), {@code handshaken} only does the
 * SaslHandshake for PLAIN (to send its own SaslAuthenticate).
 *
 * <p>Thread-safety: JUnit calls the callbacks on one thread; the started nodes are published through a
 * volatile field and never change afterwards.
 */
public final class SecureNodes implements BeforeAllCallback, TestExecutionExceptionHandler {
    static final String ADMIN_PASSWORD = "admin-secret";
    static final String ALICE_PASSWORD = "alice-secret";
    private static final String JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required "
            + "username=\"admin\" password=\"" + ADMIN_PASSWORD + "\" user_admin=\"" + ADMIN_PASSWORD + "\" "
            + "user_alice=\"" + ALICE_PASSWORD + "\";";
    private static final String STORE_KEY = SecureNodes.class.getName();

    private static volatile Nodes nodes;

    /** The secure pair, seen by the super user, by alice and before authentication. */
    record Nodes(NodePair started, Sequence.Pair admin, Sequence.Pair alice, Sequence.Pair anonymous,
                 Sequence.Pair handshaken) implements ExtensionContext.Store.CloseableResource {
        @Override
        public void close() {
            started.stop();
        }
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        ExtensionContext root = context.getRoot();
        nodes = root.getStore(ExtensionContext.Namespace.GLOBAL).getOrComputeIfAbsent(STORE_KEY, key -> start(root),
                Nodes.class);
    }

    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable throwable) throws Throwable {
        Nodes started = nodes;
        if (started != null) {
            started.started().attachLogs(context, throwable);
        }
        throw throwable;
    }

    static Nodes nodes() {
        Nodes started = nodes;
        if (started == null) {
            throw new IllegalStateException("the secure nodes are not started: register SecureNodes");
        }
        return started;
    }

    /** The keys both brokers get (listener-prefixed JAAS, as Kafka's brokers take it). */
    private static Map<String, String> security() {
        Map<String, String> keys = new LinkedHashMap<>();
        keys.put("sasl.enabled.mechanisms", "PLAIN");
        keys.put("sasl.mechanism.inter.broker.protocol", "PLAIN");
        keys.put("listener.name.sasl_plaintext.plain.sasl.jaas.config", JAAS);
        keys.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        keys.put("super.users", "User:admin;User:ANONYMOUS");
        return keys;
    }

    private static Nodes start(ExtensionContext root) {
        KrillBrokerExtension krillBroker = NodePair.singleNodeKrill()
                .with("listeners", "SASL_PLAINTEXT://127.0.0.1:0")
                .with("listener.security.protocol.map", "SASL_PLAINTEXT:SASL_PLAINTEXT")
                .with("inter.broker.listener.name", "SASL_PLAINTEXT");
        security().forEach(krillBroker::with);
        NodePair pair = NodePair.start(root, new KafkaKraftProcess("SASL_PLAINTEXT", security()), krillBroker,
                "the secure nodes");
        try {
            RequestVersions versions = pair.versions;
            ConformanceClient.Login admin = ConformanceClient.Login.plain("admin", ADMIN_PASSWORD);
            BrokerSide kafka = new BrokerSide(new ConformanceClient("kafka-admin", pair.kafka.host(), pair.kafka.port(),
                    admin), versions);
            BrokerSide krill = new BrokerSide(new ConformanceClient("krill-admin", "127.0.0.1", pair.krill.port(), admin),
                    versions);
            krill.setClusterDefaults(kafka.clusterDefaults());
            ConformanceClient.Login alice = ConformanceClient.Login.plain("alice", ALICE_PASSWORD);
            ConformanceClient.Login handshakeOnly = ConformanceClient.Login.handshakeOnly("PLAIN");
            return new Nodes(pair, new Sequence.Pair(kafka, krill, versions),
                    new Sequence.Pair(kafka.as("kafka-alice", alice), krill.as("krill-alice", alice), versions),
                    new Sequence.Pair(kafka.as("kafka-anonymous", null), krill.as("krill-anonymous", null), versions),
                    new Sequence.Pair(kafka.as("kafka-handshaken", handshakeOnly), krill.as("krill-handshaken",
                            handshakeOnly), versions));
        } catch (RuntimeException | Error e) {
            pair.stop();
            throw e;
        }
    }
}

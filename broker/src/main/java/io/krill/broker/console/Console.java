package io.krill.broker.console;

import com.sun.net.httpserver.HttpHandler;
import io.krill.broker.config.BrokerConfig;
import io.krill.broker.config.ConfigException;
import io.krill.broker.config.SecurityProtocol;
import io.krill.broker.security.InterBrokerConnector;
import io.krill.broker.security.ListenerSecurityConfig;
import io.krill.broker.security.authorizer.Authorizer;
import io.krill.broker.security.sasl.SaslMechanisms;
import io.krill.broker.security.scram.ScramCredentials;
import io.krill.broker.security.ssl.SslFactory;
import io.krill.controller.metadata.MetadataImage;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;

/**
 * The web console of one broker, assembled: its Kafka client to the cluster, the views and API, the
 * history sampler and the HTTP handler, with the console listener's security ({@code krill.console.listener}).
 * Started by the broker when {@code krill.http.port} is set and {@code krill.console.enable} is true.
 *
 * <p>Thread-safety: its parts are thread-safe; {@link #close} from the owner.
 */
public final class Console implements AutoCloseable {
    /** The longest wait for any one broker's answer. */
    static final int CALL_TIMEOUT_MS = 5_000;
    static final int CLIENT_THREADS = 8;

    private final BrokerClient client;
    private final ConsoleHandler handler;
    private final ConsoleHistory history;
    private final SSLContext tls;

    private Console(BrokerClient client, ConsoleHandler handler, ConsoleHistory history, SSLContext tls) {
        this.client = client;
        this.handler = handler;
        this.history = history;
        this.tls = tls;
    }

    /**
     * @param authorizer the broker's authorizer, or null when authorization is off
     * @throws ConfigException when the console listener is unknown or its TLS stores cannot be read
     */
    public static Console start(BrokerConfig config, Supplier<MetadataImage> image, InterBrokerConnector connector,
                                SaslMechanisms mechanisms, Authorizer authorizer) {
        String listener = config.consoleListener();
        SecurityProtocol protocol = config.listeners().protocolMap().get(listener);
        if (protocol == null || config.listeners().listeners().stream().noneMatch(l -> l.name().equals(listener))) {
            throw new ConfigException("krill.console.listener=" + listener + " is not one of the listeners");
        }
        SSLContext tls = null;
        if (protocol == SecurityProtocol.SSL || protocol == SecurityProtocol.SASL_SSL) {
            tls = new SslFactory(new ListenerSecurityConfig(config, listener)).clientContext();
        }
        BrokerClient client = new BrokerClient(config.nodeId(), image, config.listeners().interBrokerListenerName(),
                connector, CALL_TIMEOUT_MS, CLIENT_THREADS);
        ClusterView cluster = new ClusterView(image, client);
        ConsoleAuthenticator authenticator = new ConsoleAuthenticator(protocol, listener, mechanisms,
                new ScramCredentials(image), authorizer);
        GroupsView groups = new GroupsView(cluster);
        ConsoleHistory history = new ConsoleHistory(cluster, groups, config.consoleHistoryIntervalMs(),
                config.consoleHistorySamples());
        ConsoleActions actions = new ConsoleActions(cluster);
        ConsoleApi api = new ConsoleApi(new TopicsApi(cluster, listener), new GroupsApi(cluster, groups),
                new TransactionsApi(cluster), new HistoryApi(history), new TopicActions(actions),
                new GroupActions(actions, groups), config.consoleReadOnly());
        ConsoleHandler handler = new ConsoleHandler(authenticator, api,
                new StaticResources(Console.class.getClassLoader()));
        history.start();
        return new Console(client, handler, history, tls);
    }

    public HttpHandler handler() {
        return handler;
    }

    /** The HTTPS context (the console listener's key store), or null to serve plain HTTP. */
    public SSLContext tls() {
        return tls;
    }

    @Override
    public void close() {
        history.close();
        handler.close();
        client.close();
    }
}

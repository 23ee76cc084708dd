package io.krill.broker.security.ssl;

import io.krill.broker.config.ConfigException;
import io.krill.broker.security.ListenerSecurityConfig;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TLS for one listener, from its {@code ssl.*} keys (JKS, PKCS12 or PEM key and trust stores, JDK provider):
 * the server side as a Netty {@link SslContext} for the listener's {@code SslHandler}s, the client side
 * as blocking {@link SSLSocket}s for inter-broker links.
 *
 * <p>Certificates are reloaded when the key store or trust store file changes: every new connection
 * checks the files' modification times (one stat each) and a changed store is read again; connections
 * already open keep the context they started with. A store that fails to load keeps the previous
 * context and is logged.
 *
 * <p>Thread-safe: the current contexts are swapped under the instance lock.
 */
public final class SslFactory {
    private static final Logger LOG = LoggerFactory.getLogger(SslFactory.class);

    private final ListenerSecurityConfig config;
    private final ClientAuth clientAuth;
    private final List<String> protocols;
    private final List<String> cipherSuites;
    private final boolean hostnameVerification;
    private final SslPrincipalMapper principalMapper;
    private FileTime keystoreModified;
    private FileTime truststoreModified;
    private SslContext serverContext;
    private SSLContext clientContext;

    /** @throws ConfigException when the stores cannot be read */
    public SslFactory(ListenerSecurityConfig config) {
        this.config = config;
        this.clientAuth = switch (config.string("ssl.client.auth").toLowerCase(Locale.ROOT)) {
            case "required" -> ClientAuth.REQUIRE;
            case "requested" -> ClientAuth.OPTIONAL;
            default -> ClientAuth.NONE;
        };
        this.protocols = config.list("ssl.enabled.protocols");
        this.cipherSuites = config.list("ssl.cipher.suites");
        String identification = config.string("ssl.endpoint.identification.algorithm");
        this.hostnameVerification = identification != null && identification.equalsIgnoreCase("https");
        this.principalMapper = SslPrincipalMapper.parse(config.string("ssl.principal.mapping.rules"));
        try {
            load();
        } catch (IOException | GeneralSecurityException e) {
            throw new ConfigException("Cannot load the TLS key or trust store of listener " + config.listenerName()
                    + ": " + e);
        }
    }

    public SslPrincipalMapper principalMapper() {
        return principalMapper;
    }

    /** The server context for a new connection, reloaded first if a store file changed. */
    public synchronized SslContext serverContext() {
        maybeReload();
        return serverContext;
    }

    /** The client context for a new inter-broker connection, reloaded first if a store file changed. */
    public synchronized SSLContext clientContext() {
        maybeReload();
        return clientContext;
    }

    /**
     * Wraps a connected socket in TLS as a client and completes the handshake; with
     * {@code ssl.endpoint.identification.algorithm=https} the peer's certificate must match {@code host}.
     */
    public SSLSocket clientSocket(Socket connected, String host, int port) throws IOException {
        SSLSocket ssl = (SSLSocket) clientContext().getSocketFactory().createSocket(connected, host, port, true);
        SSLParameters params = ssl.getSSLParameters();
        params.setProtocols(protocols.toArray(String[]::new));
        if (!cipherSuites.isEmpty()) {
            params.setCipherSuites(cipherSuites.toArray(String[]::new));
        }
        if (hostnameVerification) {
            params.setEndpointIdentificationAlgorithm("HTTPS");
        }
        ssl.setSSLParameters(params);
        ssl.startHandshake();
        return ssl;
    }

    private void maybeReload() {
        FileTime keystore = modified(config.string("ssl.keystore.location"));
        FileTime truststore = modified(config.string("ssl.truststore.location"));
        if (Objects.equals(keystore, keystoreModified) && Objects.equals(truststore, truststoreModified)) {
            return;
        }
        try {
            load();
            LOG.info("Reloaded the TLS key and trust stores of listener {}", config.listenerName());
        } catch (IOException | GeneralSecurityException e) {
            // Keep serving with the previous certificates; try again on the next connection.
            keystoreModified = keystore;
            truststoreModified = truststore;
            LOG.error("Cannot reload the TLS stores of listener {}; keeping the previous ones: {}",
                    config.listenerName(), e.toString());
        }
    }

    private void load() throws IOException, GeneralSecurityException {
        FileTime keystoreTime = modified(config.string("ssl.keystore.location"));
        FileTime truststoreTime = modified(config.string("ssl.truststore.location"));
        KeyManagerFactory kmf = null;
        KeyStore keyStore = store("ssl.keystore");
        if (keyStore != null) {
            String keyPassword = config.password("ssl.key.password");
            if (keyPassword == null) {
                keyPassword = config.password("ssl.keystore.password");
            }
            kmf = KeyManagerFactory.getInstance(config.string("ssl.keymanager.algorithm"));
            kmf.init(keyStore, isPem("ssl.keystore") ? PemStores.keyPassword()
                    : keyPassword == null ? new char[0] : keyPassword.toCharArray());
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(config.string("ssl.trustmanager.algorithm"));
        tmf.init(store("ssl.truststore"));

        SslContext server = null;
        if (kmf != null) {
            SslContextBuilder builder = SslContextBuilder.forServer(kmf)
                    .sslProvider(SslProvider.JDK)
                    .trustManager(tmf)
                    .protocols(protocols)
                    .clientAuth(clientAuth);
            if (!cipherSuites.isEmpty()) {
                builder.ciphers(cipherSuites);
            }
            server = builder.build();
        }
        SSLContext client = SSLContext.getInstance("TLS");
        client.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        this.serverContext = server;
        this.clientContext = client;
        this.keystoreModified = keystoreTime;
        this.truststoreModified = truststoreTime;
    }

    /** The store {@code <prefix>.location} of type {@code <prefix>.type}, or null when no location is set. */
    private KeyStore store(String prefix) throws IOException, GeneralSecurityException {
        String location = config.string(prefix + ".location");
        if (location == null || location.isEmpty()) {
            return null;
        }
        String type = config.string(prefix + ".type");
        if (isPem(prefix)) {
            return prefix.equals("ssl.keystore")
                    ? PemStores.keyStore(Path.of(location), config.password("ssl.key.password"))
                    : PemStores.trustStore(Path.of(location));
        }
        String password = config.password(prefix + ".password");
        KeyStore store = KeyStore.getInstance(type);
        try (InputStream in = Files.newInputStream(Path.of(location))) {
            store.load(in, password == null ? null : password.toCharArray());
        }
        return store;
    }

    private boolean isPem(String prefix) {
        return "PEM".equalsIgnoreCase(config.string(prefix + ".type"));
    }

    private static FileTime modified(String location) {
        if (location == null || location.isEmpty()) {
            return null;
        }
        try {
            return Files.getLastModifiedTime(Path.of(location));
        } catch (IOException e) {
            return null;
        }
    }
}

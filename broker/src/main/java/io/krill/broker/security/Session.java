package io.krill.broker.security;

import io.krill.broker.config.SecurityProtocol;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * The security state of one connection: where it comes from, the listener and protocol it came in on,
 * and who it authenticated as. Handlers read the principal for authorization and quotas.
 *
 * <p>Thread-safety: the principal and the authenticated flag are written by the connection's
 * authenticator (TLS handshake, SASL exchange, re-authentication) and read by handlers on any thread;
 * both are volatile. The close actions are a concurrent list run once, by the connection's event loop
 * when it closes (or at once for one added after that). The rest is immutable.
 */
public final class Session {
    private final SocketAddress remoteAddress;
    private final String listenerName;
    private final SecurityProtocol securityProtocol;
    private volatile KafkaPrincipal principal = KafkaPrincipal.ANONYMOUS;
    private volatile boolean authenticated;
    /** What the client named itself in ApiVersions v3+ (Kafka's ClientInformation; "unknown" until then). */
    private volatile String clientSoftwareName = "unknown";
    private volatile String clientSoftwareVersion = "unknown";
    private final java.util.List<Runnable> closeActions = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

    public Session(SocketAddress remoteAddress, String listenerName, SecurityProtocol securityProtocol) {
        this.remoteAddress = remoteAddress;
        this.listenerName = listenerName;
        this.securityProtocol = securityProtocol;
        // PLAINTEXT needs no exchange: the connection is "authenticated" as ANONYMOUS from the start.
        this.authenticated = securityProtocol == SecurityProtocol.PLAINTEXT;
    }

    /** A session that is authenticated as {@code principal} from the start (tests, internal callers). */
    public static Session authenticatedAs(KafkaPrincipal principal, SocketAddress remoteAddress, String listenerName,
                                          SecurityProtocol protocol) {
        Session session = new Session(remoteAddress, listenerName, protocol);
        session.authenticated(principal);
        return session;
    }

    public SocketAddress remoteAddress() {
        return remoteAddress;
    }

    /** The client's IP address, or null if the remote address is not an IP socket (embedded tests). */
    public InetAddress clientAddress() {
        return remoteAddress instanceof InetSocketAddress inet ? inet.getAddress() : null;
    }

    /** The client software's name from its ApiVersions request (v3+), else "unknown" as in Kafka. */
    public String clientSoftwareName() {
        return clientSoftwareName;
    }

    /** The client software's version from its ApiVersions request (v3+), else "unknown" as in Kafka. */
    public String clientSoftwareVersion() {
        return clientSoftwareVersion;
    }

    /** Records the client software ApiVersions v3+ named (client telemetry matches and labels by it). */
    public void clientSoftware(String name, String version) {
        this.clientSoftwareName = name;
        this.clientSoftwareVersion = version;
    }

    public String listenerName() {
        return listenerName;
    }

    public SecurityProtocol securityProtocol() {
        return securityProtocol;
    }

    public KafkaPrincipal principal() {
        return principal;
    }

    /** True once the connection may send requests other than ApiVersions and the SASL exchange. */
    public boolean isAuthenticated() {
        return authenticated;
    }

    /** Records a completed authentication (first or re-authentication) as {@code who}. */
    public void authenticated(KafkaPrincipal who) {
        this.principal = who;
        this.authenticated = true;
    }

    /**
     * Runs {@code action} when the connection closes: state a client keeps on this broker for the
     * connection's life (a share session's acquired records) is given up at once rather than at a timeout.
     */
    public void onClose(Runnable action) {
        closeActions.add(action);
        if (closed.get() && closeActions.remove(action)) {
            action.run();
        }
    }

    /** The connection closed: runs the close actions, once. */
    public void closed() {
        if (closed.compareAndSet(false, true)) {
            for (Runnable action : closeActions) {
                if (closeActions.remove(action)) {
                    action.run();
                }
            }
        }
    }

    @Override
    public String toString() {
        return principal + "@" + remoteAddress + " on " + listenerName;
    }
}

package io.krill.broker.security.authentication;

import io.krill.broker.security.KafkaPrincipal;
import io.krill.broker.security.Session;
import io.krill.broker.security.sasl.SaslAuthenticationException;
import io.krill.broker.security.sasl.SaslServerMechanism;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The SASL state of one connection on a SASL_PLAINTEXT or SASL_SSL listener, as Kafka's server runs it:
 * SaslHandshake picks a mechanism, then SaslAuthenticate requests (handshake v1) or raw size-prefixed
 * tokens (handshake v0, the legacy flow) carry the exchange until the mechanism completes and the
 * {@link Session} is authenticated. Until then only ApiVersions and the SASL requests are admitted.
 *
 * <p>KIP-368: with {@code connections.max.reauth.ms} &gt; 0 a session lasts that long (the client reads
 * the lifetime from SaslAuthenticate v1+); a request other than the SASL ones after it expired closes
 * the connection. A new SaslHandshake on an authenticated connection starts a re-authentication, which
 * must use the same mechanism and end with the same principal.
 *
 * <p>Any failure (unknown mechanism, a message out of order, bad credentials, a changed principal)
 * answers with the error and then closes the connection: {@link #mustClose()}.
 *
 * <p>Not thread-safe: confined to the connection's request thread.
 */
public final class SaslServerAuthenticator {
    private enum State { HANDSHAKE, AUTHENTICATE, LEGACY_TOKENS, AUTHENTICATED, FAILED }

    /** What SaslHandshake answers. */
    public record HandshakeOutcome(Errors error, List<String> enabledMechanisms) {
    }

    /** What SaslAuthenticate answers. */
    public record AuthenticateOutcome(Errors error, String errorMessage, byte[] token, long sessionLifetimeMs) {
    }

    private final Session session;
    private final ServerMechanismFactory mechanisms;
    private final long reauthMs;
    private State state = State.HANDSHAKE;
    private SaslServerMechanism mechanism;
    /** The principal of the session being re-authenticated, null on the first authentication. */
    private KafkaPrincipal reauthenticating;
    /** System.nanoTime() after which the session has expired; 0 for never. */
    private long expiresAtNanos;
    private boolean everAuthenticated;
    /** The mechanism of the last successful authentication: a re-authentication must use it again. */
    private String authenticatedMechanism;
    private String failure;

    public SaslServerAuthenticator(Session session, ServerMechanismFactory mechanisms, long reauthMs) {
        this.session = session;
        this.mechanisms = mechanisms;
        this.reauthMs = reauthMs;
    }

    /** True for the requests a connection may send before (or between) authentications. */
    public static boolean isSaslOrVersions(ApiKeys api) {
        return api == ApiKeys.API_VERSIONS || api == ApiKeys.SASL_HANDSHAKE || api == ApiKeys.SASL_AUTHENTICATE;
    }

    /** Null if {@code api} may be served now, else why the connection must close. */
    public String refusal(ApiKeys api) {
        if (isSaslOrVersions(api)) {
            return null;
        }
        if (!everAuthenticated) {
            return api.apiName() + " request before SASL authentication";
        }
        if (expiresAtNanos != 0 && System.nanoTime() - expiresAtNanos >= 0) {
            return api.apiName() + " request after the SASL session expired (connections.max.reauth.ms)";
        }
        return null;
    }

    /** True while the next frame is a raw SASL token (after SaslHandshake v0). */
    public boolean expectsRawToken() {
        return state == State.LEGACY_TOKENS;
    }

    /** True once a failure was answered: the connection closes after that response. */
    public boolean mustClose() {
        return state == State.FAILED;
    }

    /** Why the exchange failed (for the log), once {@link #mustClose()}. */
    public String failure() {
        return failure;
    }

    private void fail(String why) {
        state = State.FAILED;
        failure = why;
    }

    public HandshakeOutcome handshake(short version, String mechanismName) {
        List<String> enabled = mechanisms.enabledMechanisms(session.listenerName());
        if (state != State.HANDSHAKE && state != State.AUTHENTICATED) {
            fail("SaslHandshake out of order");
            return new HandshakeOutcome(Errors.ILLEGAL_SASL_STATE, enabled);
        }
        if (mechanismName == null || !enabled.contains(mechanismName)) {
            fail("SASL mechanism " + mechanismName + " is not enabled (enabled: " + enabled + ")");
            return new HandshakeOutcome(Errors.UNSUPPORTED_SASL_MECHANISM, enabled);
        }
        if (state == State.AUTHENTICATED && !mechanismName.equals(authenticatedMechanism)) {
            fail("re-authentication with " + mechanismName + " after " + authenticatedMechanism);
            return new HandshakeOutcome(Errors.UNSUPPORTED_SASL_MECHANISM, enabled);
        }
        reauthenticating = state == State.AUTHENTICATED ? session.principal() : null;
        if (reauthenticating != null && version == 0) {
            // Re-authentication exists only with SaslAuthenticate (KIP-368 requires handshake v1).
            fail("re-authentication with SaslHandshake v0");
            return new HandshakeOutcome(Errors.ILLEGAL_SASL_STATE, enabled);
        }
        mechanism = mechanisms.create(session.listenerName(), mechanismName);
        state = version == 0 ? State.LEGACY_TOKENS : State.AUTHENTICATE;
        return new HandshakeOutcome(Errors.NONE, enabled);
    }

    public AuthenticateOutcome authenticate(byte[] clientToken) {
        if (state != State.AUTHENTICATE) {
            fail("SaslAuthenticate without a SASL handshake in progress");
            return new AuthenticateOutcome(Errors.ILLEGAL_SASL_STATE,
                    "Unexpected SaslAuthenticate request: no SASL handshake is in progress", new byte[0], 0);
        }
        byte[] challenge;
        try {
            challenge = mechanism.evaluateResponse(clientToken);
        } catch (SaslAuthenticationException e) {
            fail(e.getMessage());
            return new AuthenticateOutcome(Errors.SASL_AUTHENTICATION_FAILED, e.getMessage(), new byte[0], 0);
        }
        if (!mechanism.isComplete()) {
            return new AuthenticateOutcome(Errors.NONE, null, challenge == null ? new byte[0] : challenge, 0);
        }
        String failure = complete();
        if (failure != null) {
            return new AuthenticateOutcome(Errors.SASL_AUTHENTICATION_FAILED, failure, new byte[0], 0);
        }
        return new AuthenticateOutcome(Errors.NONE, null, challenge == null ? new byte[0] : challenge, reauthMs);
    }

    /**
     * One token of the legacy flow.
     *
     * @return the server token to send back size-prefixed, or null to send nothing
     * @throws SaslAuthenticationException when authentication failed (the connection closes, no answer)
     */
    public byte[] legacyToken(byte[] clientToken) throws SaslAuthenticationException {
        try {
            byte[] challenge = mechanism.evaluateResponse(clientToken);
            if (mechanism.isComplete()) {
                String failure = complete();
                if (failure != null) {
                    throw new SaslAuthenticationException(failure);
                }
            }
            return challenge;
        } catch (SaslAuthenticationException e) {
            fail(e.getMessage());
            throw e;
        }
    }

    /** Null on success, else the failure (the state is then FAILED). */
    private String complete() {
        KafkaPrincipal principal = mechanism.principal();
        if (reauthenticating != null && !reauthenticating.equals(principal)) {
            fail("Cannot change principals during re-authentication from " + reauthenticating + " to " + principal);
            return "Cannot change principals during re-authentication from " + reauthenticating + " to " + principal;
        }
        session.authenticated(principal);
        everAuthenticated = true;
        authenticatedMechanism = mechanism.mechanismName();
        expiresAtNanos = reauthMs > 0 ? nonZero(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(reauthMs)) : 0;
        mechanism = null;
        reauthenticating = null;
        state = State.AUTHENTICATED;
        return null;
    }

    private static long nonZero(long nanos) {
        return nanos == 0 ? 1 : nanos;
    }
}

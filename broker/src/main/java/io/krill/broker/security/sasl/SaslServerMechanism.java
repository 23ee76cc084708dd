package io.krill.broker.security.sasl;

import io.krill.broker.security.KafkaPrincipal;

/**
 * The server side of one SASL exchange (one mechanism, one connection, one authentication). The
 * transport feeds it each client token, from SaslAuthenticate or from the legacy unframed flow, and
 * sends back what it returns.
 *
 * <p>Not thread-safe: confined to the connection's request thread.
 */
public interface SaslServerMechanism {
    /** The mechanism name as clients send it in SaslHandshake: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512. */
    String mechanismName();

    /**
     * Consumes one client token and returns the challenge or final server message (possibly empty).
     *
     * @throws SaslAuthenticationException when the client failed to authenticate; its message is what the
     *                                     client sees (Kafka's wording: "Authentication failed: ...")
     */
    byte[] evaluateResponse(byte[] clientToken) throws SaslAuthenticationException;

    /** True once the exchange succeeded; {@link #principal()} is then set. */
    boolean isComplete();

    /** The authenticated principal (User:name); only after {@link #isComplete()}. */
    KafkaPrincipal principal();
}

package io.krill.broker.security.sasl;

/**
 * The client side of one SASL exchange, for this broker's own connections to other brokers (the
 * inter-broker listener). The transport sends {@link #initialResponse()} in the first SaslAuthenticate,
 * then each server reply goes to {@link #evaluateChallenge} until {@link #isComplete()}.
 *
 * <p>Not thread-safe: one exchange on one connection.
 */
public interface SaslClientMechanism {
    /** The mechanism name to send in SaslHandshake. */
    String mechanismName();

    /** The first client message. */
    byte[] initialResponse() throws SaslAuthenticationException;

    /**
     * Consumes one server message and returns the next client message, or null when there is none to
     * send (the exchange is then complete).
     *
     * @throws SaslAuthenticationException when the server's message is malformed or fails verification
     */
    byte[] evaluateChallenge(byte[] serverMessage) throws SaslAuthenticationException;

    /** True once the server's final message was verified (PLAIN: once the initial response was made). */
    boolean isComplete();
}

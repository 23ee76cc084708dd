package io.krill.broker.security.sasl;

import java.nio.charset.StandardCharsets;

/**
 * The client side of SASL/PLAIN: a single message {@code NUL username NUL password} (no authzid). The
 * server's empty reply, if passed to {@link #evaluateChallenge}, is accepted.
 *
 * <p>Not thread-safe: one exchange on one connection.
 */
public final class PlainClientMechanism implements SaslClientMechanism {
    private final String username;
    private final String password;
    private boolean sent;

    public PlainClientMechanism(String username, String password) {
        this.username = username;
        this.password = password;
    }

    @Override
    public String mechanismName() {
        return PlainServerMechanism.MECHANISM;
    }

    @Override
    public byte[] initialResponse() {
        sent = true;
        return ("\u0000" + username + "\u0000" + password).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public byte[] evaluateChallenge(byte[] serverMessage) throws SaslAuthenticationException {
        if (!sent) {
            throw new SaslAuthenticationException("SASL/PLAIN: server message before the initial response");
        }
        if (serverMessage != null && serverMessage.length > 0) {
            throw new SaslAuthenticationException("SASL/PLAIN: unexpected server message");
        }
        return null;
    }

    @Override
    public boolean isComplete() {
        return sent;
    }

    @Override
    public String toString() {
        return "PlainClientMechanism(" + username + ")";
    }
}

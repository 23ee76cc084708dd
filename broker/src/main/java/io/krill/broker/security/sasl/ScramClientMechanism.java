package io.krill.broker.security.sasl;

import io.krill.broker.security.scram.ScramFormatter;
import io.krill.broker.security.scram.ScramMechanism;
import io.krill.broker.security.scram.ScramMessages;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;

/**
 * The client side of SCRAM-SHA-256/512: sends client-first, answers server-first with the proof, and
 * verifies the server's signature in server-final (so a server that does not know the credential is not
 * trusted). No authzid, no channel binding ({@code n,,}).
 *
 * <p>Not thread-safe: one exchange on one connection.
 */
public final class ScramClientMechanism implements SaslClientMechanism {
    private enum State { SEND_CLIENT_FIRST, RECEIVE_SERVER_FIRST, RECEIVE_SERVER_FINAL, COMPLETE, FAILED }

    private static final String GS2_HEADER = "n,,";

    private final ScramMechanism mechanism;
    private final ScramFormatter formatter;
    private final String username;
    private final String password;
    private final String clientNonce;
    private State state = State.SEND_CLIENT_FIRST;
    private String clientFirstBare;
    private byte[] expectedServerSignature;

    public ScramClientMechanism(ScramMechanism mechanism, String username, String password) {
        this(mechanism, username, password, ScramFormatter.nonce());
    }

    /** With a given client nonce: for tests against fixed vectors. */
    ScramClientMechanism(ScramMechanism mechanism, String username, String password, String clientNonce) {
        this.mechanism = mechanism;
        this.formatter = new ScramFormatter(mechanism);
        this.username = username;
        this.password = password;
        this.clientNonce = clientNonce;
    }

    @Override
    public String mechanismName() {
        return mechanism.mechanismName();
    }

    @Override
    public byte[] initialResponse() throws SaslAuthenticationException {
        if (state != State.SEND_CLIENT_FIRST) {
            throw new SaslAuthenticationException("SASL/" + mechanism + ": the initial response was already sent");
        }
        String message = ScramMessages.ClientFirst.format(username, clientNonce);
        clientFirstBare = message.substring(GS2_HEADER.length());
        state = State.RECEIVE_SERVER_FIRST;
        return message.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public byte[] evaluateChallenge(byte[] serverMessage) throws SaslAuthenticationException {
        String message = new String(serverMessage, StandardCharsets.UTF_8);
        try {
            switch (state) {
                case RECEIVE_SERVER_FIRST -> {
                    return serverFirst(message);
                }
                case RECEIVE_SERVER_FINAL -> {
                    serverFinal(message);
                    return null;
                }
                default -> throw new SaslAuthenticationException("SASL/" + mechanism + ": unexpected server message "
                        + "in state " + state);
            }
        } catch (SaslAuthenticationException e) {
            state = State.FAILED;
            throw e;
        } catch (IllegalArgumentException e) {
            state = State.FAILED;
            throw new SaslAuthenticationException("SASL/" + mechanism + ": invalid server message: " + e.getMessage());
        }
    }

    private byte[] serverFirst(String message) throws SaslAuthenticationException {
        ScramMessages.ServerFirst serverFirst = ScramMessages.ServerFirst.parse(message);
        if (!serverFirst.nonce().startsWith(clientNonce) || serverFirst.nonce().length() == clientNonce.length()) {
            throw new SaslAuthenticationException("SASL/" + mechanism + ": the server nonce does not extend ours");
        }
        if (serverFirst.iterations() < mechanism.minIterations()) {
            throw new SaslAuthenticationException("SASL/" + mechanism + ": the server asked for "
                    + serverFirst.iterations() + " iterations, fewer than the minimum " + mechanism.minIterations());
        }
        byte[] saltedPassword = formatter.saltedPassword(password, serverFirst.salt(), serverFirst.iterations());
        String withoutProof = ScramMessages.ClientFinal.withoutProof(GS2_HEADER, serverFirst.nonce());
        byte[] authMessage = ScramFormatter.authMessage(clientFirstBare, message, withoutProof);
        byte[] proof = formatter.clientProof(saltedPassword, authMessage);
        expectedServerSignature = formatter.serverSignature(formatter.serverKey(saltedPassword), authMessage);
        state = State.RECEIVE_SERVER_FINAL;
        return (withoutProof + ",p=" + Base64.getEncoder().encodeToString(proof))
                .getBytes(StandardCharsets.UTF_8);
    }

    private void serverFinal(String message) throws SaslAuthenticationException {
        ScramMessages.ServerFinal serverFinal = ScramMessages.ServerFinal.parse(message);
        if (serverFinal.error() != null) {
            throw new SaslAuthenticationException("SASL/" + mechanism + ": the server refused: " + serverFinal.error());
        }
        if (!MessageDigest.isEqual(serverFinal.serverSignature(), expectedServerSignature)) {
            throw new SaslAuthenticationException("SASL/" + mechanism + ": invalid server signature");
        }
        state = State.COMPLETE;
    }

    @Override
    public boolean isComplete() {
        return state == State.COMPLETE;
    }

    @Override
    public String toString() {
        return "ScramClientMechanism(" + mechanism + ", " + username + ")";
    }
}

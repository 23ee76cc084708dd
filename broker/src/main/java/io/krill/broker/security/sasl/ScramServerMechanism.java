package io.krill.broker.security.sasl;

import io.krill.broker.security.KafkaPrincipal;
import io.krill.broker.security.scram.ScramCredential;
import io.krill.broker.security.scram.ScramFormatter;
import io.krill.broker.security.scram.ScramMechanism;
import io.krill.broker.security.scram.ScramMessages;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server side of SCRAM-SHA-256/512 (RFC 5802, RFC 7677) with Kafka's behaviour (KIP-84): client-first,
 * server-first (combined nonce, salt, iterations), client-final (channel binding must echo the GS2 header,
 * nonce must match, proof verified against StoredKey), server-final ({@code v=} ServerSignature).
 *
 * <p>Every credential or protocol failure answers the same generic message Kafka's broker sends
 * ("Authentication failed during authentication due to invalid credentials with SASL mechanism ..."); the
 * reason is logged at DEBUG. An unknown user gets a server-first message with a salt derived from the name
 * and a per-process secret and fails only after the client-final message, so the exchange does not tell
 * whether the user exists. Only a different authzid and delegation-token requests ({@code tokenauth=true},
 * not supported) get specific messages, as in Kafka.
 *
 * <p>Not thread-safe: one exchange on one connection (see {@link SaslServerMechanism}).
 */
public final class ScramServerMechanism implements SaslServerMechanism {
    private static final Logger LOG = LoggerFactory.getLogger(ScramServerMechanism.class);
    /** Key of the salts made up for unknown users: stable for a process, unknown to clients. */
    private static final byte[] FAKE_SALT_KEY = ScramFormatter.randomBytes(32);

    private enum State { RECEIVE_CLIENT_FIRST, RECEIVE_CLIENT_FINAL, COMPLETE, FAILED }

    private final ScramMechanism mechanism;
    private final ScramFormatter formatter;
    private final Function<String, Optional<ScramCredential>> credentials;
    private final Supplier<String> serverNonces;
    private State state = State.RECEIVE_CLIENT_FIRST;
    private ScramMessages.ClientFirst clientFirst;
    private ScramMessages.ServerFirst serverFirst;
    /** Null for an unknown user: the exchange then fails at client-final. */
    private ScramCredential credential;
    private KafkaPrincipal principal;

    /**
     * @param credentials the stored credential of a user for {@code mechanism}, empty if the user has none;
     *                    called once, on the client-first message
     */
    public ScramServerMechanism(ScramMechanism mechanism, Function<String, Optional<ScramCredential>> credentials) {
        this(mechanism, credentials, ScramFormatter::nonce);
    }

    /** With a given source of server nonces: for tests against fixed vectors. */
    ScramServerMechanism(ScramMechanism mechanism, Function<String, Optional<ScramCredential>> credentials,
                         Supplier<String> serverNonces) {
        this.mechanism = mechanism;
        this.formatter = new ScramFormatter(mechanism);
        this.credentials = credentials;
        this.serverNonces = serverNonces;
    }

    /** What the client is told on any credential or protocol failure (Kafka's wording). */
    public static String invalidCredentialsMessage(ScramMechanism mechanism) {
        return "Authentication failed during authentication due to invalid credentials with SASL mechanism "
                + mechanism.mechanismName();
    }

    @Override
    public String mechanismName() {
        return mechanism.mechanismName();
    }

    @Override
    public byte[] evaluateResponse(byte[] clientToken) throws SaslAuthenticationException {
        try {
            return switch (state) {
                case RECEIVE_CLIENT_FIRST -> clientFirst(new String(clientToken, StandardCharsets.UTF_8));
                case RECEIVE_CLIENT_FINAL -> clientFinal(new String(clientToken, StandardCharsets.UTF_8));
                case COMPLETE, FAILED -> throw fail("unexpected message in state " + state);
            };
        } catch (SaslAuthenticationException e) {
            state = State.FAILED;
            credential = null;
            throw e;
        }
    }

    private byte[] clientFirst(String message) throws SaslAuthenticationException {
        try {
            clientFirst = ScramMessages.ClientFirst.parse(message);
        } catch (IllegalArgumentException e) {
            throw fail("invalid client-first-message: " + e.getMessage());
        }
        String username = clientFirst.username();
        if ("true".equalsIgnoreCase(clientFirst.extensions().get("tokenauth"))) {
            throw new SaslAuthenticationException(
                    "Authentication failed: delegation token authentication is not supported by this broker");
        }
        if (!clientFirst.authzid().isEmpty() && !clientFirst.authzid().equals(username)) {
            throw new SaslAuthenticationException(
                    "Authentication failed: Client requested an authorization id that is different from username");
        }
        credential = credentials.apply(username).orElse(null);
        byte[] salt;
        int iterations;
        if (credential != null && credential.iterations() >= mechanism.minIterations()) {
            salt = credential.salt();
            iterations = credential.iterations();
        } else {
            if (credential != null) {
                LOG.warn("The {} credential of user {} has {} iterations, fewer than the minimum {}: refusing it",
                        mechanism, username, credential.iterations(), mechanism.minIterations());
                credential = null;
            }
            salt = Arrays.copyOf(formatter.hmac(FAKE_SALT_KEY,
                    (mechanism.mechanismName() + "/" + username).getBytes(StandardCharsets.UTF_8)), 32);
            iterations = mechanism.minIterations();
        }
        serverFirst = ScramMessages.ServerFirst.create(clientFirst.nonce() + serverNonces.get(), salt, iterations);
        state = State.RECEIVE_CLIENT_FINAL;
        return serverFirst.message().getBytes(StandardCharsets.UTF_8);
    }

    private byte[] clientFinal(String message) throws SaslAuthenticationException {
        ScramMessages.ClientFinal clientFinal;
        try {
            clientFinal = ScramMessages.ClientFinal.parse(message);
        } catch (IllegalArgumentException e) {
            throw fail("invalid client-final-message: " + e.getMessage());
        }
        if (!MessageDigest.isEqual(clientFinal.channelBinding(),
                clientFirst.gs2Header().getBytes(StandardCharsets.UTF_8))) {
            throw fail("the channel binding (c=) does not match the GS2 header");
        }
        if (!clientFinal.nonce().equals(serverFirst.nonce())) {
            throw fail("invalid nonce in the client-final-message");
        }
        byte[] authMessage = ScramFormatter.authMessage(clientFirst.bare(), serverFirst.message(),
                clientFinal.withoutProof());
        if (credential == null) {
            // Same work as for a known user, against a key no proof can match.
            formatter.verifyClientProof(ScramFormatter.randomBytes(formatter.hashLength()), authMessage,
                    clientFinal.proof());
            throw fail("unknown user or no " + mechanism + " credential");
        }
        if (!formatter.verifyClientProof(credential.storedKey(), authMessage, clientFinal.proof())) {
            throw fail("invalid client proof");
        }
        byte[] serverSignature = formatter.serverSignature(credential.serverKey(), authMessage);
        principal = KafkaPrincipal.user(clientFirst.username());
        credential = null;
        state = State.COMPLETE;
        return ScramMessages.ServerFinal.format(serverSignature).getBytes(StandardCharsets.UTF_8);
    }

    private SaslAuthenticationException fail(String reason) {
        LOG.debug("SASL/{} authentication failed: {}", mechanism, reason);
        return new SaslAuthenticationException(invalidCredentialsMessage(mechanism));
    }

    @Override
    public boolean isComplete() {
        return state == State.COMPLETE;
    }

    @Override
    public KafkaPrincipal principal() {
        if (principal == null) {
            throw new IllegalStateException("SASL/" + mechanism + " authentication is not complete");
        }
        return principal;
    }
}

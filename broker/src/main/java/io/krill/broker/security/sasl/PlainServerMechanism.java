package io.krill.broker.security.sasl;

import io.krill.broker.security.KafkaPrincipal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * SASL/PLAIN (RFC 4616) against the static users of the listener's JAAS config ({@code user_<name>="<password>"}
 * options of PlainLoginModule, as Kafka's default PLAIN callback handler). One client message
 * {@code [authzid] NUL authcid NUL passwd}; the authzid must be empty or the authcid. Error messages are
 * Kafka's and never say whether the user exists.
 *
 * <p>Not thread-safe: one exchange on one connection (see {@link SaslServerMechanism}).
 */
public final class PlainServerMechanism implements SaslServerMechanism {
    public static final String MECHANISM = "PLAIN";
    static final String INVALID_CREDENTIALS = "Authentication failed: Invalid username or password";
    /** Compared against when the user is unknown, so both paths do the same work. */
    private static final byte[] NO_PASSWORD = new byte[32];

    private final Map<String, String> users;
    private KafkaPrincipal principal;

    /** @param users the server's users: name to password (an immutable snapshot is fine; it is only read) */
    public PlainServerMechanism(Map<String, String> users) {
        this.users = users;
    }

    /** The {@code user_<name>} options of every PlainLoginModule entry of {@code jaas}. */
    public static Map<String, String> users(JaasConfig jaas) {
        Map<String, String> users = new HashMap<>();
        for (JaasConfig.LoginModule module : jaas.modules()) {
            if (module.className().equals(JaasConfig.PLAIN_LOGIN_MODULE)) {
                module.options().forEach((k, v) -> {
                    if (k.startsWith("user_") && k.length() > "user_".length()) {
                        users.putIfAbsent(k.substring("user_".length()), v);
                    }
                });
            }
        }
        return Map.copyOf(users);
    }

    @Override
    public String mechanismName() {
        return MECHANISM;
    }

    @Override
    public byte[] evaluateResponse(byte[] clientToken) throws SaslAuthenticationException {
        if (principal != null) {
            throw new SaslAuthenticationException("Authentication failed: SASL/PLAIN exchange already complete");
        }
        List<String> tokens = split(new String(clientToken, StandardCharsets.UTF_8));
        if (tokens.size() != 3) {
            throw new SaslAuthenticationException("Invalid SASL/PLAIN response: expected 3 tokens, got "
                    + tokens.size());
        }
        String authzid = tokens.get(0);
        String username = tokens.get(1);
        String password = tokens.get(2);
        if (username.isEmpty()) {
            throw new SaslAuthenticationException("Authentication failed: username not specified");
        }
        if (password.isEmpty()) {
            throw new SaslAuthenticationException("Authentication failed: password not specified");
        }
        String expected = users.get(username);
        boolean match = MessageDigest.isEqual(password.getBytes(StandardCharsets.UTF_8),
                expected == null ? NO_PASSWORD : expected.getBytes(StandardCharsets.UTF_8));
        if (expected == null || !match) {
            throw new SaslAuthenticationException(INVALID_CREDENTIALS);
        }
        if (!authzid.isEmpty() && !authzid.equals(username)) {
            throw new SaslAuthenticationException(
                    "Authentication failed: Client requested an authorization id that is different from username");
        }
        principal = KafkaPrincipal.user(username);
        return new byte[0];
    }

    /** Splits on NUL keeping empty fields ("a\0\0" is three tokens). */
    private static List<String> split(String message) {
        List<String> tokens = new ArrayList<>(3);
        int start = 0;
        for (int i = 0; i < message.length() && tokens.size() <= 3; i++) {
            if (message.charAt(i) == '\u0000') {
                tokens.add(message.substring(start, i));
                start = i + 1;
            }
        }
        tokens.add(message.substring(start));
        return tokens;
    }

    @Override
    public boolean isComplete() {
        return principal != null;
    }

    @Override
    public KafkaPrincipal principal() {
        if (principal == null) {
            throw new IllegalStateException("SASL/PLAIN authentication is not complete");
        }
        return principal;
    }
}

package io.krill.broker.console;

import io.krill.broker.config.SecurityProtocol;
import io.krill.broker.security.KafkaPrincipal;
import io.krill.broker.security.authorizer.Authorizer;
import io.krill.broker.security.sasl.PlainServerMechanism;
import io.krill.broker.security.sasl.SaslAuthenticationException;
import io.krill.broker.security.sasl.SaslMechanisms;
import io.krill.broker.security.scram.ScramCredential;
import io.krill.broker.security.scram.ScramCredentials;
import io.krill.broker.security.scram.ScramFormatter;
import io.krill.broker.security.scram.ScramMechanism;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Who a console request is. On a console listener without SASL, everyone is {@code User:ANONYMOUS}. On a
 * SASL listener the request needs HTTP Basic credentials, checked as that listener checks passwords: for
 * PLAIN against the users of its JAAS config (through {@link PlainServerMechanism} itself), for
 * SCRAM-SHA-256/512 by deriving the StoredKey from the password with the stored credential's salt and
 * iterations and comparing it in constant time. A SCRAM check costs thousands of HMACs, so a success is
 * remembered for {@value #REMEMBER_MS} ms per user as a digest of the password and the credential's salt
 * (a changed credential or password misses it); at most {@value #MAX_REMEMBERED} users.
 *
 * <p>Thread-safety: thread-safe; the remembered checks sit in a concurrent map.
 */
final class ConsoleAuthenticator {
    static final long REMEMBER_MS = 60_000;
    static final int MAX_REMEMBERED = 1_000;

    private record Remembered(String mechanism, byte[] digest, long expiresAtNanos) {
    }

    private final boolean sasl;
    private final String listener;
    private final SaslMechanisms mechanisms;
    private final ScramCredentials scram;
    private final Authorizer authorizer;
    private final Map<String, Remembered> remembered = new ConcurrentHashMap<>();

    /**
     * @param authorizer the broker's authorizer, or null when authorization is off
     */
    ConsoleAuthenticator(SecurityProtocol protocol, String listener, SaslMechanisms mechanisms,
                         ScramCredentials scram, Authorizer authorizer) {
        this.sasl = protocol == SecurityProtocol.SASL_PLAINTEXT || protocol == SecurityProtocol.SASL_SSL;
        this.listener = listener;
        this.mechanisms = mechanisms;
        this.scram = scram;
        this.authorizer = authorizer;
    }

    /**
     * The access of a request with {@code authorization} (its header, or null) from {@code address}.
     *
     * @throws ConsoleException 401 when credentials are needed and missing or wrong
     */
    ConsoleAccess authenticate(String authorization, InetAddress address) {
        if (!sasl) {
            return ConsoleAccess.anonymous(authorizer, address);
        }
        BasicCredentials credentials = BasicCredentials.parse(authorization);
        if (credentials == null) {
            throw new ConsoleException(401, "SASL_AUTHENTICATION_FAILED", "credentials needed (HTTP Basic)");
        }
        if (!check(credentials)) {
            throw new ConsoleException(401, "SASL_AUTHENTICATION_FAILED",
                    "Authentication failed: Invalid username or password");
        }
        return new ConsoleAccess(KafkaPrincipal.user(credentials.user()), true, address, authorizer);
    }

    private boolean check(BasicCredentials credentials) {
        if (credentials.password().isEmpty()) {
            return false;
        }
        for (String mechanism : mechanisms.enabled(listener)) {
            if (mechanism.equals(PlainServerMechanism.MECHANISM)) {
                if (plain(credentials)) {
                    return true;
                }
                continue;
            }
            Optional<ScramMechanism> scramMechanism = ScramMechanism.forName(mechanism);
            if (scramMechanism.isPresent()) {
                Optional<ScramCredential> stored = scram.lookup(credentials.user(), scramMechanism.get());
                if (stored.isPresent() && scram(credentials, scramMechanism.get(), stored.get())) {
                    return true;
                }
            }
        }
        return false;
    }

    private boolean plain(BasicCredentials credentials) {
        byte[] token = ("\u0000" + credentials.user() + "\u0000" + credentials.password())
                .getBytes(StandardCharsets.UTF_8);
        try {
            mechanisms.create(listener, PlainServerMechanism.MECHANISM).evaluateResponse(token);
            return true;
        } catch (SaslAuthenticationException e) {
            return false;
        }
    }

    private boolean scram(BasicCredentials credentials, ScramMechanism mechanism, ScramCredential stored) {
        byte[] digest = digest(stored.salt(), credentials.password());
        Remembered earlier = remembered.get(credentials.user());
        if (earlier != null && earlier.mechanism().equals(mechanism.mechanismName())
                && System.nanoTime() - earlier.expiresAtNanos() < 0 && MessageDigest.isEqual(earlier.digest(), digest)) {
            return true;
        }
        boolean match = matches(mechanism, stored, credentials.password());
        if (match) {
            if (remembered.size() >= MAX_REMEMBERED) {
                remembered.clear();
            }
            remembered.put(credentials.user(), new Remembered(mechanism.mechanismName(), digest,
                    System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(REMEMBER_MS)));
        }
        return match;
    }

    /** Whether {@code password} gives the stored credential's StoredKey (RFC 5802), compared in constant time. */
    static boolean matches(ScramMechanism mechanism, ScramCredential stored, String password) {
        ScramFormatter formatter = new ScramFormatter(mechanism);
        byte[] salted = formatter.saltedPassword(password, stored.salt(), stored.iterations());
        byte[] storedKey = formatter.storedKey(formatter.clientKey(salted));
        return MessageDigest.isEqual(storedKey, stored.storedKey());
    }

    private static byte[] digest(byte[] salt, String password) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(salt);
            sha.update(password.getBytes(StandardCharsets.UTF_8));
            return sha.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}

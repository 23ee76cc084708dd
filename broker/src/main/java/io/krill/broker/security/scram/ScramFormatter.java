package io.krill.broker.security.scram;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The SCRAM functions of RFC 5802 section 2.2 and 3 for one mechanism: Hi(), HMAC(), H(), the client and
 * server keys, proofs and signatures. JDK only. Passwords are taken as UTF-8 bytes without SASLprep, as
 * Kafka does.
 *
 * <p>Thread-safe: stateless; every call gets its own Mac and MessageDigest.
 */
public final class ScramFormatter {
    private static final SecureRandom RANDOM = new SecureRandom();

    private final ScramMechanism mechanism;

    public ScramFormatter(ScramMechanism mechanism) {
        this.mechanism = mechanism;
    }

    public ScramMechanism mechanism() {
        return mechanism;
    }

    /** HMAC(key, data). */
    public byte[] hmac(byte[] key, byte[] data) {
        try {
            Mac mac = Mac.getInstance(mechanism.macAlgorithm());
            mac.init(new SecretKeySpec(key, mechanism.macAlgorithm()));
            return mac.doFinal(data);
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException(mechanism.macAlgorithm() + " is unavailable", e);
        }
    }

    /** H(data). */
    public byte[] hash(byte[] data) {
        try {
            return MessageDigest.getInstance(mechanism.hashAlgorithm()).digest(data);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(mechanism.hashAlgorithm() + " is unavailable", e);
        }
    }

    /** The hash length in bytes: the length of keys, proofs and signatures. */
    public int hashLength() {
        return mechanism == ScramMechanism.SCRAM_SHA_256 ? 32 : 64;
    }

    /**
     * Hi(str, salt, i) of RFC 5802: PBKDF2 with HMAC as the PRF and one block of output. {@code str} must not
     * be empty (an HMAC key cannot be).
     */
    public byte[] hi(byte[] str, byte[] salt, int iterations) {
        if (iterations < 1) {
            throw new IllegalArgumentException("iterations must be positive");
        }
        try {
            Mac mac = Mac.getInstance(mechanism.macAlgorithm());
            mac.init(new SecretKeySpec(str, mechanism.macAlgorithm()));
            mac.update(salt);
            byte[] u = mac.doFinal(new byte[] {0, 0, 0, 1});
            byte[] result = u.clone();
            for (int i = 1; i < iterations; i++) {
                u = mac.doFinal(u);
                xorInPlace(result, u);
            }
            return result;
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException(mechanism.macAlgorithm() + " is unavailable", e);
        }
    }

    /** SaltedPassword := Hi(Normalize(password), salt, i). */
    public byte[] saltedPassword(String password, byte[] salt, int iterations) {
        if (password.isEmpty()) {
            throw new IllegalArgumentException("the password must not be empty");
        }
        return hi(password.getBytes(StandardCharsets.UTF_8), salt, iterations);
    }

    /** ClientKey := HMAC(SaltedPassword, "Client Key"). */
    public byte[] clientKey(byte[] saltedPassword) {
        return hmac(saltedPassword, "Client Key".getBytes(StandardCharsets.US_ASCII));
    }

    /** ServerKey := HMAC(SaltedPassword, "Server Key"). */
    public byte[] serverKey(byte[] saltedPassword) {
        return hmac(saltedPassword, "Server Key".getBytes(StandardCharsets.US_ASCII));
    }

    /** StoredKey := H(ClientKey). */
    public byte[] storedKey(byte[] clientKey) {
        return hash(clientKey);
    }

    /** AuthMessage := client-first-message-bare + "," + server-first-message + "," + client-final-message-without-proof. */
    public static byte[] authMessage(String clientFirstBare, String serverFirst, String clientFinalWithoutProof) {
        return (clientFirstBare + "," + serverFirst + "," + clientFinalWithoutProof).getBytes(StandardCharsets.UTF_8);
    }

    /** ClientSignature := HMAC(StoredKey, AuthMessage). */
    public byte[] clientSignature(byte[] storedKey, byte[] authMessage) {
        return hmac(storedKey, authMessage);
    }

    /** ClientProof := ClientKey XOR ClientSignature. */
    public byte[] clientProof(byte[] saltedPassword, byte[] authMessage) {
        byte[] clientKey = clientKey(saltedPassword);
        byte[] proof = clientSignature(storedKey(clientKey), authMessage);
        xorInPlace(proof, clientKey);
        return proof;
    }

    /** ServerSignature := HMAC(ServerKey, AuthMessage). */
    public byte[] serverSignature(byte[] serverKey, byte[] authMessage) {
        return hmac(serverKey, authMessage);
    }

    /**
     * True if {@code proof} proves knowledge of the ClientKey whose hash is {@code storedKey}: H(proof XOR
     * ClientSignature) == StoredKey, compared in constant time.
     */
    public boolean verifyClientProof(byte[] storedKey, byte[] authMessage, byte[] proof) {
        byte[] signature = clientSignature(storedKey, authMessage);
        if (proof.length != signature.length) {
            return false;
        }
        xorInPlace(signature, proof);
        return MessageDigest.isEqual(hash(signature), storedKey);
    }

    /** The stored credential for a salted password, as AlterUserScramCredentials derives it. */
    public ScramCredential credential(byte[] salt, byte[] saltedPassword, int iterations) {
        return new ScramCredential(salt, storedKey(clientKey(saltedPassword)), serverKey(saltedPassword), iterations);
    }

    /** The stored credential for a password, with a fresh random salt. */
    public ScramCredential credential(String password, int iterations) {
        byte[] salt = randomBytes(32);
        return credential(salt, saltedPassword(password, salt, iterations), iterations);
    }

    /** A fresh nonce: printable, without ',' (base64 of 24 random bytes). */
    public static String nonce() {
        return Base64.getEncoder().encodeToString(randomBytes(24));
    }

    public static byte[] randomBytes(int length) {
        byte[] bytes = new byte[length];
        RANDOM.nextBytes(bytes);
        return bytes;
    }

    private static void xorInPlace(byte[] target, byte[] other) {
        for (int i = 0; i < target.length; i++) {
            target[i] ^= other[i];
        }
    }
}

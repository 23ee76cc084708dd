package io.krill.broker.security.scram;

import java.util.Optional;

/**
 * The SCRAM mechanisms Krill implements, with Kafka's wire type (AlterUserScramCredentials' mechanism
 * byte), hash, HMAC and minimum iteration count (KIP-84: 4096 for both). Immutable.
 */
public enum ScramMechanism {
    SCRAM_SHA_256("SCRAM-SHA-256", (byte) 1, "SHA-256", "HmacSHA256"),
    SCRAM_SHA_512("SCRAM-SHA-512", (byte) 2, "SHA-512", "HmacSHA512");

    /** Kafka's minimum iteration count for both mechanisms. */
    public static final int MIN_ITERATIONS = 4096;
    /** The largest iteration count AlterUserScramCredentials accepts (Kafka's limit). */
    public static final int MAX_ITERATIONS = 16384;

    private final String mechanismName;
    private final byte type;
    private final String hashAlgorithm;
    private final String macAlgorithm;

    ScramMechanism(String mechanismName, byte type, String hashAlgorithm, String macAlgorithm) {
        this.mechanismName = mechanismName;
        this.type = type;
        this.hashAlgorithm = hashAlgorithm;
        this.macAlgorithm = macAlgorithm;
    }

    /** The SASL name, also the key of the credential in the user's entity configs. */
    public String mechanismName() {
        return mechanismName;
    }

    /** Kafka's wire type: 1 for SCRAM-SHA-256, 2 for SCRAM-SHA-512 (0 is UNKNOWN). */
    public byte type() {
        return type;
    }

    public String hashAlgorithm() {
        return hashAlgorithm;
    }

    public String macAlgorithm() {
        return macAlgorithm;
    }

    public int minIterations() {
        return MIN_ITERATIONS;
    }

    public static Optional<ScramMechanism> forName(String name) {
        for (ScramMechanism m : values()) {
            if (m.mechanismName.equals(name)) {
                return Optional.of(m);
            }
        }
        return Optional.empty();
    }

    public static Optional<ScramMechanism> forType(byte type) {
        for (ScramMechanism m : values()) {
            if (m.type == type) {
                return Optional.of(m);
            }
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return mechanismName;
    }
}

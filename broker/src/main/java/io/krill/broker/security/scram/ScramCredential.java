package io.krill.broker.security.scram;

import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;

/**
 * One user's stored SCRAM credential for one mechanism (RFC 5802: salt, StoredKey, ServerKey, iteration
 * count; never the password). Stored in the user's entity configs under the mechanism name, in Kafka's
 * ZooKeeper format {@code salt=<b64>,stored_key=<b64>,server_key=<b64>,iterations=<n>}. Immutable: the
 * arrays are copied in and out.
 */
public final class ScramCredential {
    private final byte[] salt;
    private final byte[] storedKey;
    private final byte[] serverKey;
    private final int iterations;

    public ScramCredential(byte[] salt, byte[] storedKey, byte[] serverKey, int iterations) {
        this.salt = salt.clone();
        this.storedKey = storedKey.clone();
        this.serverKey = serverKey.clone();
        this.iterations = iterations;
    }

    public byte[] salt() {
        return salt.clone();
    }

    public byte[] storedKey() {
        return storedKey.clone();
    }

    public byte[] serverKey() {
        return serverKey.clone();
    }

    public int iterations() {
        return iterations;
    }

    /** Kafka's ZooKeeper format: {@code salt=...,stored_key=...,server_key=...,iterations=...}. */
    public String toConfigValue() {
        Base64.Encoder b64 = Base64.getEncoder();
        return "salt=" + b64.encodeToString(salt) + ",stored_key=" + b64.encodeToString(storedKey)
                + ",server_key=" + b64.encodeToString(serverKey) + ",iterations=" + iterations;
    }

    /**
     * Parses Kafka's ZooKeeper format.
     *
     * @throws IllegalArgumentException if a field is missing or malformed (the message names no value)
     */
    public static ScramCredential parse(String value) {
        Map<String, String> fields = new HashMap<>();
        for (String field : value.split(",")) {
            int eq = field.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("malformed SCRAM credential: a field has no name");
            }
            fields.put(field.substring(0, eq).trim(), field.substring(eq + 1).trim());
        }
        try {
            Base64.Decoder b64 = Base64.getDecoder();
            return new ScramCredential(b64.decode(required(fields, "salt")), b64.decode(required(fields, "stored_key")),
                    b64.decode(required(fields, "server_key")), Integer.parseInt(required(fields, "iterations")));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("malformed SCRAM credential: " + e.getMessage().split(":")[0], e);
        }
    }

    private static String required(Map<String, String> fields, String name) {
        String value = fields.get(name);
        if (value == null) {
            throw new IllegalArgumentException("missing " + name);
        }
        return value;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ScramCredential c && iterations == c.iterations && Arrays.equals(salt, c.salt)
                && Arrays.equals(storedKey, c.storedKey) && Arrays.equals(serverKey, c.serverKey);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(storedKey);
    }

    /** Names no key material. */
    @Override
    public String toString() {
        return "ScramCredential(iterations=" + iterations + ")";
    }
}

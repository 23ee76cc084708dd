package io.krill.broker.security.scram;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Parsing and formatting of the four SCRAM messages (RFC 5802 section 7) as Kafka exchanges them. A parse
 * failure is an {@link IllegalArgumentException} whose message names the rule broken, never a value.
 *
 * <p>Thread-safe: stateless; the message records are immutable.
 */
public final class ScramMessages {
    private ScramMessages() {
    }

    /**
     * {@code gs2-header client-first-message-bare}: {@code n,[a=authzid],n=user,r=nonce[,ext=value]...}.
     *
     * @param gs2Header  the header as sent ({@code n,,} or {@code y,,} or with an authzid), echoed in c=
     * @param authzid    the decoded authorization id, empty if absent
     * @param username   the decoded user name
     * @param extensions Kafka's SCRAM extensions (KIP-368/KIP-48 {@code tokenauth=true}), in order
     * @param bare       client-first-message-bare, part of AuthMessage
     */
    public record ClientFirst(String gs2Header, String authzid, String username, String nonce,
                              Map<String, String> extensions, String bare) {
        public static ClientFirst parse(String message) {
            if (message.startsWith("p=")) {
                throw new IllegalArgumentException("channel binding (p=) is not supported");
            }
            if (!message.startsWith("n,") && !message.startsWith("y,")) {
                throw new IllegalArgumentException("the GS2 header must start with n or y");
            }
            int authzEnd = message.indexOf(',', 2);
            if (authzEnd < 0) {
                throw new IllegalArgumentException("the GS2 header is not terminated");
            }
            String authzPart = message.substring(2, authzEnd);
            String authzid = "";
            if (!authzPart.isEmpty()) {
                if (!authzPart.startsWith("a=")) {
                    throw new IllegalArgumentException("malformed authzid in the GS2 header");
                }
                authzid = decodeSaslName(authzPart.substring(2));
            }
            String gs2Header = message.substring(0, authzEnd + 1);
            String bare = message.substring(authzEnd + 1);
            String[] fields = bare.split(",", -1);
            if (fields.length < 2) {
                throw new IllegalArgumentException("client-first-message needs n= and r=");
            }
            if (fields[0].startsWith("m=")) {
                throw new IllegalArgumentException("mandatory extensions (m=) are not supported");
            }
            String username = decodeSaslName(attribute(fields[0], 'n'));
            if (username.isEmpty()) {
                throw new IllegalArgumentException("the user name is empty");
            }
            String nonce = attribute(fields[1], 'r');
            checkNonce(nonce);
            Map<String, String> extensions = new LinkedHashMap<>();
            for (int i = 2; i < fields.length; i++) {
                int eq = fields[i].indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("malformed extension in client-first-message");
                }
                extensions.put(fields[i].substring(0, eq), fields[i].substring(eq + 1));
            }
            return new ClientFirst(gs2Header, authzid, username, nonce, Map.copyOf(extensions), bare);
        }

        /** The message a client sends: {@code n,,n=<user>,r=<nonce>}. */
        public static String format(String username, String nonce) {
            return "n,,n=" + encodeSaslName(username) + ",r=" + nonce;
        }
    }

    /** {@code r=nonce,s=salt,i=iterations}: the nonce is the client's plus the server's. */
    public record ServerFirst(String nonce, byte[] salt, int iterations, String message) {
        public static ServerFirst create(String nonce, byte[] salt, int iterations) {
            return new ServerFirst(nonce, salt, iterations, "r=" + nonce + ",s="
                    + Base64.getEncoder().encodeToString(salt) + ",i=" + iterations);
        }

        public static ServerFirst parse(String message) {
            String[] fields = message.split(",", -1);
            if (fields.length < 3) {
                throw new IllegalArgumentException("server-first-message needs r=, s= and i=");
            }
            if (fields[0].startsWith("m=")) {
                throw new IllegalArgumentException("mandatory extensions (m=) are not supported");
            }
            String nonce = attribute(fields[0], 'r');
            checkNonce(nonce);
            byte[] salt = base64(attribute(fields[1], 's'), "salt");
            int iterations;
            try {
                iterations = Integer.parseInt(attribute(fields[2], 'i'));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("the iteration count is not a number");
            }
            if (iterations < 1) {
                throw new IllegalArgumentException("the iteration count is not positive");
            }
            return new ServerFirst(nonce, salt, iterations, message);
        }
    }

    /**
     * {@code c=channel-binding,r=nonce[,ext]...,p=proof}.
     *
     * @param withoutProof client-final-message-without-proof, part of AuthMessage
     */
    public record ClientFinal(byte[] channelBinding, String nonce, byte[] proof, String withoutProof) {
        public static ClientFinal parse(String message) {
            int proofAt = message.lastIndexOf(",p=");
            if (proofAt < 0) {
                throw new IllegalArgumentException("client-final-message has no proof (p=)");
            }
            String withoutProof = message.substring(0, proofAt);
            byte[] proof = base64(message.substring(proofAt + 3), "proof");
            String[] fields = withoutProof.split(",", -1);
            if (fields.length < 2) {
                throw new IllegalArgumentException("client-final-message needs c= and r=");
            }
            byte[] channelBinding = base64(attribute(fields[0], 'c'), "channel binding");
            String nonce = attribute(fields[1], 'r');
            return new ClientFinal(channelBinding, nonce, proof, withoutProof);
        }

        /** client-final-message-without-proof for a GS2 header and the combined nonce. */
        public static String withoutProof(String gs2Header, String nonce) {
            return "c=" + Base64.getEncoder().encodeToString(gs2Header.getBytes(StandardCharsets.UTF_8))
                    + ",r=" + nonce;
        }
    }

    /** {@code v=signature} or {@code e=error}. */
    public record ServerFinal(byte[] serverSignature, String error) {
        public static String format(byte[] serverSignature) {
            return "v=" + Base64.getEncoder().encodeToString(serverSignature);
        }

        public static ServerFinal parse(String message) {
            String first = message.split(",", -1)[0];
            if (first.startsWith("e=")) {
                return new ServerFinal(null, first.substring(2));
            }
            return new ServerFinal(base64(attribute(first, 'v'), "server signature"), null);
        }
    }

    /** Decodes a saslname: '=2C' is ',', '=3D' is '='; any other '=' is an error (RFC 5802 section 5.1). */
    public static String decodeSaslName(String name) {
        StringBuilder result = new StringBuilder(name.length());
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == ',') {
                throw new IllegalArgumentException("unescaped ',' in a user name");
            }
            if (c == '=') {
                if (name.startsWith("=2C", i)) {
                    result.append(',');
                } else if (name.startsWith("=3D", i)) {
                    result.append('=');
                } else {
                    throw new IllegalArgumentException("invalid '=' escape in a user name");
                }
                i += 2;
            } else {
                result.append(c);
            }
        }
        return result.toString();
    }

    /** Encodes a user name as a saslname: ',' becomes '=2C' and '=' becomes '=3D'. */
    public static String encodeSaslName(String name) {
        return name.replace("=", "=3D").replace(",", "=2C");
    }

    private static String attribute(String field, char name) {
        if (field.length() < 2 || field.charAt(0) != name || field.charAt(1) != '=') {
            throw new IllegalArgumentException("expected attribute " + name + "=");
        }
        return field.substring(2);
    }

    private static void checkNonce(String nonce) {
        if (nonce.isEmpty()) {
            throw new IllegalArgumentException("the nonce is empty");
        }
        for (int i = 0; i < nonce.length(); i++) {
            char c = nonce.charAt(i);
            if (c < 0x21 || c > 0x7e || c == ',') {
                throw new IllegalArgumentException("the nonce has a non-printable character");
            }
        }
    }

    private static byte[] base64(String value, String what) {
        try {
            return Base64.getDecoder().decode(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the " + what + " is not valid base64");
        }
    }
}

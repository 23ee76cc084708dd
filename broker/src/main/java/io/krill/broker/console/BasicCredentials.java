package io.krill.broker.console;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Locale;

/**
 * HTTP Basic credentials (RFC 7617) from an {@code Authorization} header: {@code Basic base64(user:password)},
 * UTF-8. Immutable.
 */
record BasicCredentials(String user, String password) {
    /** Longer headers are refused before decoding. */
    static final int MAX_HEADER_LENGTH = 4096;

    /** The credentials of {@code header}, or null when it is absent, not Basic or malformed. */
    static BasicCredentials parse(String header) {
        if (header == null || header.length() > MAX_HEADER_LENGTH) {
            return null;
        }
        String trimmed = header.trim();
        if (trimmed.length() < 6 || !trimmed.substring(0, 6).toLowerCase(Locale.ROOT).equals("basic ")) {
            return null;
        }
        byte[] decoded;
        try {
            decoded = Base64.getDecoder().decode(trimmed.substring(6).trim());
        } catch (IllegalArgumentException e) {
            return null;
        }
        String text = new String(decoded, StandardCharsets.UTF_8);
        int colon = text.indexOf(':');
        if (colon <= 0 || text.indexOf('\u0000') >= 0) {
            return null;
        }
        return new BasicCredentials(text.substring(0, colon), text.substring(colon + 1));
    }

    @Override
    public String toString() {
        return "BasicCredentials[user=" + user + "]";
    }
}

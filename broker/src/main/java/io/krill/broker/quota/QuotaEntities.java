package io.krill.broker.quota;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Quota entities as the Kafka API names them (entity type to name, a null name meaning the default) and
 * as the metadata store keeps them: {@code users/alice}, {@code users/<default>}, {@code clients/app},
 * {@code users/alice/clients/<default>}, {@code ips/10.0.0.1}, like Kafka's {@code /config} znodes.
 *
 * <p>Names are kept as they are except for the characters that would make an entity ambiguous: '%' and
 * '/' are percent-escaped, and a name that is literally {@code <default>} is written
 * {@code %3Cdefault%3E}. So ordinary names ("alice", "bob@example.com") appear raw, as the SCRAM
 * credentials of the same users do. Stateless.
 */
public final class QuotaEntities {
    public static final String USER = "user";
    public static final String CLIENT_ID = "client-id";
    public static final String IP = "ip";
    public static final String DEFAULT = "<default>";

    private QuotaEntities() {
    }

    /** The store's entity name of a valid entity (user, client-id, user + client-id, or ip). */
    public static String entityName(Map<String, String> entity) {
        if (entity.containsKey(IP)) {
            return "ips/" + part(entity.get(IP));
        }
        StringBuilder name = new StringBuilder();
        if (entity.containsKey(USER)) {
            name.append("users/").append(part(entity.get(USER)));
        }
        if (entity.containsKey(CLIENT_ID)) {
            if (name.length() > 0) {
                name.append('/');
            }
            name.append("clients/").append(part(entity.get(CLIENT_ID)));
        }
        return name.toString();
    }

    /** The entity of a store entity name (type to name, null for default, user first), or null if it is no quota entity. */
    public static Map<String, String> parse(String entityName) {
        String[] parts = entityName.split("/", -1);
        Map<String, String> entity = new LinkedHashMap<>();
        if (parts.length == 2 && parts[0].equals("users")) {
            entity.put(USER, name(parts[1]));
        } else if (parts.length == 2 && parts[0].equals("clients")) {
            entity.put(CLIENT_ID, name(parts[1]));
        } else if (parts.length == 4 && parts[0].equals("users") && parts[2].equals("clients")) {
            entity.put(USER, name(parts[1]));
            entity.put(CLIENT_ID, name(parts[3]));
        } else if (parts.length == 2 && parts[0].equals("ips")) {
            entity.put(IP, name(parts[1]));
        } else {
            return null;
        }
        return entity;
    }

    /** The part of an entity name that names a user or client id ({@code <default>} for null). */
    static String part(String name) {
        if (name == null) {
            return DEFAULT;
        }
        if (name.equals(DEFAULT)) {
            return "%3Cdefault%3E";
        }
        if (name.indexOf('%') < 0 && name.indexOf('/') < 0) {
            return name;
        }
        return name.replace("%", "%25").replace("/", "%2F");
    }

    private static String name(String part) {
        if (part.equals(DEFAULT)) {
            return null;
        }
        if (part.indexOf('%') < 0) {
            return part;
        }
        byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream out = new ByteArrayOutputStream(bytes.length);
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == '%' && i + 2 < bytes.length) {
                int hi = Character.digit(bytes[i + 1], 16);
                int lo = Character.digit(bytes[i + 2], 16);
                if (hi >= 0 && lo >= 0) {
                    out.write(hi * 16 + lo);
                    i += 2;
                    continue;
                }
            }
            out.write(bytes[i]);
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}

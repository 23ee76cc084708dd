package io.krill.broker.security.scram;

import io.krill.controller.metadata.MetadataImage;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Looks SCRAM credentials up in the current metadata image: user {@code alice}'s SCRAM-SHA-256 credential is
 * the value of key {@code SCRAM-SHA-256} in entity {@code users/alice} (shared with the user's quotas, as in
 * Kafka's {@code /config/users/alice} znode). The image is already an in-memory map on every broker, so
 * there is no separate cache; a credential altered on any broker is seen once the image has it.
 *
 * <p>Thread-safe: reads an immutable image through the supplier.
 */
public final class ScramCredentials {
    private static final Logger LOG = LoggerFactory.getLogger(ScramCredentials.class);
    /** The entity type holding users' credentials and quotas. */
    public static final String USERS = "users";
    /**
     * Held on this broker while read-modify-writing a {@code users/<name>} entity, so two local changes (SCRAM
     * credentials, or quotas if their handler takes it too) do not lose each other's keys. Changes made at the
     * same moment through two different brokers can still race, as in Kafka's ZooKeeper mode.
     */
    public static final Object USER_ENTITY_LOCK = new Object();

    private final Supplier<MetadataImage> image;

    public ScramCredentials(Supplier<MetadataImage> image) {
        this.image = image;
    }

    /** The entity of the default user, which holds quotas only. */
    private static final String DEFAULT = "<default>";

    /**
     * The entity name of a user: {@code users/<name>}, the name raw except for what would make the entity
     * ambiguous, escaped as the quota entities of the same user are: '%' as {@code %25}, '/' as {@code %2F}, and a
     * name that is literally {@code <default>} as {@code %3Cdefault%3E}.
     */
    public static String entity(String user) {
        String part;
        if (user.equals(DEFAULT)) {
            part = "%3Cdefault%3E";
        } else if (user.indexOf('%') < 0 && user.indexOf('/') < 0) {
            part = user;
        } else {
            part = user.replace("%", "%25").replace("/", "%2F");
        }
        return USERS + "/" + part;
    }

    /**
     * The user named by the part after {@code users/} of an entity name, or null if that part is no single user
     * (the default user, or a user/client-id pair such as {@code alice/clients/app}).
     */
    public static String userOf(String part) {
        if (part.indexOf('/') >= 0 || part.equals(DEFAULT)) {
            return null;
        }
        if (part.indexOf('%') < 0) {
            return part;
        }
        byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream out = new ByteArrayOutputStream(bytes.length);
        for (int i = 0; i < bytes.length; i++) {
            int hi = i + 2 < bytes.length && bytes[i] == '%' ? Character.digit(bytes[i + 1], 16) : -1;
            int lo = hi >= 0 ? Character.digit(bytes[i + 2], 16) : -1;
            if (lo >= 0) {
                out.write(hi * 16 + lo);
                i += 2;
            } else {
                out.write(bytes[i]);
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    /** The user's credential for {@code mechanism}, empty if none (or if the stored value is corrupt: logged). */
    public Optional<ScramCredential> lookup(String user, ScramMechanism mechanism) {
        MetadataImage current = image.get();
        if (current == null) {
            return Optional.empty();
        }
        return credential(user, current.entityConfigs(entity(user)), mechanism);
    }

    /** The credential for {@code mechanism} in one user's entity configs. */
    public static Optional<ScramCredential> credential(String user, Map<String, String> configs,
                                                       ScramMechanism mechanism) {
        String value = configs.get(mechanism.mechanismName());
        if (value == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(ScramCredential.parse(value));
        } catch (IllegalArgumentException e) {
            LOG.warn("Ignoring the unreadable {} credential of user {}: {}", mechanism, user, e.getMessage());
            return Optional.empty();
        }
    }
}

package io.krill.broker.security;

import java.util.Objects;

/**
 * Who a connection authenticated as, in Kafka's {@code type:name} form ({@code User:alice}). ACLs,
 * quotas and super.users name principals this way. Immutable.
 */
public record KafkaPrincipal(String type, String name) {
    public static final String USER_TYPE = "User";
    /** The principal of an unauthenticated (PLAINTEXT) connection, as in Kafka. */
    public static final KafkaPrincipal ANONYMOUS = new KafkaPrincipal(USER_TYPE, "ANONYMOUS");

    public KafkaPrincipal {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(name, "name");
    }

    public static KafkaPrincipal user(String name) {
        return new KafkaPrincipal(USER_TYPE, name);
    }

    /** Parses {@code type:name} (the name may contain ':'); throws IllegalArgumentException without a type. */
    public static KafkaPrincipal parse(String text) {
        int colon = text.indexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("expected a principal of the form type:name, got " + text);
        }
        return new KafkaPrincipal(text.substring(0, colon), text.substring(colon + 1));
    }

    @Override
    public String toString() {
        return type + ":" + name;
    }
}

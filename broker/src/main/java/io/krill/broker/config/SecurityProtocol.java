package io.krill.broker.config;

import java.util.Locale;

/** Kafka's listener security protocols, with their protocol ids. */
public enum SecurityProtocol {
    PLAINTEXT(0),
    SSL(1),
    SASL_PLAINTEXT(2),
    SASL_SSL(3);

    private final int id;

    SecurityProtocol(int id) {
        this.id = id;
    }

    public int id() {
        return id;
    }

    /** Case-insensitive lookup, as Kafka's {@code SecurityProtocol.forName}. @throws IllegalArgumentException */
    public static SecurityProtocol forName(String name) {
        return valueOf(name.trim().toUpperCase(Locale.ROOT));
    }
}

package io.krill.broker.api.handlers;

/**
 * The resource types of the config APIs (Kafka's {@code ConfigResource.Type}) with their wire ids.
 */
enum ConfigResourceType {
    UNKNOWN(0),
    TOPIC(2),
    BROKER(4),
    BROKER_LOGGER(8),
    CLIENT_METRICS(16),
    GROUP(32);

    private final byte id;

    ConfigResourceType(int id) {
        this.id = (byte) id;
    }

    byte id() {
        return id;
    }

    /** The type with wire id {@code id}; UNKNOWN for any other id, as Kafka's {@code forId}. */
    static ConfigResourceType forId(byte id) {
        for (ConfigResourceType type : values()) {
            if (type.id == id) {
                return type;
            }
        }
        return UNKNOWN;
    }
}

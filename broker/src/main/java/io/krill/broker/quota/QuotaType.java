package io.krill.broker.quota;

/**
 * The client quotas Krill enforces, each named by its config key (KIP-13 byte rates, KIP-124 request
 * time). Every type is resolved and measured on its own: a client may have a produce quota from one
 * entity and a fetch quota from another.
 */
public enum QuotaType {
    /** Bytes of produce requests per second. */
    PRODUCE("producer_byte_rate"),
    /** Bytes of fetch responses per second. */
    FETCH("consumer_byte_rate"),
    /** Percentage of one request thread's time (100 = one thread, fully). */
    REQUEST("request_percentage");

    private final String configKey;

    QuotaType(String configKey) {
        this.configKey = configKey;
    }

    public String configKey() {
        return configKey;
    }
}

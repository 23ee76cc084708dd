package io.krill.broker.config;

/** How much an operator should care about a key (documentation only, as in Kafka). */
public enum Importance {
    HIGH,
    MEDIUM,
    LOW
}

package io.krill.controller.metadata;

import java.util.Map;
import java.util.Objects;

/**
 * A live broker as clients see it: its node id, rack and advertised endpoints by listener name.
 * Immutable.
 */
public record BrokerInfo(int nodeId, String rack, Map<String, Endpoint> endpoints) {

    /** One advertised listener: where clients of that listener connect. */
    public record Endpoint(String listenerName, String host, int port) {
        public Endpoint {
            Objects.requireNonNull(listenerName);
            Objects.requireNonNull(host);
        }
    }

    public BrokerInfo {
        endpoints = Map.copyOf(endpoints);
    }

    /** The endpoint of {@code listenerName}, or null when this broker does not have that listener. */
    public Endpoint endpoint(String listenerName) {
        return endpoints.get(listenerName);
    }
}

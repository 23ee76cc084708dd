package io.krill.broker.api;

import io.krill.wire.message.ApiKeys;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The one table of which handler serves which API key. What is registered here is exactly what
 * ApiVersions advertises. Immutable after construction; thread-safe.
 */
public final class ApiHandlerRegistry {
    private final Map<ApiKeys, ApiHandler> handlers;

    public ApiHandlerRegistry(List<ApiHandler> handlers) {
        EnumMap<ApiKeys, ApiHandler> table = new EnumMap<>(ApiKeys.class);
        for (ApiHandler handler : handlers) {
            ApiKeys key = handler.apiKey();
            if (table.put(key, handler) != null) {
                throw new IllegalArgumentException("two handlers for " + key);
            }
            if (handler.minVersion() > handler.maxVersion()) {
                throw new IllegalArgumentException(key + ": empty version range");
            }
            // The floor may sit below the schema's (Produce v0-2 are advertised for librdkafka, then
            // refused); the ceiling may not pass it: those versions cannot be decoded.
            if (handler.maxVersion() > key.highestVersion()) {
                throw new IllegalArgumentException(key + ": v" + handler.maxVersion() + " is beyond the schema");
            }
        }
        this.handlers = Collections.unmodifiableMap(table);
    }

    /** The handler of {@code api}, or null when Krill does not serve it. */
    public ApiHandler handler(ApiKeys api) {
        return api == null ? null : handlers.get(api);
    }

    /** Every served API, in key order. */
    public Collection<ApiHandler> handlers() {
        return handlers.values();
    }
}

package io.krill.controller.cluster;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.helix.HelixManager;

/**
 * Hands each store's {@link ElectionInputs} to the rebalancer instances Helix creates by reflection
 * (no constructor arguments) for the controller of that store's manager. Keyed by manager identity,
 * so several stores in one JVM (tests) do not mix.
 *
 * <p>Thread-safe.
 */
final class ElectionRegistry {
    private static final Map<HelixManager, ElectionInputs> INPUTS = new ConcurrentHashMap<>();

    private ElectionRegistry() {
    }

    static void register(HelixManager manager, ElectionInputs inputs) {
        INPUTS.put(manager, inputs);
    }

    static void unregister(HelixManager manager) {
        INPUTS.remove(manager);
    }

    static ElectionInputs lookup(HelixManager manager) {
        return manager == null ? null : INPUTS.get(manager);
    }
}

package io.krill.broker.config;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Kafka keys that are valid in a Kafka server.properties but mean nothing to Krill, mainly KRaft's: Krill keeps
 * cluster metadata in ZooKeeper (Helix), so a Kafka 4 configuration can be used unchanged and these keys are
 * reported apart from unknown (probably misspelt) keys. Share-group keys ({@code group.share.*},
 * {@code share.coordinator.*}) are Krill's own keys now: every one of Kafka 4.4 is defined but Kafka's plug-in class
 * names, so another key under those prefixes is misspelt and reported as unknown. Stateless.
 */
public final class NotApplicableKeys {
    static final String KRAFT = "KRaft only; Krill coordinates through ZooKeeper";
    static final String SHARE_PLUGINS = "Kafka's internal share-group plug-ins; Krill keeps share state with its own "
            + "share coordinator and has no dead-letter queue manager";

    /** Class names of Kafka's internal share-group plug-in interfaces, which Krill cannot load. */
    private static final Set<String> SHARE_PLUGIN_KEYS = Set.of("group.share.persister.class.name",
            "group.share.dlq.manager.class.name");

    private static final Set<String> KRAFT_KEYS = Set.of(
            "process.roles", "controller.listener.names", "metadata.log.dir", "broker.heartbeat.interval.ms",
            "broker.session.timeout.ms", "initial.broker.registration.timeout.ms",
            "sasl.mechanism.controller.protocol", "early.start.listeners", "eligible.leader.replicas.enable",
            "log.dir.failure.timeout.ms");
    private static final List<String> KRAFT_PREFIXES = List.of(
            "controller.quorum.", "metadata.log.", "metadata.max.", "controller.performance.");

    private NotApplicableKeys() {
    }

    /** Why {@code key} does not apply to Krill, or empty if it is not one of these keys. */
    public static Optional<String> reason(String key) {
        if (KRAFT_KEYS.contains(key) || KRAFT_PREFIXES.stream().anyMatch(key::startsWith)) {
            return Optional.of(KRAFT);
        }
        if (SHARE_PLUGIN_KEYS.contains(key)) {
            return Optional.of(SHARE_PLUGINS);
        }
        return Optional.empty();
    }
}

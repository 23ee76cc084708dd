package io.krill.compat.differential;

import io.krill.compat.KrillBrokerExtension;
import io.krill.compat.support.BrokerApis;
import java.time.Duration;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A Kafka 4.4 node and a Krill node started side by side, and the request versions both serve. Kafka starts
 * in its own JVM while Krill starts in-process; if either fails to start, both are stopped. The pairs of
 * {@link DifferentialNodes} and {@link SecureNodes} are each one of these, differing only in configuration.
 *
 * <p>Thread-safety: started and closed by one thread (JUnit's); immutable in between.
 */
final class NodePair {
    private static final Duration KAFKA_START_TIMEOUT = Duration.ofSeconds(120);

    final KafkaKraftProcess kafka;
    final KrillBrokerExtension krill;
    final RequestVersions versions;

    private NodePair(KafkaKraftProcess kafka, KrillBrokerExtension krill, RequestVersions versions) {
        this.kafka = kafka;
        this.krill = krill;
        this.versions = versions;
    }

    /**
     * A Krill broker configured as {@link KafkaKraftProcess} configures Kafka where it matters to a single
     * node (its coordinator topics of one partition and one replica, no initial rebalance delay).
     */
    static KrillBrokerExtension singleNodeKrill() {
        return new KrillBrokerExtension()
                .with("offsets.topic.replication.factor", "1")
                .with("offsets.topic.num.partitions", "1")
                .with("transaction.state.log.replication.factor", "1")
                .with("transaction.state.log.min.isr", "1")
                .with("transaction.state.log.num.partitions", "1")
                .with("share.coordinator.state.topic.replication.factor", "1")
                .with("share.coordinator.state.topic.min.isr", "1")
                .with("share.coordinator.state.topic.num.partitions", "1")
                .with("group.initial.rebalance.delay.ms", "0")
                .with("log.retention.ms", "-1");
    }

    /** Starts both, waits until Kafka serves, and negotiates the versions compared; {@code what} names the pair. */
    static NodePair start(ExtensionContext root, KafkaKraftProcess kafka, KrillBrokerExtension krill, String what) {
        try {
            kafka.beforeAll(root);
            krill.beforeAll(root);
            kafka.awaitReady(KAFKA_START_TIMEOUT);
            RequestVersions versions = RequestVersions.negotiate(BrokerApis.probe(kafka.host(), kafka.port()),
                    krill.apis());
            return new NodePair(kafka, krill, versions);
        } catch (Throwable t) {
            stop(kafka, krill);
            throw t instanceof RuntimeException r ? r : new IllegalStateException(what + " did not start", t);
        }
    }

    /** Adds both brokers' recent logs to a failed test's throwable. */
    void attachLogs(ExtensionContext context, Throwable throwable) {
        try {
            kafka.handleTestExecutionException(context, throwable);
        } catch (Throwable same) {
            // the same throwable, now carrying Kafka's log
        }
        try {
            krill.handleTestExecutionException(context, throwable);
        } catch (Throwable same) {
            // the same throwable, now carrying Krill's log
        }
    }

    void stop() {
        stop(kafka, krill);
    }

    private static void stop(KafkaKraftProcess kafka, KrillBrokerExtension krill) {
        try {
            krill.afterAll(null);
        } finally {
            kafka.afterAll(null);
        }
    }
}

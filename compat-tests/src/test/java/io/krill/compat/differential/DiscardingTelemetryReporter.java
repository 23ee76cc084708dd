package io.krill.compat.differential;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.MetricsReporter;
import org.apache.kafka.server.telemetry.ClientTelemetryContext;
import org.apache.kafka.server.telemetry.ClientTelemetryExporter;
import org.apache.kafka.server.telemetry.ClientTelemetryExporterProvider;
import org.apache.kafka.server.telemetry.ClientTelemetryPayload;

/**
 * A metrics reporter for the reference Kafka node that receives client telemetry and drops it: Kafka 4.4
 * serves GetTelemetrySubscriptions and PushTelemetry (KIP-714) only when a reporter of
 * {@code metric.reporters} exports client metrics, and Krill serves them built in. Loaded in Kafka's JVM
 * only ({@link KafkaKraftProcess} copies this class to its class path), so it must stay one top-level
 * class without lambdas or nested classes.
 *
 * <p>Thread-safe: stateless.
 */
public final class DiscardingTelemetryReporter implements MetricsReporter, ClientTelemetryExporterProvider,
        ClientTelemetryExporter {
    /** The broker keys that install it. */
    static final Map<String, String> CONFIG = Map.of("metric.reporters", DiscardingTelemetryReporter.class.getName());

    @Override
    public ClientTelemetryExporter clientTelemetryExporter() {
        return this;
    }

    @Override
    public void exportMetrics(ClientTelemetryContext context, ClientTelemetryPayload payload) {
        // dropped: the comparison is about the protocol, not about what a plugin does with the metrics
    }

    @Override
    public void init(List<KafkaMetric> metrics) {
    }

    @Override
    public void metricChange(KafkaMetric metric) {
    }

    @Override
    public void metricRemoval(KafkaMetric metric) {
    }

    @Override
    public void close() {
    }

    @Override
    public void configure(Map<String, ?> configs) {
    }
}

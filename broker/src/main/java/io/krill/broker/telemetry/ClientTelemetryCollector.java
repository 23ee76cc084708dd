package io.krill.broker.telemetry;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.PrometheusNaming;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The pushed client metrics on /metrics: each series of each live client instance becomes a data point of the
 * metric named after the OTLP metric (characters other than letters, digits, {@code _} and {@code :} become
 * {@code _}, so {@code org.apache.kafka.producer.record.send.rate} is {@code org_apache_kafka_producer_record_send_rate}),
 * labelled {@code client_instance_id}, {@code client_id}, {@code client_software_name},
 * {@code client_software_version} and then the point's attributes (sanitized; one that repeats a label is left
 * out). Gauges and non-monotonic sums are gauges, monotonic sums counters ({@code _total}), histograms classic
 * histograms. A gauge whose name ends in a suffix Prometheus reserves ({@code _total}, {@code _bucket}, ...) gets
 * {@code _value} appended. A name used by two kinds keeps the first kind seen. Also reports
 * {@code krill_client_telemetry_instances}, {@code krill_client_telemetry_series} and
 * {@code krill_client_telemetry_series_dropped_total}.
 *
 * <p>Thread-safe: each scrape reads copies of the instances' series.
 */
public final class ClientTelemetryCollector implements MultiCollector {
    private static final String[] CLIENT_LABELS = {ClientMetricsConfigs.CLIENT_INSTANCE_ID,
        ClientMetricsConfigs.CLIENT_ID, ClientMetricsConfigs.CLIENT_SOFTWARE_NAME,
        ClientMetricsConfigs.CLIENT_SOFTWARE_VERSION};
    private static final String[] RESERVED = {"_total", "_created", "_bucket", "_info"};

    private final ClientMetricsManager manager;

    public ClientTelemetryCollector(ClientMetricsManager manager) {
        this.manager = manager;
    }

    private static final class Family {
        final OtlpMetricsDecoder.Kind kind;
        final String help;
        final Map<Labels, ClientInstance.SeriesValue> points = new LinkedHashMap<>();

        Family(OtlpMetricsDecoder.Kind kind, String help) {
            this.kind = kind;
            this.help = help;
        }
    }

    @Override
    public MetricSnapshots collect() {
        Map<String, Family> families = new LinkedHashMap<>();
        var instances = manager.instances();
        for (ClientInstance instance : instances) {
            for (Map.Entry<ClientInstance.SeriesKey, ClientInstance.SeriesValue> series : instance.series().entrySet()) {
                ClientInstance.SeriesKey key = series.getKey();
                String name = metricName(key.metric(), key.kind());
                Family family = families.computeIfAbsent(name,
                        n -> new Family(key.kind(), "Client metric " + key.metric() + " pushed by clients (KIP-714)"));
                if (family.kind != key.kind()) {
                    continue;
                }
                family.points.putIfAbsent(labels(instance, key.attributes()), series.getValue());
            }
        }
        List<MetricSnapshot> snapshots = new ArrayList<>();
        families.forEach((name, family) -> {
            try {
                snapshots.add(snapshot(name, family));
            } catch (IllegalArgumentException e) {
                // a name or label the model refuses: that metric is left out of this scrape
            }
        });
        snapshots.add(GaugeSnapshot.builder().name("krill_client_telemetry_instances")
                .help("Client instances (KIP-714) this broker keeps")
                .dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().value(instances.size()).build()).build());
        snapshots.add(GaugeSnapshot.builder().name("krill_client_telemetry_series")
                .help("Series of pushed client metrics this broker keeps (krill.client.telemetry.max.series at most)")
                .dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().value(manager.seriesCount()).build()).build());
        snapshots.add(CounterSnapshot.builder().name("krill_client_telemetry_series_dropped")
                .help("Points of new client metric series dropped at krill.client.telemetry.max.series")
                .dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().value(manager.seriesDropped()).build())
                .build());
        return new MetricSnapshots(snapshots);
    }

    private static MetricSnapshot snapshot(String name, Family family) {
        switch (family.kind) {
            case COUNTER -> {
                CounterSnapshot.Builder b = CounterSnapshot.builder().name(name).help(family.help);
                family.points.forEach((labels, v) -> b.dataPoint(
                        CounterSnapshot.CounterDataPointSnapshot.builder().labels(labels).value(Math.max(0, v.value()))
                                .build()));
                return b.build();
            }
            case HISTOGRAM -> {
                HistogramSnapshot.Builder b = HistogramSnapshot.builder().name(name).help(family.help);
                family.points.forEach((labels, v) -> b.dataPoint(histogramPoint(labels, v.histogram())));
                return b.build();
            }
            default -> {
                GaugeSnapshot.Builder b = GaugeSnapshot.builder().name(name).help(family.help);
                family.points.forEach((labels, v) -> b.dataPoint(
                        GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(labels).value(v.value()).build()));
                return b.build();
            }
        }
    }

    private static HistogramSnapshot.HistogramDataPointSnapshot histogramPoint(Labels labels,
                                                                               OtlpMetricsDecoder.Histogram h) {
        double[] bounds = new double[h.bounds().length + 1];
        System.arraycopy(h.bounds(), 0, bounds, 0, h.bounds().length);
        bounds[bounds.length - 1] = Double.POSITIVE_INFINITY;
        long[] counts = new long[bounds.length];
        if (h.bucketCounts().length == counts.length) {
            System.arraycopy(h.bucketCounts(), 0, counts, 0, counts.length);
        } else {
            counts[counts.length - 1] = h.count();
        }
        HistogramSnapshot.HistogramDataPointSnapshot.Builder b = HistogramSnapshot.HistogramDataPointSnapshot.builder()
                .labels(labels).classicHistogramBuckets(ClassicHistogramBuckets.of(bounds, counts));
        b.sum(h.sum());
        return b.build();
    }

    /** The Prometheus name of an OTLP metric of {@code kind}. */
    static String metricName(String otlpName, OtlpMetricsDecoder.Kind kind) {
        StringBuilder sb = new StringBuilder(otlpName.length());
        for (int i = 0; i < otlpName.length(); i++) {
            char c = otlpName.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':'
                    || (c >= '0' && c <= '9' && i > 0);
            sb.append(ok ? c : '_');
        }
        String name = sb.toString();
        if (kind == OtlpMetricsDecoder.Kind.COUNTER) {
            return name.endsWith("_total") ? name.substring(0, name.length() - "_total".length()) : name;
        }
        for (String suffix : RESERVED) {
            if (name.endsWith(suffix)) {
                return name + "_value";
            }
        }
        return name;
    }

    private static Labels labels(ClientInstance instance, Map<String, String> attributes) {
        List<String> names = new ArrayList<>();
        List<String> values = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (String label : CLIENT_LABELS) {
            names.add(label);
            values.add(instance.attributes.getOrDefault(label, ""));
            seen.add(label);
        }
        attributes.forEach((k, v) -> {
            String label = PrometheusNaming.sanitizeLabelName(k);
            if (label.startsWith("__")) {
                label = "attr" + label;
            }
            if (seen.add(label)) {
                names.add(label);
                values.add(v);
            }
        });
        return Labels.of(names, values);
    }
}

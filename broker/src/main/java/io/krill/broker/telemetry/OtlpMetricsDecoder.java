package io.krill.broker.telemetry;

import static io.krill.broker.telemetry.ProtoReader.FIXED64;
import static io.krill.broker.telemetry.ProtoReader.LENGTH_DELIMITED;
import static io.krill.broker.telemetry.ProtoReader.VARINT;
import static io.krill.broker.telemetry.ProtoReader.expect;
import static io.krill.broker.telemetry.ProtoReader.field;
import static io.krill.broker.telemetry.ProtoReader.wireType;

import io.krill.broker.telemetry.ProtoReader.MalformedProtoException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Reads an OpenTelemetry {@code MetricsData} (opentelemetry-proto's {@code metrics/v1/metrics.proto}, the
 * payload of PushTelemetry) and hands each data point of its gauges, sums and histograms to a consumer, with the
 * attributes of its resource and its own (the point's win). Exponential histograms and summaries, which Kafka's
 * clients do not send, are skipped, as are exemplars and unknown fields.
 *
 * <p>Hand-written over {@link ProtoReader} rather than opentelemetry-proto's generated classes: the subset read
 * here is a dozen fields of eight messages, while the library would bring protobuf-java (about 2 MB, with
 * generated code tied to runtime versions) into the broker for it. Bounds: {@link #MAX_POINTS} points per payload,
 * {@link #MAX_ATTRIBUTES} attributes per point, {@link #MAX_BUCKETS} buckets per histogram point; past any of
 * them, or on malformed bytes, {@link MalformedProtoException}. Stateless.
 */
final class OtlpMetricsDecoder {
    static final int MAX_POINTS = 100_000;
    static final int MAX_ATTRIBUTES = 128;
    static final int MAX_BUCKETS = 1_024;

    /** Sum and histogram temporality (AggregationTemporality): 1 delta, 2 cumulative. */
    private static final int DELTA = 1;

    enum Kind { GAUGE, COUNTER, HISTOGRAM }

    /** A histogram point: count, sum, the explicit upper bounds and per-bucket (not cumulative) counts. */
    record Histogram(long count, double sum, double[] bounds, long[] bucketCounts) {
    }

    /**
     * One data point: a gauge (or non-monotonic sum) value, a monotonic sum's value (delta or cumulative), or a
     * histogram.
     */
    record Point(String metric, Kind kind, boolean delta, Map<String, String> attributes, double value,
                 Histogram histogram) {
    }

    private OtlpMetricsDecoder() {
    }

    /** Decodes {@code data} fully; the consumer sees points as they are read. */
    static void decode(byte[] data, Consumer<Point> points) {
        int[] count = {0};
        ProtoReader metricsData = new ProtoReader(data, 0, data.length);
        while (metricsData.hasMore()) {
            int tag = metricsData.tag();
            if (field(tag) == 1) {
                expect(tag, LENGTH_DELIMITED);
                resourceMetrics(metricsData.message(), points, count);
            } else {
                metricsData.skip(wireType(tag));
            }
        }
    }

    private static void resourceMetrics(ProtoReader in, Consumer<Point> points, int[] count) {
        Map<String, String> resource = new TreeMap<>();
        List<ProtoReader> scopes = new ArrayList<>();
        while (in.hasMore()) {
            int tag = in.tag();
            switch (field(tag)) {
                case 1 -> {
                    expect(tag, LENGTH_DELIMITED);
                    ProtoReader r = in.message();
                    while (r.hasMore()) {
                        int t = r.tag();
                        if (field(t) == 1) {
                            expect(t, LENGTH_DELIMITED);
                            keyValue(r.message(), resource);
                        } else {
                            r.skip(wireType(t));
                        }
                    }
                }
                case 2 -> {
                    expect(tag, LENGTH_DELIMITED);
                    scopes.add(in.message());
                }
                default -> in.skip(wireType(tag));
            }
        }
        for (ProtoReader scope : scopes) {
            while (scope.hasMore()) {
                int tag = scope.tag();
                if (field(tag) == 2) {
                    expect(tag, LENGTH_DELIMITED);
                    metric(scope.message(), resource, points, count);
                } else {
                    scope.skip(wireType(tag));
                }
            }
        }
    }

    private static void metric(ProtoReader in, Map<String, String> resource, Consumer<Point> points, int[] count) {
        String name = null;
        List<int[]> kinds = new ArrayList<>();
        List<ProtoReader> bodies = new ArrayList<>();
        while (in.hasMore()) {
            int tag = in.tag();
            switch (field(tag)) {
                case 1 -> {
                    expect(tag, LENGTH_DELIMITED);
                    name = in.string();
                }
                case 5, 7, 9 -> {
                    expect(tag, LENGTH_DELIMITED);
                    kinds.add(new int[] {field(tag)});
                    bodies.add(in.message());
                }
                default -> in.skip(wireType(tag));
            }
        }
        if (name == null || name.isEmpty()) {
            throw new MalformedProtoException("metric without a name");
        }
        for (int i = 0; i < bodies.size(); i++) {
            switch (kinds.get(i)[0]) {
                case 5 -> numberPoints(name, bodies.get(i), false, resource, points, count);
                case 7 -> numberPoints(name, bodies.get(i), true, resource, points, count);
                default -> histogramPoints(name, bodies.get(i), resource, points, count);
            }
        }
    }

    /**
     * The body of a Gauge, Sum or Histogram: its data points (field 1, read later), the aggregation
     * temporality (2; Sum and Histogram) and whether it is monotonic (3; Sum only).
     */
    private record MetricBody(List<ProtoReader> dataPoints, int temporality, boolean monotonic) {
        static MetricBody read(ProtoReader in) {
            List<ProtoReader> dataPoints = new ArrayList<>();
            int temporality = 0;
            boolean monotonic = false;
            while (in.hasMore()) {
                int tag = in.tag();
                switch (field(tag)) {
                    case 1 -> {
                        expect(tag, LENGTH_DELIMITED);
                        dataPoints.add(in.message());
                    }
                    case 2 -> {
                        expect(tag, VARINT);
                        temporality = (int) in.varint();
                    }
                    case 3 -> {
                        expect(tag, VARINT);
                        monotonic = in.varint() != 0;
                    }
                    default -> in.skip(wireType(tag));
                }
            }
            return new MetricBody(dataPoints, temporality, monotonic);
        }
    }

    /** A Gauge (field 1: points) or a Sum (1: points, 2: temporality, 3: monotonic). */
    private static void numberPoints(String name, ProtoReader in, boolean sum, Map<String, String> resource,
                                     Consumer<Point> points, int[] count) {
        MetricBody body = MetricBody.read(in);
        Kind kind = sum && body.monotonic() ? Kind.COUNTER : Kind.GAUGE;
        boolean delta = sum && body.temporality() == DELTA;
        for (ProtoReader p : body.dataPoints()) {
            Map<String, String> attributes = new TreeMap<>(resource);
            double value = 0;
            while (p.hasMore()) {
                int tag = p.tag();
                switch (field(tag)) {
                    case 4 -> { // as_double
                        expect(tag, FIXED64);
                        value = p.doubleValue();
                    }
                    case 6 -> { // as_int (sfixed64)
                        expect(tag, FIXED64);
                        value = p.fixed64();
                    }
                    case 7 -> {
                        expect(tag, LENGTH_DELIMITED);
                        keyValue(p.message(), attributes);
                    }
                    default -> p.skip(wireType(tag));
                }
            }
            emit(points, count, new Point(name, kind, delta, bounded(attributes), value, null));
        }
    }

    /** A Histogram (1: points, 2: temporality) of HistogramDataPoints. */
    private static void histogramPoints(String name, ProtoReader in, Map<String, String> resource,
                                        Consumer<Point> points, int[] count) {
        MetricBody body = MetricBody.read(in);
        int temporality = body.temporality();
        for (ProtoReader p : body.dataPoints()) {
            Map<String, String> attributes = new TreeMap<>(resource);
            long total = 0;
            double sum = 0;
            List<Long> buckets = new ArrayList<>();
            List<Double> bounds = new ArrayList<>();
            while (p.hasMore()) {
                int tag = p.tag();
                switch (field(tag)) {
                    case 4 -> {
                        expect(tag, FIXED64);
                        total = p.fixed64();
                    }
                    case 5 -> {
                        expect(tag, FIXED64);
                        sum = p.doubleValue();
                    }
                    case 6, 7 -> {
                        boolean isBucket = field(tag) == 6;
                        if (wireType(tag) == LENGTH_DELIMITED) {
                            ProtoReader packed = p.message();
                            while (packed.hasMore()) {
                                addBounded(isBucket, packed.fixed64(), buckets, bounds);
                            }
                        } else {
                            expect(tag, FIXED64);
                            addBounded(isBucket, p.fixed64(), buckets, bounds);
                        }
                    }
                    case 9 -> {
                        expect(tag, LENGTH_DELIMITED);
                        keyValue(p.message(), attributes);
                    }
                    default -> p.skip(wireType(tag));
                }
            }
            if (!buckets.isEmpty() && buckets.size() != bounds.size() + 1) {
                throw new MalformedProtoException("histogram " + name + ": " + buckets.size() + " buckets for "
                        + bounds.size() + " bounds");
            }
            double[] b = bounds.stream().mapToDouble(Double::doubleValue).toArray();
            long[] c = buckets.stream().mapToLong(Long::longValue).toArray();
            emit(points, count, new Point(name, Kind.HISTOGRAM, temporality == DELTA, bounded(attributes), 0,
                    new Histogram(total, sum, b, c)));
        }
    }

    private static void addBounded(boolean bucket, long raw, List<Long> buckets, List<Double> bounds) {
        if (buckets.size() + bounds.size() >= 2 * MAX_BUCKETS) {
            throw new MalformedProtoException("more than " + MAX_BUCKETS + " histogram buckets");
        }
        if (bucket) {
            buckets.add(raw);
        } else {
            bounds.add(Double.longBitsToDouble(raw));
        }
    }

    /** A KeyValue (1: key, 2: AnyValue); scalar values become strings, others are skipped. */
    private static void keyValue(ProtoReader in, Map<String, String> into) {
        String key = null;
        String value = null;
        while (in.hasMore()) {
            int tag = in.tag();
            switch (field(tag)) {
                case 1 -> {
                    expect(tag, LENGTH_DELIMITED);
                    key = in.string();
                }
                case 2 -> {
                    expect(tag, LENGTH_DELIMITED);
                    value = anyValue(in.message());
                }
                default -> in.skip(wireType(tag));
            }
        }
        if (key != null && value != null) {
            into.put(key, value);
            if (into.size() > MAX_ATTRIBUTES) {
                throw new MalformedProtoException("more than " + MAX_ATTRIBUTES + " attributes");
            }
        }
    }

    private static String anyValue(ProtoReader in) {
        String value = null;
        while (in.hasMore()) {
            int tag = in.tag();
            switch (field(tag)) {
                case 1 -> {
                    expect(tag, LENGTH_DELIMITED);
                    value = in.string();
                }
                case 2 -> {
                    expect(tag, VARINT);
                    value = Boolean.toString(in.varint() != 0);
                }
                case 3 -> {
                    expect(tag, VARINT);
                    value = Long.toString(in.varint());
                }
                case 4 -> {
                    expect(tag, FIXED64);
                    value = Double.toString(in.doubleValue());
                }
                default -> in.skip(wireType(tag));
            }
        }
        return value;
    }

    private static Map<String, String> bounded(Map<String, String> attributes) {
        if (attributes.size() > MAX_ATTRIBUTES) {
            throw new MalformedProtoException("more than " + MAX_ATTRIBUTES + " attributes");
        }
        return attributes;
    }

    private static void emit(Consumer<Point> points, int[] count, Point point) {
        if (++count[0] > MAX_POINTS) {
            throw new MalformedProtoException("more than " + MAX_POINTS + " data points");
        }
        points.accept(point);
    }
}

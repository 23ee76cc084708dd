package io.krill.broker.telemetry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.config.ConfigException;
import io.krill.controller.metadata.MetadataImage;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.GetTelemetrySubscriptionsResponse;
import io.krill.wire.record.CompressionType;
import io.krill.wire.record.compression.Compression;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.shaded.io.opentelemetry.proto.common.v1.InstrumentationScope;
import org.apache.kafka.shaded.io.opentelemetry.proto.common.v1.AnyValue;
import org.apache.kafka.shaded.io.opentelemetry.proto.common.v1.KeyValue;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.Gauge;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.Histogram;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.Metric;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.MetricsData;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.Sum;
import org.junit.jupiter.api.Test;

/**
 * Client telemetry on the broker: subscriptions matched and hashed as Kafka's, Kafka's push errors, OTLP payloads
 * built with opentelemetry-proto's own classes (as kafka-clients shades them) decoded and exported, expiry and
 * the series bound.
 */
class ClientMetricsManagerTest {
    private final AtomicLong now = new AtomicLong(1_000_000);
    private final Map<String, Map<String, String>> entities = new HashMap<>();
    private final AtomicReference<MetadataImage> image = new AtomicReference<>(image());
    private static final ClientMetricsManager.Client PRODUCER = client("app-1", "apache-kafka-java", "4.4.0");

    private static ClientMetricsManager.Client client(String id, String software, String version) {
        return new ClientMetricsManager.Client(id, software, version, InetAddress.getLoopbackAddress(), 50_000);
    }

    private MetadataImage image() {
        return new MetadataImage("c", 0, List.of(), List.of(), Map.copyOf(entities));
    }

    private void subscribe(String name, Map<String, String> configs) {
        entities.put(ClientMetricsConfigs.entity(name), configs);
        image.set(image());
    }

    private ClientMetricsManager manager(int maxSeries) {
        return new ClientMetricsManager(image::get, 1024 * 1024, maxSeries, now::get);
    }

    @Test
    void noMatchingSubscriptionAsksForNothingAtKafkasDefaultInterval() {
        ClientMetricsManager manager = manager(100);
        GetTelemetrySubscriptionsResponse r = manager.getSubscriptions(new UUID(0, 0), PRODUCER);
        assertEquals(0, r.errorCode());
        assertNotEquals(new UUID(0, 0), r.clientInstanceId());
        assertEquals(List.of(), r.requestedMetrics());
        assertEquals(300_000, r.pushIntervalMs());
        assertEquals(List.of((byte) 4, (byte) 3, (byte) 1, (byte) 2), r.acceptedCompressionTypes());
        assertEquals(1024 * 1024, r.telemetryMaxBytes());
        // Kafka's id for an empty subscription: CRC32C("[]300000") xor the instance id's hash
        assertEquals(ClientMetricsManager.subscriptionId(new java.util.HashSet<>(), 300_000, r.clientInstanceId()),
                r.subscriptionId());
    }

    @Test
    void subscriptionsMatchOnClientSelectorsAndTakeTheSmallestInterval() {
        subscribe("producers", Map.of("metrics", "org.apache.kafka.producer.", "interval.ms", "1000",
                "match", "client_software_name=apache-kafka-java,client_id=app-.*"));
        subscribe("slow", Map.of("metrics", "org.apache.kafka.consumer.", "interval.ms", "5000"));
        subscribe("others", Map.of("metrics", "*", "match", "client_id=other"));
        ClientMetricsManager manager = manager(100);
        GetTelemetrySubscriptionsResponse app = manager.getSubscriptions(null, PRODUCER);
        assertEquals(1000, app.pushIntervalMs());
        assertEquals(List.of("org.apache.kafka.producer.", "org.apache.kafka.consumer.").stream().sorted().toList(),
                app.requestedMetrics().stream().sorted().toList());
        GetTelemetrySubscriptionsResponse other = manager.getSubscriptions(null, client("other", "librdkafka", "2"));
        assertEquals(List.of("*"), other.requestedMetrics());
        assertEquals(5000, other.pushIntervalMs());
        GetTelemetrySubscriptionsResponse none = manager.getSubscriptions(null, client("x", "librdkafka", "2"));
        assertEquals(List.of("org.apache.kafka.consumer."), none.requestedMetrics());
    }

    @Test
    void theInstanceIdSelectorMatchesKafkasFormOfTheId() {
        UUID id = UUID.fromString("f35970a3-5dc4-4b30-ad4d-2005f42f77ec");
        assertEquals("81lwo13ESzCtTSAF9C937A", ClientMetricsManager.kafkaString(id));
        subscribe("one", Map.of("metrics", "*", "match", "client_instance_id=81lwo13ESzCtTSAF9C937A"));
        ClientMetricsManager manager = manager(100);
        assertEquals(List.of("*"), manager.getSubscriptions(id, PRODUCER).requestedMetrics());
        assertEquals(List.of(), manager.getSubscriptions(UUID.randomUUID(), PRODUCER).requestedMetrics());
    }

    @Test
    void pushErrorsAreKafkas() {
        subscribe("all", Map.of("metrics", "*", "interval.ms", "1000"));
        ClientMetricsManager manager = manager(100);
        GetTelemetrySubscriptionsResponse sub = manager.getSubscriptions(null, PRODUCER);
        UUID id = sub.clientInstanceId();
        ByteBuf payload = Unpooled.wrappedBuffer(payload().toByteArray());
        // a second Get before the interval is throttled
        assertEquals(Errors.THROTTLING_QUOTA_EXCEEDED.code(), manager.getSubscriptions(id, PRODUCER).errorCode());
        assertEquals(Errors.INVALID_REQUEST.code(),
                manager.push(new UUID(0, 0), sub.subscriptionId(), false, (byte) 0, payload, PRODUCER).errorCode());
        assertEquals(Errors.UNKNOWN_SUBSCRIPTION_ID.code(),
                manager.push(id, sub.subscriptionId() + 1, false, (byte) 0, payload, PRODUCER).errorCode());
        now.addAndGet(1000);
        assertEquals(Errors.UNSUPPORTED_COMPRESSION_TYPE.code(),
                manager.push(id, sub.subscriptionId(), false, (byte) 7, payload, PRODUCER).errorCode());
        now.addAndGet(1000);
        assertEquals(0, manager.push(id, sub.subscriptionId(), false, (byte) 0, payload, PRODUCER).errorCode());
        // too early: the interval has not passed since that push
        assertEquals(Errors.THROTTLING_QUOTA_EXCEEDED.code(),
                manager.push(id, sub.subscriptionId(), false, (byte) 0, payload, PRODUCER).errorCode());
        now.addAndGet(1000);
        assertEquals(Errors.INVALID_RECORD.code(), manager.push(id, sub.subscriptionId(), false, (byte) 0,
                Unpooled.wrappedBuffer(new byte[] {0x0a, 0x7f, 1, 2}), PRODUCER).errorCode());
        now.addAndGet(1000);
        ClientMetricsManager small = new ClientMetricsManager(image::get, 10, 100, now::get);
        GetTelemetrySubscriptionsResponse s2 = small.getSubscriptions(null, PRODUCER);
        assertEquals(Errors.TELEMETRY_TOO_LARGE.code(),
                small.push(s2.clientInstanceId(), s2.subscriptionId(), false, (byte) 0, payload, PRODUCER).errorCode());
        // a terminating push is allowed early; nothing after it is
        assertEquals(0, manager.push(id, sub.subscriptionId(), true, (byte) 0, payload, PRODUCER).errorCode());
        now.addAndGet(5000);
        assertEquals(Errors.INVALID_REQUEST.code(),
                manager.push(id, sub.subscriptionId(), false, (byte) 0, payload, PRODUCER).errorCode());
    }

    @Test
    void anInstanceIsForgottenWhenTheConnectionThatCreatedItCloses() throws IOException {
        subscribe("all", Map.of("metrics", "*", "interval.ms", "100000"));
        ClientMetricsManager manager = manager(100);
        List<Runnable> onClose = new ArrayList<>();
        ClientMetricsManager.Client connected = new ClientMetricsManager.Client("app-1", "apache-kafka-java", "4.4.0",
                InetAddress.getLoopbackAddress(), 50_000, "PLAINTEXT-1", onClose::add);
        GetTelemetrySubscriptionsResponse sub = manager.getSubscriptions(null, connected);
        UUID id = sub.clientInstanceId();
        assertEquals(0, manager.push(id, sub.subscriptionId(), false, (byte) 0,
                Unpooled.wrappedBuffer(payload().toByteArray()), connected).errorCode());
        assertEquals(Errors.THROTTLING_QUOTA_EXCEEDED.code(), manager.getSubscriptions(id, connected).errorCode());
        assertEquals(1, onClose.size(), "one close action per connection");
        onClose.forEach(Runnable::run);
        assertEquals(0, manager.seriesCount());
        assertFalse(scrape(manager).contains("org_apache_kafka_producer_record_send_rate{"));
        // on a new connection the same id is a new instance: answered at once
        assertEquals(0, manager.getSubscriptions(id, PRODUCER).errorCode());
    }

    @Test
    void changedSubscriptionsMakeTheOldIdUnknownAndTheNextGetIsAnsweredAtOnce() {
        subscribe("all", Map.of("metrics", "*", "interval.ms", "1000"));
        ClientMetricsManager manager = manager(100);
        GetTelemetrySubscriptionsResponse sub = manager.getSubscriptions(null, PRODUCER);
        subscribe("all", Map.of("metrics", "org.apache.kafka.", "interval.ms", "2000"));
        now.addAndGet(10);
        assertEquals(Errors.UNKNOWN_SUBSCRIPTION_ID.code(), manager.push(sub.clientInstanceId(), sub.subscriptionId(),
                false, (byte) 0, Unpooled.EMPTY_BUFFER, PRODUCER).errorCode());
        GetTelemetrySubscriptionsResponse next = manager.getSubscriptions(sub.clientInstanceId(), PRODUCER);
        assertEquals(0, next.errorCode());
        assertEquals(2000, next.pushIntervalMs());
        assertNotEquals(sub.subscriptionId(), next.subscriptionId());
    }

    @Test
    void pushedMetricsAreOnPrometheusWithClientLabelsCompressedOrNot() throws IOException {
        subscribe("all", Map.of("metrics", "*", "interval.ms", "1000"));
        ClientMetricsManager manager = manager(100);
        GetTelemetrySubscriptionsResponse sub = manager.getSubscriptions(null, PRODUCER);
        ByteBuf raw = Unpooled.wrappedBuffer(payload().toByteArray());
        ByteBuf zstd = Unpooled.buffer();
        Compression.of(CompressionType.ZSTD).compress(raw, zstd);
        assertEquals(0, manager.push(sub.clientInstanceId(), sub.subscriptionId(), false,
                (byte) CompressionType.ZSTD.id, zstd, PRODUCER).errorCode());
        String text = scrape(manager);
        // Prometheus writes labels in name order
        String labels = "client_id=\"app-1\",client_instance_id=\"" + ClientMetricsManager.kafkaString(sub.clientInstanceId()) + "\","
                + "client_software_name=\"apache-kafka-java\",client_software_version=\"4.4.0\"";
        assertTrue(text.contains("org_apache_kafka_producer_record_send_rate{" + labels + ",node_id=\"1\"} 12.5"), text);
        assertTrue(text.contains("org_apache_kafka_producer_record_error_total{" + labels + "} 3.0"), text);
        assertTrue(text.contains("org_apache_kafka_producer_latency_bucket{" + labels + ",le=\"10.0\"} 2"), text);
        assertTrue(text.contains("org_apache_kafka_producer_latency_bucket{" + labels + ",le=\"+Inf\"} 5"), text);
        assertTrue(text.contains("org_apache_kafka_producer_latency_count{" + labels + "} 5"), text);
        assertEquals(4, manager.seriesCount());
    }

    @Test
    void seriesExpireWithTheirInstanceAfterThreeIntervalsAndAreBounded() throws IOException {
        subscribe("all", Map.of("metrics", "*", "interval.ms", "100000"));
        ClientMetricsManager manager = manager(3);
        GetTelemetrySubscriptionsResponse sub = manager.getSubscriptions(null, PRODUCER);
        assertEquals(0, manager.push(sub.clientInstanceId(), sub.subscriptionId(), false, (byte) 0,
                Unpooled.wrappedBuffer(payload().toByteArray()), PRODUCER).errorCode());
        assertEquals(3, manager.seriesCount());
        assertEquals(1, manager.seriesDropped());
        assertTrue(scrape(manager).contains("org_apache_kafka_producer_record_send_rate{"));
        now.addAndGet(299_000);
        assertTrue(scrape(manager).contains("org_apache_kafka_producer_record_send_rate{"));
        now.addAndGet(2_000);
        assertFalse(scrape(manager).contains("org_apache_kafka_producer_record_send_rate{"));
        assertEquals(0, manager.seriesCount());
    }

    @Test
    void configsAreValidatedAsKafkaValidatesThem() {
        assertEquals(Errors.INVALID_REQUEST, assertThrows(ApiException.class,
                () -> ClientMetricsConfigs.validate("s", Map.of("interval.ms", "99"))).error());
        assertEquals(Errors.INVALID_REQUEST, assertThrows(ApiException.class,
                () -> ClientMetricsConfigs.validate("s", Map.of("intervals", "1000"))).error());
        assertEquals(Errors.INVALID_REQUEST, assertThrows(ApiException.class,
                () -> ClientMetricsConfigs.validate("", Map.of("interval.ms", "1000"))).error());
        assertThrows(ConfigException.class, () -> ClientMetricsConfigs.validate("s", Map.of("match", "client_rack=a")));
        assertThrows(ConfigException.class, () -> ClientMetricsConfigs.validate("s", Map.of("match", "client_id=(")));
        assertThrows(ConfigException.class, () -> ClientMetricsConfigs.validate("s", Map.of("interval.ms", "x")));
        assertEquals(Map.of("interval.ms", "100", "metrics", "a,b"),
                ClientMetricsConfigs.validate("s", Map.of("interval.ms", "100", "metrics", "a,b")));
    }

    @Test
    void malformedPayloadsAreRefusedBeforeAllocating() {
        byte[] data = payload().toByteArray();
        for (int cut = 1; cut < data.length; cut += 7) {
            byte[] truncated = java.util.Arrays.copyOf(data, cut);
            try {
                OtlpMetricsDecoder.decode(truncated, p -> { });
            } catch (ProtoReader.MalformedProtoException expected) {
                // refused, not crashed
            }
        }
        // a length of 2^31-ish with two bytes behind it
        assertThrows(ProtoReader.MalformedProtoException.class, () -> OtlpMetricsDecoder.decode(
                new byte[] {0x0a, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x07, 1, 2}, p -> { }));
    }

    private static String scrape(ClientMetricsManager manager) throws IOException {
        PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(new ClientTelemetryCollector(manager));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, registry.scrape());
        return out.toString(StandardCharsets.UTF_8);
    }

    private static KeyValue attribute(String key, String value) {
        return KeyValue.newBuilder().setKey(key).setValue(AnyValue.newBuilder().setStringValue(value)).build();
    }

    /**
     * A payload as Kafka's client telemetry reporter writes one: a gauge, a cumulative sum, a histogram; with an
     * instrumentation scope and a description, which librdkafka sends and the decoder skips.
     */
    private static MetricsData payload() {
        Metric gauge = Metric.newBuilder().setName("org.apache.kafka.producer.record.send.rate")
                .setDescription("The average number of records sent per second.")
                .setGauge(Gauge.newBuilder().addDataPoints(NumberDataPoint.newBuilder().setAsDouble(12.5)
                        .setTimeUnixNano(1).addAttributes(attribute("node.id", "1")))).build();
        Metric sum = Metric.newBuilder().setName("org.apache.kafka.producer.record.error.total")
                .setSum(Sum.newBuilder().setIsMonotonic(true)
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                        .addDataPoints(NumberDataPoint.newBuilder().setAsInt(3))).build();
        Metric histogram = Metric.newBuilder().setName("org.apache.kafka.producer.latency")
                .setHistogram(Histogram.newBuilder()
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                        .addDataPoints(HistogramDataPoint.newBuilder().setCount(5).setSum(70)
                                .addExplicitBounds(10).addExplicitBounds(20)
                                .addBucketCounts(2).addBucketCounts(2).addBucketCounts(1))).build();
        Metric second = Metric.newBuilder().setName("org.apache.kafka.producer.buffer.available.bytes")
                .setGauge(Gauge.newBuilder().addDataPoints(NumberDataPoint.newBuilder().setAsDouble(1))).build();
        return MetricsData.newBuilder().addResourceMetrics(ResourceMetrics.newBuilder()
                .addScopeMetrics(ScopeMetrics.newBuilder()
                        .setScope(InstrumentationScope.newBuilder().setName("app-1#producer-1").setVersion("2.15.1"))
                        .addMetrics(gauge).addMetrics(sum).addMetrics(histogram)
                        .addMetrics(second))).build();
    }
}

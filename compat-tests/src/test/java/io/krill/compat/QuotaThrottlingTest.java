package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.support.Clients;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Byte-rate quotas enforced on stock clients (issue 12): a producer or consumer whose client id has a
 * quota and that goes flat out is held to within 20% of it over 10 s and sees throttle times in its own
 * metrics, while another client id at the same time is not held back; removing the quota lifts the
 * throttle. A request_percentage quota throttles on handler time, by at most one window. PLAINTEXT, so the
 * entities are client ids.
 */
class QuotaThrottlingTest {
    private static final double QUOTA = 500 * 1024;
    private static final String VALUE = "v".repeat(1000);
    private static final long MEASURE_MS = 10_000;
    /** What the consumer test loads: 8000 values, 16 windows of the quota. */
    private static final long TOPIC_BYTES = 8000L * VALUE.length();

    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension().with("num.partitions", "1");

    private static Admin admin() {
        return Admin.create(Clients.base(KRILL.bootstrapServers()));
    }

    private static void setQuota(String clientId, String key, Double value) throws Exception {
        try (Admin admin = admin()) {
            admin.alterClientQuotas(List.of(new ClientQuotaAlteration(
                    new ClientQuotaEntity(Map.of(ClientQuotaEntity.CLIENT_ID, clientId)),
                    List.of(new ClientQuotaAlteration.Op(key, value))))).all().get();
        }
    }

    private static void createTopic(String topic) throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
    }

    /**
     * One request in flight: the broker records every request it has read before the client learns of a
     * throttle, so each in-flight request past the quota adds to the overshoot. Kafka's sensors themselves
     * allow up to 11 windows of quota in the first 10 s (the window counts as at least 10 full windows
     * plus the current one), about 113% of the quota for a flat-out client, which leaves little room for
     * more.
     */
    private static KafkaProducer<String, String> producer(String clientId) {
        return Clients.producer(KRILL.bootstrapServers(), Map.of(ProducerConfig.CLIENT_ID_CONFIG, clientId,
                ProducerConfig.ACKS_CONFIG, "1", ProducerConfig.LINGER_MS_CONFIG, "2",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false",
                ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1"));
    }

    private static double metric(Map<MetricName, ? extends Metric> metrics, String group, String name) {
        for (Map.Entry<MetricName, ? extends Metric> e : metrics.entrySet()) {
            if (e.getKey().group().equals(group) && e.getKey().name().equals(name) && e.getKey().tags().size() == 1) {
                Object value = e.getValue().metricValue();
                return value instanceof Double d && !d.isNaN() ? d : 0;
            }
        }
        throw new AssertionError("no metric " + group + "/" + name);
    }

    /**
     * Sends 1000-byte values as fast as acknowledgements allow for {@code ms} or until {@code maxBytes} are
     * sent; returns the rate of the bytes acknowledged in that time, per second.
     */
    private static double produceFlatOut(KafkaProducer<String, String> producer, String topic, long ms, long maxBytes)
            throws Exception {
        Semaphore window = new Semaphore(256);
        AtomicLong acked = new AtomicLong();
        long start = System.nanoTime();
        long end = start + TimeUnit.MILLISECONDS.toNanos(ms);
        long sent = 0;
        while (System.nanoTime() < end && sent < maxBytes) {
            if (!window.tryAcquire(50, TimeUnit.MILLISECONDS)) {
                continue;
            }
            producer.send(new ProducerRecord<>(topic, VALUE), (metadata, error) -> {
                if (error == null && System.nanoTime() <= end) {
                    acked.addAndGet(VALUE.length());
                }
                window.release();
            });
            sent += VALUE.length();
        }
        if (sent >= maxBytes) {
            producer.flush();
            return acked.get() * 1e9 / (System.nanoTime() - start);
        }
        return acked.get() * 1000.0 / ms;
    }

    @Test
    void producerOverItsByteRateIsThrottledAndOthersAreNot() throws Exception {
        createTopic("quota-produce");
        setQuota("throttled-producer", "producer_byte_rate", QUOTA);
        try (KafkaProducer<String, String> throttled = producer("throttled-producer");
             KafkaProducer<String, String> free = producer("free-producer")) {
            // The free producer stops after 20 MB: enough to tell its rate, without filling the disk.
            CompletableFuture<Double> freeRun = CompletableFuture.supplyAsync(() -> {
                try {
                    return produceFlatOut(free, "quota-produce", MEASURE_MS, 20_000_000);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            double throttledRate = produceFlatOut(throttled, "quota-produce", MEASURE_MS, Long.MAX_VALUE);
            double freeRate = freeRun.get(60, TimeUnit.SECONDS);
            double throttleMax = metric(throttled.metrics(), "producer-metrics", "produce-throttle-time-max");
            String summary = String.format("throttled %.0f B/s, free %.0f B/s, quota %.0f B/s, throttle max %.0f ms",
                    throttledRate, freeRate, QUOTA, throttleMax);
            System.out.println("QuotaThrottlingTest: " + summary);
            assertTrue(Math.abs(throttledRate - QUOTA) <= 0.2 * QUOTA, summary);
            assertTrue(throttleMax > 0, summary);
            assertTrue(freeRate > 2 * QUOTA, summary);
            assertEquals(0, metric(free.metrics(), "producer-metrics", "produce-throttle-time-max"), summary);
        }

        setQuota("throttled-producer", "producer_byte_rate", null);
        try (KafkaProducer<String, String> again = producer("throttled-producer")) {
            for (int i = 0; i < 2000; i++) {
                again.send(new ProducerRecord<>("quota-produce", VALUE));
            }
            again.flush();
            assertEquals(0, metric(again.metrics(), "producer-metrics", "produce-throttle-time-max"),
                    "2 MB at once, no longer throttled");
        }
    }

    private static KafkaConsumer<String, String> consumer(String clientId) {
        Properties props = Clients.base(KRILL.bootstrapServers());
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        // Smaller fetches than the default 1 MB, so the quota is met at a finer grain.
        props.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, "65536");
        return new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
    }

    /** Reads from the beginning for {@code ms} or until the whole topic is read; returns the value bytes. */
    private static long consumeFor(KafkaConsumer<String, String> consumer, TopicPartition tp, long ms) {
        consumer.assign(List.of(tp));
        consumer.seekToBeginning(List.of(tp));
        long bytes = 0;
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        while (System.nanoTime() < end && bytes < TOPIC_BYTES) {
            for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
                bytes += record.value().length();
            }
        }
        return bytes;
    }

    @Test
    void consumerOverItsByteRateIsThrottledAndOthersAreNot() throws Exception {
        String topic = "quota-fetch";
        createTopic(topic);
        try (KafkaProducer<String, String> loader = producer("loader")) {
            for (int i = 0; i < 8000; i++) {
                loader.send(new ProducerRecord<>(topic, VALUE));
            }
            loader.flush();
        }
        setQuota("throttled-consumer", "consumer_byte_rate", QUOTA);
        TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaConsumer<String, String> throttled = consumer("throttled-consumer");
             KafkaConsumer<String, String> free = consumer("free-consumer")) {
            CompletableFuture<Long> freeBytes = CompletableFuture.supplyAsync(() -> consumeFor(free, tp, 5_000));
            long throttledBytes = consumeFor(throttled, tp, MEASURE_MS);
            double throttledRate = throttledBytes * 1000.0 / MEASURE_MS;
            long freeTotal = freeBytes.get(60, TimeUnit.SECONDS);
            double throttleMax = metric(throttled.metrics(), "consumer-fetch-manager-metrics", "fetch-throttle-time-max");
            String summary = String.format("throttled %.0f B/s, free read %d B (5 s at most), quota %.0f B/s, throttle max %.0f ms",
                    throttledRate, freeTotal, QUOTA, throttleMax);
            System.out.println("QuotaThrottlingTest: " + summary);
            assertTrue(Math.abs(throttledRate - QUOTA) <= 0.2 * QUOTA, summary);
            assertTrue(throttleMax > 0, summary);
            assertEquals(TOPIC_BYTES, freeTotal, "the other consumer reads everything: " + summary);
        }

        setQuota("throttled-consumer", "consumer_byte_rate", null);
        try (KafkaConsumer<String, String> again = consumer("throttled-consumer")) {
            assertEquals(TOPIC_BYTES, consumeFor(again, tp, 10_000), "all 8 MB once the quota is gone");
            assertEquals(0, metric(again.metrics(), "consumer-fetch-manager-metrics", "fetch-throttle-time-max"));
        }
    }

    @Test
    void requestPercentageThrottlesOnHandlerTime() throws Exception {
        createTopic("quota-requests");
        // 0.001% of a thread: a few requests' handler time is over it.
        setQuota("busy-client", "request_percentage", 0.001);
        try (KafkaProducer<String, String> busy = producer("busy-client");
             KafkaProducer<String, String> other = producer("other-client")) {
            // Each send waits for its throttled answer, and the client then waits out the throttle time.
            for (int i = 0; i < 3; i++) {
                busy.send(new ProducerRecord<>("quota-requests", VALUE)).get();
                other.send(new ProducerRecord<>("quota-requests", VALUE)).get();
            }
            double busyMax = metric(busy.metrics(), "producer-metrics", "produce-throttle-time-max");
            assertTrue(busyMax > 0 && busyMax <= 1000, "throttled, at most one window: " + busyMax);
            assertEquals(0, metric(other.metrics(), "producer-metrics", "produce-throttle-time-max"));
        }
        setQuota("busy-client", "request_percentage", null);
    }
}

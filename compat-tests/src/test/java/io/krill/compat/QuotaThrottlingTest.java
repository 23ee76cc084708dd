package io.krill.compat;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.support.Clients;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Byte-rate quotas enforced on stock clients (issue 12), judged by what the broker answers, not by a clock:
 * a producer or consumer whose client id has a quota and that goes flat out over it is given throttle times
 * (its own produce/fetch-throttle-time metrics, which carry the broker's throttle_time_ms), as large as
 * Kafka's formula allows for the bytes over the quota and no larger, while another client id doing the same
 * at the same time is never throttled; removing the quota lifts the throttle. A request_percentage quota
 * throttles on handler time, by at most one window. PLAINTEXT, so the entities are client ids. Every wait is
 * bounded; nothing here measures a rate (timing is bench/'s).
 */
class QuotaThrottlingTest {
    private static final double QUOTA = 500 * 1024;
    private static final String VALUE = "v".repeat(1000);
    /** What each client moves: about 13.7 s of the quota, past the 10 s the broker's rate is measured over at least. */
    private static final int VALUES = 7000;
    private static final long BYTES = (long) VALUES * VALUE.length();
    /**
     * The broker's rate is bytes over a window of at least 10 s (quota.window.num 11 of 1 s: at least 10 full
     * windows), and its throttle time is {@code (rate - quota) / quota * window = bytes / quota - window}.
     * Moving {@link #BYTES} fast enough to pass the quota therefore earns some throttle, and none above
     * {@code bytes / quota - 10 s}, the bytes counted with their framing (20% allowed) and one fetch more.
     */
    private static final long MAX_THROTTLE_MS = Math.round(((BYTES * 1.2 + 65536) / QUOTA - 10) * 1000);
    private static final Duration WAIT = Duration.ofSeconds(60);

    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension().with("num.partitions", "1");

    private static Admin admin() {
        return Admin.create(Clients.base(KRILL.bootstrapServers()));
    }

    private static void setQuota(String clientId, String key, Double value) throws Exception {
        try (Admin admin = admin()) {
            admin.alterClientQuotas(List.of(new ClientQuotaAlteration(
                    new ClientQuotaEntity(Map.of(ClientQuotaEntity.CLIENT_ID, clientId)),
                    List.of(new ClientQuotaAlteration.Op(key, value))))).all().get(30, TimeUnit.SECONDS);
        }
    }

    private static void createTopic(String topic) throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
    }

    /**
     * One request in flight: the broker records every request it has read before the client learns of a
     * throttle, so each in-flight request past the quota adds to the overshoot.
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

    /** Sends {@code count} 1000-byte values as fast as the client goes; fails unless all are acknowledged. */
    private static void produceAll(KafkaProducer<String, String> producer, String topic, int count) throws Exception {
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            acks.add(producer.send(new ProducerRecord<>(topic, VALUE)));
        }
        for (Future<RecordMetadata> ack : acks) {
            ack.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        }
    }

    @Test
    void producerOverItsByteRateIsThrottledAndOthersAreNot() throws Exception {
        createTopic("quota-produce");
        setQuota("throttled-producer", "producer_byte_rate", QUOTA);
        try (KafkaProducer<String, String> throttled = producer("throttled-producer");
             KafkaProducer<String, String> free = producer("free-producer")) {
            CompletableFuture<Void> freeRun = CompletableFuture.runAsync(() -> {
                try {
                    produceAll(free, "quota-produce", VALUES);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            produceAll(throttled, "quota-produce", VALUES);
            freeRun.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            double throttleMax = metric(throttled.metrics(), "producer-metrics", "produce-throttle-time-max");
            double freeMax = metric(free.metrics(), "producer-metrics", "produce-throttle-time-max");
            String summary = String.format("%d B each at once, quota %.0f B/s: throttle max %.0f ms (at most %d), "
                    + "the other client id's %.0f ms", BYTES, QUOTA, throttleMax, MAX_THROTTLE_MS, freeMax);
            assertTrue(throttleMax > 0, "the client over its quota is throttled: " + summary);
            assertTrue(throttleMax <= MAX_THROTTLE_MS, "by no more than its bytes over the quota earn: " + summary);
            assertEquals(0, freeMax, "the other client id, as fast at the same time, is not throttled: " + summary);
        }

        setQuota("throttled-producer", "producer_byte_rate", null);
        try (KafkaProducer<String, String> again = producer("throttled-producer")) {
            produceAll(again, "quota-produce", 2000);
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

    /** Reads the whole partition from its beginning; fails unless every value arrives within {@link #WAIT}. */
    private static long consumeAll(KafkaConsumer<String, String> consumer, TopicPartition tp) {
        consumer.assign(List.of(tp));
        consumer.seekToBeginning(List.of(tp));
        long[] bytes = {0};
        await("reading all " + BYTES + " bytes of " + tp).atMost(WAIT)
                .pollInterval(Duration.ZERO).until(() -> {
                    for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
                        bytes[0] += record.value().length();
                    }
                    return bytes[0] >= BYTES;
                });
        return bytes[0];
    }

    @Test
    void consumerOverItsByteRateIsThrottledAndOthersAreNot() throws Exception {
        String topic = "quota-fetch";
        createTopic(topic);
        try (KafkaProducer<String, String> loader = producer("loader")) {
            produceAll(loader, topic, VALUES);
        }
        setQuota("throttled-consumer", "consumer_byte_rate", QUOTA);
        TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaConsumer<String, String> throttled = consumer("throttled-consumer");
             KafkaConsumer<String, String> free = consumer("free-consumer")) {
            CompletableFuture<Long> freeBytes = CompletableFuture.supplyAsync(() -> consumeAll(free, tp));
            long throttledBytes = consumeAll(throttled, tp);
            long freeTotal = freeBytes.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            double throttleMax = metric(throttled.metrics(), "consumer-fetch-manager-metrics", "fetch-throttle-time-max");
            double freeMax = metric(free.metrics(), "consumer-fetch-manager-metrics", "fetch-throttle-time-max");
            String summary = String.format("%d B each at once, quota %.0f B/s: throttle max %.0f ms (at most %d), "
                    + "the other client id's %.0f ms", BYTES, QUOTA, throttleMax, MAX_THROTTLE_MS, freeMax);
            assertEquals(BYTES, throttledBytes, "the throttled consumer still reads everything: " + summary);
            assertEquals(BYTES, freeTotal, "the other consumer reads everything: " + summary);
            assertTrue(throttleMax > 0, "the client over its quota is throttled: " + summary);
            assertTrue(throttleMax <= MAX_THROTTLE_MS, "by no more than its bytes over the quota earn: " + summary);
            assertEquals(0, freeMax, "the other client id, as fast at the same time, is not throttled: " + summary);
        }

        setQuota("throttled-consumer", "consumer_byte_rate", null);
        try (KafkaConsumer<String, String> again = consumer("throttled-consumer")) {
            assertEquals(BYTES, consumeAll(again, tp), "all 7 MB once the quota is gone");
            assertEquals(0, metric(again.metrics(), "consumer-fetch-manager-metrics", "fetch-throttle-time-max"),
                    "no longer throttled");
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
                busy.send(new ProducerRecord<>("quota-requests", VALUE)).get(WAIT.toSeconds(), TimeUnit.SECONDS);
                other.send(new ProducerRecord<>("quota-requests", VALUE)).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            }
            double busyMax = metric(busy.metrics(), "producer-metrics", "produce-throttle-time-max");
            assertTrue(busyMax > 0 && busyMax <= 1000, "throttled, at most one window: " + busyMax);
            assertEquals(0, metric(other.metrics(), "producer-metrics", "produce-throttle-time-max"));
        }
        setQuota("busy-client", "request_percentage", null);
    }
}

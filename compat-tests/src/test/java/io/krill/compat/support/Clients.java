package io.krill.compat.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The stock Java client (kafka-clients 4.4) as an independent judge of what a tool did: write records
 * that a tool then reads, read back what a tool wrote, look up offsets. Consumers use manual
 * assignment (the broker has no group coordinator yet).
 */
public final class Clients {
    private Clients() {
    }

    /** Properties every tool and client in these tests gets: bounded timeouts, so a failure is quick. */
    public static Properties base(String bootstrap) {
        Properties props = new Properties();
        props.put("bootstrap.servers", bootstrap);
        props.put("request.timeout.ms", "15000");
        props.put("default.api.timeout.ms", "20000");
        return props;
    }

    /** Writes {@link #base} to a properties file for a tool's --command-config. */
    public static Path configFile(Path dir, String bootstrap) {
        Properties props = base(bootstrap);
        props.remove("bootstrap.servers");
        Path file = dir.resolve("client-" + System.nanoTime() + ".properties");
        StringBuilder sb = new StringBuilder();
        props.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
        try {
            Files.writeString(file, sb);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }

    public static KafkaProducer<String, String> producer(String bootstrap, Map<String, String> overrides) {
        Properties props = base(bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
        props.putAll(overrides);
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    public static KafkaConsumer<String, String> consumer(String bootstrap) {
        Properties props = base(bootstrap);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        return new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
    }

    /** Sends the values (keys "k-i") to one partition and waits for every acknowledgement. */
    public static List<RecordMetadata> produce(String bootstrap, String topic, int partition, List<String> values) {
        try (KafkaProducer<String, String> producer = producer(bootstrap, Map.of())) {
            List<Future<RecordMetadata>> futures = new ArrayList<>();
            for (int i = 0; i < values.size(); i++) {
                futures.add(producer.send(new ProducerRecord<>(topic, partition, "k-" + i, values.get(i))));
            }
            List<RecordMetadata> acks = new ArrayList<>();
            for (Future<RecordMetadata> f : futures) {
                acks.add(f.get(60, TimeUnit.SECONDS));
            }
            return acks;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } catch (ExecutionException e) {
            throw new AssertionError("produce to " + topic + "-" + partition + " failed", e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError("produce to " + topic + "-" + partition + " not acknowledged within 60 s", e);
        }
    }

    /** Reads a partition from its beginning until {@code expected} records arrived or 30 s passed. */
    public static List<ConsumerRecord<String, String>> consume(String bootstrap, String topic, int partition,
            int expected) {
        TopicPartition tp = new TopicPartition(topic, partition);
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = consumer(bootstrap)) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (records.size() < expected && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }

    public static Map<Integer, Long> beginningOffsets(String bootstrap, String topic, int partitions) {
        try (KafkaConsumer<String, String> consumer = consumer(bootstrap)) {
            Map<Integer, Long> result = new HashMap<>();
            consumer.beginningOffsets(tps(topic, partitions)).forEach((tp, o) -> result.put(tp.partition(), o));
            return result;
        }
    }

    public static Map<Integer, Long> endOffsets(String bootstrap, String topic, int partitions) {
        try (KafkaConsumer<String, String> consumer = consumer(bootstrap)) {
            Map<Integer, Long> result = new HashMap<>();
            consumer.endOffsets(tps(topic, partitions)).forEach((tp, o) -> result.put(tp.partition(), o));
            return result;
        }
    }

    /** Makes the broker auto-create a topic (a producer's Metadata request) without writing to it. */
    public static List<PartitionInfo> autoCreate(String bootstrap, String topic) {
        try (KafkaProducer<String, String> producer = producer(bootstrap, Map.of())) {
            return producer.partitionsFor(topic);
        }
    }

    /** The partitions of a topic as Metadata tells a consumer (auto-creation off for this lookup). */
    public static List<PartitionInfo> partitionsFor(String bootstrap, String topic) {
        Properties props = base(bootstrap);
        props.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                new StringDeserializer())) {
            return consumer.partitionsFor(topic, Duration.ofSeconds(10));
        }
    }

    private static List<TopicPartition> tps(String topic, int partitions) {
        List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            tps.add(new TopicPartition(topic, p));
        }
        return tps;
    }
}

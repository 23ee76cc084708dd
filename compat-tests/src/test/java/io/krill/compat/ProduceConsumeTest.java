package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The stock Java client (kafka-clients 4.4, idempotent producer with acks=all, its default) writes to an
 * auto-created topic and a consumer with manual assignment reads everything back: every acknowledged
 * record once, in order per partition, at the offsets the producer was told; then a seek back to an
 * old offset replays the same records.
 */
class ProduceConsumeTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension().with("num.partitions", "3");

    @Test
    void acknowledgedRecordsAreReadBackInOrderPerPartition() throws Exception {
        String topic = "produce-consume";
        int count = 100_000;
        Map<Integer, List<String>> sentByPartition = new HashMap<>();
        Map<Integer, List<Long>> offsetsByPartition = new HashMap<>();
        Properties producerProps = new Properties();
        producerProps.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KRILL.bootstrapServers());
        producerProps.put(ProducerConfig.ACKS_CONFIG, "all");
        producerProps.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps, new StringSerializer(),
                new StringSerializer())) {
            List<Future<RecordMetadata>> acks = new ArrayList<>(count);
            List<String> values = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                String value = "value-" + i;
                values.add(value);
                acks.add(producer.send(new ProducerRecord<>(topic, "key-" + (i % 97), value)));
            }
            for (int i = 0; i < count; i++) {
                RecordMetadata metadata = acks.get(i).get(60, TimeUnit.SECONDS);
                sentByPartition.computeIfAbsent(metadata.partition(), p -> new ArrayList<>()).add(values.get(i));
                offsetsByPartition.computeIfAbsent(metadata.partition(), p -> new ArrayList<>()).add(metadata.offset());
            }
        }
        assertEquals(3, sentByPartition.size(), "keys spread over the 3 auto-created partitions");

        Properties consumerProps = new Properties();
        consumerProps.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KRILL.bootstrapServers());
        consumerProps.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        consumerProps.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        Map<Integer, List<String>> readByPartition = new HashMap<>();
        Map<Integer, List<Long>> readOffsets = new HashMap<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerProps, new StringDeserializer(),
                new StringDeserializer())) {
            List<TopicPartition> partitions = List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1),
                    new TopicPartition(topic, 2));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            int read = 0;
            long deadline = System.currentTimeMillis() + 60_000;
            while (read < count && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
                    readByPartition.computeIfAbsent(record.partition(), p -> new ArrayList<>()).add(record.value());
                    readOffsets.computeIfAbsent(record.partition(), p -> new ArrayList<>()).add(record.offset());
                    read++;
                }
            }
            assertEquals(count, read, "every acknowledged record read back");
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            for (TopicPartition tp : partitions) {
                assertEquals((long) sentByPartition.get(tp.partition()).size(), ends.get(tp), "end offset of " + tp);
            }

            // Replay: nothing is deleted on read; seeking back to any retained offset reads the same records.
            TopicPartition first = partitions.get(0);
            List<String> expected = sentByPartition.get(0);
            int from = expected.size() / 2;
            consumer.assign(List.of(first));
            consumer.seek(first, from);
            List<String> replayed = new ArrayList<>();
            long replayDeadline = System.currentTimeMillis() + 60_000;
            while (replayed.size() < expected.size() - from && System.currentTimeMillis() < replayDeadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
                    replayed.add(record.value());
                }
            }
            assertEquals(expected.subList(from, expected.size()), replayed, "replay from offset " + from);
        }
        assertEquals(sentByPartition, readByPartition, "same records, same order, per partition");
        assertEquals(offsetsByPartition, readOffsets, "read at the offsets the producer was acknowledged");
    }
}

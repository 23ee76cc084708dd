package io.krill.compat.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads whole partitions with a stock consumer (manual assignment, no group): from the log start to the
 * end offset (the high watermark) the partitions have when the read begins.
 */
final class ReadBack {
    private ReadBack() {
    }

    static Map<Integer, List<ConsumerRecord<String, String>>> all(KrillCluster cluster, String topic, int partitions) {
        Properties props = cluster.clientProperties();
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            tps.add(new TopicPartition(topic, p));
        }
        Map<Integer, List<ConsumerRecord<String, String>>> read = new HashMap<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                new StringDeserializer())) {
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            Map<TopicPartition, Long> end = consumer.endOffsets(tps, Duration.ofSeconds(30));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!tps.stream().allMatch(tp -> consumer.position(tp) >= end.get(tp))) {
                if (System.nanoTime() > deadline) {
                    Map<TopicPartition, Long> positions = new HashMap<>();
                    tps.forEach(tp -> positions.put(tp, consumer.position(tp)));
                    throw new AssertionError("read " + topic + " to positions " + positions + ", not to " + end
                            + " within 60 s");
                }
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    read.computeIfAbsent(r.partition(), p -> new ArrayList<>()).add(r);
                }
            }
        }
        return read;
    }

    /** Every value read, in offset order per partition. */
    static List<String> values(Map<Integer, List<ConsumerRecord<String, String>>> read) {
        List<String> values = new ArrayList<>();
        read.values().forEach(list -> list.forEach(r -> values.add(r.value())));
        return values;
    }
}

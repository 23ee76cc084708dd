package io.krill.compat.faults;

import static org.awaitility.Awaitility.await;

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
 * The read after healing: every partition of the campaign's topics, from the log start to its end, with
 * read_committed, by a consumer outside any group (manual assignment). It first waits until no transaction
 * is open anywhere (the last stable offset has caught up with the high watermark), so that the end it reads
 * to is the whole log; then records what it read in the {@link History} ({@code final} events, one per
 * chunk, and {@code final-end} with the end offsets) for the checker.
 */
final class FinalRead {
    private static final int CHUNK = 2000;

    private FinalRead() {
    }

    static void readAll(History history, Properties clientProps, Map<String, Integer> topics) {
        List<TopicPartition> tps = new ArrayList<>();
        topics.forEach((topic, partitions) -> {
            for (int p = 0; p < partitions; p++) {
                tps.add(new TopicPartition(topic, p));
            }
        });
        Properties props = new Properties();
        props.putAll(clientProps);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "final-read");
        Properties uncommitted = new Properties();
        uncommitted.putAll(props);
        uncommitted.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                new StringDeserializer());
             KafkaConsumer<String, String> highWatermarks = new KafkaConsumer<>(uncommitted,
                     new StringDeserializer(), new StringDeserializer())) {
            await("no open transaction: last stable offsets reach the high watermarks")
                    .atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                    .until(() -> consumer.endOffsets(tps, Duration.ofSeconds(20))
                            .equals(highWatermarks.endOffsets(tps, Duration.ofSeconds(20))));
            Map<TopicPartition, Long> end = consumer.endOffsets(tps, Duration.ofSeconds(30));
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            Map<String, List<List<Object>>> chunks = new HashMap<>();
            await("read every partition to " + end).atMost(Duration.ofSeconds(300)).pollInterval(Duration.ZERO)
                    .until(() -> {
                        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                            String tp = r.topic() + "-" + r.partition();
                            List<List<Object>> chunk = chunks.computeIfAbsent(tp, k -> new ArrayList<>());
                            chunk.add(List.of(tp, r.offset(), r.value()));
                            if (chunk.size() >= CHUNK) {
                                history.record("final", "final-read", "records", List.copyOf(chunk));
                                chunk.clear();
                            }
                        }
                        return tps.stream().allMatch(tp -> consumer.position(tp) >= end.get(tp));
                    });
            chunks.values().stream().filter(c -> !c.isEmpty())
                    .forEach(c -> history.record("final", "final-read", "records", List.copyOf(c)));
            Map<String, Long> ends = new HashMap<>();
            end.forEach((tp, offset) -> ends.put(tp.topic() + "-" + tp.partition(), offset));
            history.record("final-end", "final-read", "ends", ends);
        }
    }
}

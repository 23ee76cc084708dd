package io.krill.compat.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The stock Java consumer as the judge of transactional writes: the values of one partition from its
 * beginning to its end as seen with an isolation level (read_committed ends at the last stable offset
 * and skips aborted records; read_uncommitted ends at the high watermark).
 */
public final class IsolatedRead {
    private IsolatedRead() {
    }

    public static List<String> values(String bootstrap, String topic, int partition, String isolation) {
        Properties props = Clients.base(bootstrap);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        TopicPartition tp = new TopicPartition(topic, partition);
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                new StringDeserializer())) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp)).get(tp);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (consumer.position(tp) < end) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("read " + values.size() + " values of " + tp + " (" + isolation
                            + ") but not up to its end " + end + " within 30 s: " + values);
                }
                consumer.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value()));
            }
        }
        return values;
    }
}

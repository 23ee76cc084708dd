package io.krill.compat.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A member of a consumer group (classic or KIP-848 {@code consumer} protocol) reading the campaign's topics
 * with read_committed on its own thread: every poll's records go to the {@link History}, and about once a
 * second it commits, synchronously, the offsets after what it has read of the partitions it owns (those that
 * moved since its last successful commit: with a thousand partitions, a commit names the few that got records,
 * so the history grows with the records read, not with partitions times seconds), recording when the commit
 * started, when it ended and whether it succeeded. After an error that breaks the consumer
 * it closes it and joins again with a new one.
 */
final class GroupReader extends WorkloadThread {
    private final History history;
    private final Properties props = new Properties();
    private final String name;
    private final String group;
    private final List<String> topics;

    GroupReader(History history, Properties clientProps, String name, String group, String protocol,
            List<String> topics) {
        super("reader-" + name);
        this.history = history;
        this.name = name;
        this.group = group;
        this.topics = List.copyOf(topics);
        props.putAll(clientProps);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
        if (protocol.equals("classic")) {
            props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "10000");
            props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "1000");
        }
        start();
    }

    @Override
    protected void run() {
        while (running()) {
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                    new StringDeserializer())) {
                Map<TopicPartition, Long> next = new HashMap<>();
                Map<TopicPartition, Long> committed = new HashMap<>();
                consumer.subscribe(topics, new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                        next.keySet().removeAll(partitions);
                        committed.keySet().removeAll(partitions);
                    }

                    @Override
                    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                        history.record("assigned", name, "group", group, "partitions",
                                partitions.stream().map(tp -> tp.topic() + "-" + tp.partition()).toList());
                    }

                    @Override
                    public void onPartitionsLost(Collection<TopicPartition> partitions) {
                        next.keySet().removeAll(partitions);
                        committed.keySet().removeAll(partitions);
                    }
                });
                readUntilStoppedOrBroken(consumer, next, committed);
            } catch (KafkaException | IllegalStateException e) {
                history.record("reader-error", name, "group", group, "err", e.toString());
                pause(1000);
            }
        }
    }

    /**
     * {@code next} holds, per owned partition, the offset after the last record read since it was assigned:
     * a partition revoked and later assigned again starts from the group's committed offset, never from what
     * this member had read before, or it would commit an offset older than another member's. {@code committed}
     * holds what this member last committed successfully per owned partition: only the others are committed.
     */
    private void readUntilStoppedOrBroken(KafkaConsumer<String, String> consumer, Map<TopicPartition, Long> next,
            Map<TopicPartition, Long> committed) {
        long lastCommit = System.nanoTime();
        while (running()) {
            ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(500));
            if (!records.isEmpty()) {
                List<List<Object>> seen = new ArrayList<>(records.count());
                for (ConsumerRecord<String, String> r : records) {
                    seen.add(List.of(r.topic() + "-" + r.partition(), r.offset(), r.value()));
                    next.put(new TopicPartition(r.topic(), r.partition()), r.offset() + 1);
                }
                history.record("poll", name, "group", group, "records", seen);
            }
            if (System.nanoTime() - lastCommit > TimeUnit.SECONDS.toNanos(1)) {
                next.keySet().retainAll(consumer.assignment());
                committed.keySet().retainAll(consumer.assignment());
                commit(consumer, next, committed);
                lastCommit = System.nanoTime();
            }
        }
    }

    private void commit(KafkaConsumer<String, String> consumer, Map<TopicPartition, Long> next,
            Map<TopicPartition, Long> committed) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        Map<String, Long> recorded = new HashMap<>();
        next.forEach((tp, offset) -> {
            if (!offset.equals(committed.get(tp))) {
                offsets.put(tp, new OffsetAndMetadata(offset));
                recorded.put(tp.topic() + "-" + tp.partition(), offset);
            }
        });
        if (offsets.isEmpty()) {
            return;
        }
        long start = System.currentTimeMillis();
        try {
            consumer.commitSync(offsets, Duration.ofSeconds(15));
            offsets.forEach((tp, o) -> committed.put(tp, o.offset()));
            history.record("commit", name, "group", group, "start", start, "offsets", recorded, "ok", true);
        } catch (KafkaException e) {
            history.record("commit", name, "group", group, "start", start, "offsets", recorded, "ok", false,
                    "err", e.toString());
        }
    }

    void stop() throws InterruptedException {
        stopWithin(Duration.ofSeconds(90), "stop");
    }

    @Override
    public void close() {
        requestStop();
    }
}

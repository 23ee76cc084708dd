package io.krill.compat.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A member of the campaign's share group (KIP-932; the group reads committed records only) on its own
 * thread: each poll's deliveries go to the {@link History} as a {@code share-poll} with their delivery counts,
 * every record is accepted, and the acknowledgements are committed at once ({@code commitSync}); a
 * {@code share-accept} event names, per partition whose acknowledgement succeeded, the offsets accepted and
 * the delivery count each was accepted at. The checker holds that no record is delivered again after an
 * accepted delivery. After an error that breaks the consumer it closes it and joins again with a new one.
 */
final class ShareReader extends WorkloadThread {
    /** The campaign's share group. */
    static final String GROUP = "faults-share";

    private final History history;
    private final Properties props = new Properties();
    private final String name;
    private final List<String> topics;

    ShareReader(History history, Properties clientProps, String name, List<String> topics) {
        super("share-reader-" + name);
        this.history = history;
        this.name = name;
        this.topics = List.copyOf(topics);
        props.putAll(clientProps);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
        props.put("share.acknowledgement.mode", "explicit");
        start();
    }

    @Override
    protected void run() {
        while (running()) {
            try (KafkaShareConsumer<String, String> consumer = new KafkaShareConsumer<>(props, new StringDeserializer(),
                    new StringDeserializer())) {
                consumer.subscribe(topics);
                while (running()) {
                    ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(500));
                    if (!records.isEmpty()) {
                        acceptAll(consumer, records);
                    }
                }
            } catch (KafkaException | IllegalStateException e) {
                history.record("reader-error", name, "group", GROUP, "err", e.toString());
                pause(1000);
            }
        }
    }

    private void acceptAll(KafkaShareConsumer<String, String> consumer, ConsumerRecords<String, String> records) {
        List<List<Object>> seen = new ArrayList<>(records.count());
        // partition -> offset -> delivery count, to name in share-accept what this commit accepted
        Map<String, Map<Long, Integer>> accepting = new HashMap<>();
        for (ConsumerRecord<String, String> r : records) {
            String tp = r.topic() + "-" + r.partition();
            int count = r.deliveryCount().orElse((short) -1);
            seen.add(List.of(tp, r.offset(), r.value(), count));
            accepting.computeIfAbsent(tp, k -> new TreeMap<>()).put(r.offset(), count);
            consumer.acknowledge(r, AcknowledgeType.ACCEPT);
        }
        history.record("share-poll", name, "group", GROUP, "records", seen);
        long start = System.currentTimeMillis();
        Map<TopicIdPartition, Optional<KafkaException>> results;
        try {
            results = consumer.commitSync(Duration.ofSeconds(15));
        } catch (KafkaException e) {
            history.record("share-accept", name, "group", GROUP, "start", start, "accepted", Map.of(), "err",
                    e.toString());
            return;
        }
        Map<String, Map<Long, Integer>> accepted = new TreeMap<>();
        Map<String, String> failed = new TreeMap<>();
        results.forEach((tip, error) -> {
            String tp = tip.topic() + "-" + tip.partition();
            if (error.isEmpty() && accepting.containsKey(tp)) {
                accepted.put(tp, accepting.get(tp));
            } else if (error.isPresent()) {
                failed.put(tp, error.get().toString());
            }
        });
        history.record("share-accept", name, "group", GROUP, "start", start, "accepted", accepted, "failed", failed);
    }

    void stop() throws InterruptedException {
        stopWithin(Duration.ofSeconds(90), "stop");
    }

    @Override
    public void close() {
        requestStop();
    }
}

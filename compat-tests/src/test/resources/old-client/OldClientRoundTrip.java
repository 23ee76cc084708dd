import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Compiled by OldJavaClientTest at test time against an old kafka-clients jar (the API common to 2.8
 * and 3.x) and run in a class loader that holds only that jar and its dependencies. Talks to the test
 * through JDK types only.
 *
 * <p>Input: op (version|produce|consume), bootstrap, topic, partition, count, and for produce compression,
 * acks, idempotence. Output lines: "acked OFFSET" per record for produce, "OFFSET KEY VALUE" per
 * record for consume.
 */
public final class OldClientRoundTrip implements Function<Map<String, String>, List<String>> {
    @Override
    public List<String> apply(Map<String, String> in) {
        try {
            switch (in.get("op")) {
                case "version":
                    return Collections.singletonList(org.apache.kafka.common.utils.AppInfoParser.getVersion());
                case "produce":
                    return produce(in);
                default:
                    return consume(in);
            }
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e.toString(), e);
        }
    }

    private static List<String> produce(Map<String, String> in) throws Exception {
        Properties props = new Properties();
        props.put("bootstrap.servers", in.get("bootstrap"));
        props.put("compression.type", in.get("compression"));
        props.put("acks", in.get("acks"));
        props.put("enable.idempotence", in.get("idempotence"));
        props.put("linger.ms", "5");
        props.put("batch.size", "16384");
        props.put("request.timeout.ms", "15000");
        props.put("delivery.timeout.ms", "30000");
        props.put("max.block.ms", "20000");
        String topic = in.get("topic");
        int partition = Integer.parseInt(in.get("partition"));
        int count = Integer.parseInt(in.get("count"));
        List<String> out = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(),
                new StringSerializer())) {
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                acks.add(producer.send(new ProducerRecord<>(topic, partition, "k-" + i, in.get("prefix") + i)));
            }
            for (Future<RecordMetadata> ack : acks) {
                out.add("acked " + ack.get().offset());
            }
        }
        return out;
    }

    private static List<String> consume(Map<String, String> in) {
        Properties props = new Properties();
        props.put("bootstrap.servers", in.get("bootstrap"));
        props.put("enable.auto.commit", "false");
        props.put("auto.offset.reset", "earliest");
        props.put("request.timeout.ms", "15000");
        props.put("default.api.timeout.ms", "20000");
        TopicPartition tp = new TopicPartition(in.get("topic"), Integer.parseInt(in.get("partition")));
        int count = Integer.parseInt(in.get("count"));
        List<String> out = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                new StringDeserializer())) {
            consumer.assign(Collections.singletonList(tp));
            consumer.seekToBeginning(Collections.singletonList(tp));
            long deadline = System.currentTimeMillis() + 30_000;
            while (out.size() < count && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    out.add(r.offset() + " " + r.key() + " " + r.value());
                }
            }
            out.add("end " + consumer.endOffsets(Collections.singletonList(tp)).get(tp));
        }
        return out;
    }
}

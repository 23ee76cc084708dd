package io.krill.compat.security;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
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

/** The stock Java clients with security settings (TLS, SASL) and bounded timeouts. */
final class SecureClients {
    private SecureClients() {
    }

    static Properties props(String bootstrap, Map<String, String> security) {
        Properties props = new Properties();
        props.put("bootstrap.servers", bootstrap);
        props.put("request.timeout.ms", "15000");
        props.put("default.api.timeout.ms", "20000");
        props.putAll(security);
        return props;
    }

    static Admin admin(String bootstrap, Map<String, String> security) {
        return Admin.create(props(bootstrap, security));
    }

    static void createTopic(String bootstrap, Map<String, String> security, String topic, int partitions, short rf)
            throws Exception {
        try (Admin admin = admin(bootstrap, security)) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, rf))).all().get(30, TimeUnit.SECONDS);
        }
    }

    static KafkaProducer<String, String> producer(String bootstrap, Map<String, String> security) {
        Properties props = props(bootstrap, security);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "20000");
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    /** Produces the values to partition 0 and waits for every acknowledgement. */
    static void produce(String bootstrap, Map<String, String> security, String topic, List<String> values)
            throws InterruptedException, ExecutionException, TimeoutException {
        try (KafkaProducer<String, String> producer = producer(bootstrap, security)) {
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            for (int i = 0; i < values.size(); i++) {
                acks.add(producer.send(new ProducerRecord<>(topic, 0, "k-" + i, values.get(i))));
            }
            for (Future<RecordMetadata> ack : acks) {
                ack.get(60, TimeUnit.SECONDS);
            }
        }
    }

    /** Reads partition 0 from the beginning until {@code expected} values arrived or 30 s passed. */
    static List<String> consume(String bootstrap, Map<String, String> security, String topic, int expected) {
        Properties props = props(bootstrap, security);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        TopicPartition tp = new TopicPartition(topic, 0);
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                     new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (values.size() < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(r.value());
                }
            }
        }
        return values;
    }

    /** The failure of a cluster description (the first request a client makes), or null if it worked. */
    static Throwable describeFailure(String bootstrap, Map<String, String> security) {
        Properties props = props(bootstrap, security);
        props.put("default.api.timeout.ms", "8000");
        props.put("request.timeout.ms", "5000");
        try (Admin admin = Admin.create(props)) {
            admin.describeCluster().nodes().get(15, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (Exception e) {
            return e;
        }
    }
}

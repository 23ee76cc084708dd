package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.support.Clients;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A user quota needs an authenticated user: over SASL_PLAINTEXT (PLAIN, JAAS users) a producer_byte_rate
 * set for users/alice throttles alice's producer, while bob's, with the same client id at the same time,
 * is not throttled.
 */
class UserQuotaSaslTest {
    private static final String VALUE = "v".repeat(1000);

    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension()
            .with("listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0")
            .with("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT")
            .with("sasl.enabled.mechanisms", "PLAIN")
            .with("sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required "
                    + "user_alice=\"alice-secret\" user_bob=\"bob-secret\";");

    private static KafkaProducer<String, String> producer(String user) {
        Properties props = Clients.base("127.0.0.1:" + KRILL.broker().boundAddresses().get(1).getPort());
        props.put("security.protocol", "SASL_PLAINTEXT");
        props.put("sasl.mechanism", "PLAIN");
        props.put("sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
                + user + "\" password=\"" + user + "-secret\";");
        props.put(ProducerConfig.CLIENT_ID_CONFIG, "shared-app");
        props.put(ProducerConfig.ACKS_CONFIG, "1");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        // Two big requests: the second takes the rate 20% over the quota at once, with no long wait.
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, "614400");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "1000");
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    private static double throttleMax(KafkaProducer<String, String> producer) {
        for (Map.Entry<MetricName, ? extends Metric> e : producer.metrics().entrySet()) {
            if (e.getKey().group().equals("producer-metrics") && e.getKey().name().equals("produce-throttle-time-max")) {
                Object value = e.getValue().metricValue();
                return value instanceof Double d && !d.isNaN() ? d : 0;
            }
        }
        throw new AssertionError("no produce-throttle-time-max");
    }

    @Test
    void userQuotaThrottlesThatUserOnly() throws Exception {
        try (Admin admin = Admin.create(Clients.base(KRILL.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic("user-quota", 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
            admin.alterClientQuotas(List.of(new ClientQuotaAlteration(
                    new ClientQuotaEntity(Map.of(ClientQuotaEntity.USER, "alice")),
                    List.of(new ClientQuotaAlteration.Op("producer_byte_rate", 100_000.0))))).all().get(60, TimeUnit.SECONDS);
        }
        // 1.2 MB in two requests: more than the 10 windows of 100 kB/s that the quota lets through at first.
        try (KafkaProducer<String, String> alice = producer("alice");
             KafkaProducer<String, String> bob = producer("bob")) {
            for (int i = 0; i < 1200; i++) {
                alice.send(new ProducerRecord<>("user-quota", VALUE));
                bob.send(new ProducerRecord<>("user-quota", VALUE));
            }
            alice.flush();
            bob.flush();
            assertTrue(throttleMax(alice) > 0, "alice is over her quota");
            assertEquals(0, throttleMax(bob), "bob has no quota, whatever his client id");
        }
    }
}

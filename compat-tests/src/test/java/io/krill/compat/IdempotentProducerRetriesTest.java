package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.support.Clients;
import io.krill.compat.support.ResponseDroppingProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Idempotence under retries: a proxy between the stock 4.4 producer (idempotent, acks=all, five requests
 * in flight) and the broker drops the connection instead of forwarding some produce responses, after
 * the broker appended the batches. The producer resends them; the broker recognises the retries by
 * producer id, epoch and sequence and answers with the original offsets. The log holds every record
 * exactly once, in the order sent, at the offset its acknowledgement named.
 */
class IdempotentProducerRetriesTest {
    /** Every third produce response is lost, ten times. */
    static final ResponseDroppingProxy PROXY = ResponseDroppingProxy.start(n -> n % 3 == 0 && n <= 30);

    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension()
            .with("num.partitions", "1")
            .with("advertised.listeners", "PLAINTEXT://127.0.0.1:" + PROXY.port());

    @BeforeAll
    static void routeProxy() {
        PROXY.target(KRILL.port());
    }

    @AfterAll
    static void stopProxy() {
        PROXY.close();
    }

    @Test
    void retriedBatchesAreWrittenOnce() throws Exception {
        String topic = "idempotent-retries";
        String bootstrap = "127.0.0.1:" + PROXY.port();
        int count = 1_000;
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        try (KafkaProducer<String, String> producer = Clients.producer(bootstrap, Map.of(
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true",
                ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5",
                ProducerConfig.LINGER_MS_CONFIG, "0",
                ProducerConfig.BATCH_SIZE_CONFIG, "256",
                ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "20",
                ProducerConfig.RECONNECT_BACKOFF_MS_CONFIG, "20",
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000"))) {
            for (int i = 0; i < count; i++) {
                acks.add(producer.send(new ProducerRecord<>(topic, 0, "k-" + i, "v-" + i)));
            }
            for (int i = 0; i < count; i++) {
                assertEquals(i, acks.get(i).get(60, TimeUnit.SECONDS).offset(), "acknowledged offset of record " + i);
            }
        }
        assertTrue(PROXY.dropped() >= 5, "responses were lost and batches resent: " + PROXY.dropped());

        List<ConsumerRecord<String, String>> records = Clients.consume(bootstrap, topic, 0, count);
        assertEquals(count, records.size(), "each record once (the end offset below rules out more)");
        for (int i = 0; i < count; i++) {
            assertEquals("v-" + i, records.get(i).value());
            assertEquals(i, records.get(i).offset());
        }
        assertEquals(Map.of(0, (long) count), Clients.endOffsets(bootstrap, topic, 1));
    }
}

package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.krill.compat.support.Clients;
import io.krill.compat.support.Processes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A broker with {@code log.message.timestamp.type=LogAppendTime}: the broker stamps each batch on append,
 * returns that time in the produce response (the Java producer's RecordMetadata.timestamp) and every
 * reader sees it with the LogAppendTime type, whatever the producer put in the records, compressed or not.
 */
class LogAppendTimeTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension().with("num.partitions", "1")
            .with("log.message.timestamp.type", "LogAppendTime");

    private static final long OLD = 1_500_000_000_000L;

    @ParameterizedTest(name = "compression {0}")
    @ValueSource(strings = {"none", "zstd"})
    void brokerStampsAppendTime(String codec) throws Exception {
        String topic = "lat-" + codec;
        long before = System.currentTimeMillis();
        List<RecordMetadata> acks = new ArrayList<>();
        try (KafkaProducer<String, String> producer = Clients.producer(KRILL.bootstrapServers(),
                Map.of("compression.type", codec))) {
            List<Future<RecordMetadata>> futures = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                futures.add(producer.send(new ProducerRecord<>(topic, 0, OLD + i, "k" + i, "v" + i)));
            }
            for (Future<RecordMetadata> f : futures) {
                acks.add(f.get(60, TimeUnit.SECONDS));
            }
        }
        long after = System.currentTimeMillis();
        for (RecordMetadata md : acks) {
            assertTrue(md.timestamp() >= before && md.timestamp() <= after,
                    "produce response carries the log append time, not the record's: " + md.timestamp());
        }
        List<ConsumerRecord<String, String>> records = Clients.consume(KRILL.bootstrapServers(), topic, 0, 100);
        assertEquals(100, records.size());
        for (ConsumerRecord<String, String> r : records) {
            assertEquals(TimestampType.LOG_APPEND_TIME, r.timestampType(), "timestamp type of offset " + r.offset());
            assertTrue(r.timestamp() >= before && r.timestamp() <= after, "append time at offset " + r.offset());
        }
        assertEquals(acks.get(0).timestamp(), records.get(0).timestamp(), "the time the producer was told");
    }

    @Test
    void kcatSeesAppendTime() {
        assumeTrue(Processes.onPath("kcat"), "kcat is not on the PATH (apt-get install kcat)");
        String topic = "lat-kcat";
        long before = System.currentTimeMillis();
        Processes.run(List.of("kcat", "-b", KRILL.bootstrapServers(), "-P", "-t", topic, "-p", "0", "-z", "gzip"),
                "a\nb\n", Duration.ofSeconds(60)).assertSuccess();
        long after = System.currentTimeMillis();
        Processes.Result consumed = Processes.run(List.of("kcat", "-b", KRILL.bootstrapServers(), "-C", "-t", topic,
                "-p", "0", "-o", "beginning", "-e", "-f", "%T %s\\n"), "", Duration.ofSeconds(60)).assertSuccess();
        assertEquals(2, consumed.outLines().size(), consumed.describe());
        for (String line : consumed.outLines()) {
            long ts = Long.parseLong(line.split(" ")[0]);
            assertTrue(ts >= before && ts <= after, "append time seen by librdkafka: " + consumed.describe());
        }
    }
}

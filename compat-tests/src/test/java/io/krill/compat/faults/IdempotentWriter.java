package io.krill.compat.faults;

import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * One idempotent producer (acks=all) on its own thread writing unique numbered values
 * ({@code <name>-<n>}, n counting up from 0) round-robin over a topic's partitions at a steady rate, until
 * stopped. Every send, acknowledgement (with its offset) and failure goes to the {@link History}. A failed
 * send is not retried by us: the client already retried it until its delivery timeout, and the checker
 * treats it as indeterminate (it may or may not be in the log).
 */
final class IdempotentWriter extends WorkloadThread {
    private final History history;
    private final String name;
    private final String topic;
    private final int partitions;
    private final long intervalNanos;
    private final KafkaProducer<String, String> producer;

    IdempotentWriter(History history, Properties clientProps, String name, String topic, int partitions,
            int recordsPerSecond) {
        super("writer-" + name);
        this.history = history;
        this.name = name;
        this.topic = topic;
        this.partitions = partitions;
        this.intervalNanos = TimeUnit.SECONDS.toNanos(1) / recordsPerSecond;
        Properties props = new Properties();
        props.putAll(clientProps);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
        props.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "100");
        props.put(ProducerConfig.CLIENT_ID_CONFIG, name);
        this.producer = new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
        start();
    }

    @Override
    protected void run() {
        long next = System.nanoTime();
        for (long n = 0; running(); n++) {
            int partition = (int) (n % partitions);
            String tp = topic + "-" + partition;
            String value = name + "-" + n;
            history.record("send", name, "tp", tp, "v", value);
            try {
                producer.send(new ProducerRecord<>(topic, partition, null, value), (metadata, error) -> {
                    if (error == null) {
                        history.record("ack", name, "tp", tp, "v", value, "off", metadata.offset());
                    } else {
                        history.record("fail", name, "tp", tp, "v", value, "err", error.toString());
                    }
                });
            } catch (RuntimeException e) {
                // send() throws for a closed producer, a full buffer past max.block.ms, or a fatal error
                history.record("fail", name, "tp", tp, "v", value, "err", e.toString());
                if (!running()) {
                    return;
                }
            }
            next += intervalNanos;
            long wait = next - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            } else if (wait < -TimeUnit.SECONDS.toNanos(1)) {
                next = System.nanoTime(); // after a blocked send, no burst to catch up
            }
        }
    }

    /** Stops sending and waits for every outstanding send to be acknowledged or to fail. */
    void stop() throws InterruptedException {
        stopWithin(Duration.ofSeconds(60), "stop");
        producer.flush();
    }

    @Override
    public void close() {
        requestStop();
        producer.close(Duration.ofSeconds(30));
    }
}

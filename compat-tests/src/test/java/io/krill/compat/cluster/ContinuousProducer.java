package io.krill.compat.cluster;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A stock producer writing unique values ({@code <prefix>-<n>}, n counting up) round-robin over a topic's
 * partitions at a steady rate on its own thread, until stopped, recording every send, acknowledgement
 * and failure in {@link ProducedRecords}. The load that runs while tests kill and stop brokers.
 */
final class ContinuousProducer implements AutoCloseable {
    private final KafkaProducer<String, String> producer;
    private final String topic;
    private final int partitions;
    private final String prefix;
    private final long intervalNanos;
    private final ProducedRecords records = new ProducedRecords();
    private final Thread thread;
    private volatile boolean running = true;
    private volatile RuntimeException sendError;

    /** @param props producer settings (bootstrap, acks, idempotence, timeouts) */
    ContinuousProducer(Properties props, String topic, int partitions, String prefix, int recordsPerSecond) {
        this.producer = new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
        this.topic = topic;
        this.partitions = partitions;
        this.prefix = prefix;
        this.intervalNanos = TimeUnit.SECONDS.toNanos(1) / recordsPerSecond;
        this.thread = new Thread(this::run, "continuous-producer-" + topic);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    private void run() {
        long next = System.nanoTime();
        for (long n = 0; running; n++) {
            int partition = (int) (n % partitions);
            String value = prefix + "-" + n;
            records.sent(value);
            try {
                producer.send(new ProducerRecord<>(topic, partition, null, value), (metadata, error) -> {
                    if (error == null) {
                        records.acknowledged(metadata.partition(), metadata.offset(), value);
                    } else {
                        records.failed(partition, value, error);
                    }
                });
            } catch (RuntimeException e) {
                // send() itself throws only for a closed producer or a fatal client error
                sendError = e;
                return;
            }
            next += intervalNanos;
            long wait = next - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
        }
    }

    ProducedRecords records() {
        return records;
    }

    /** Waits until {@code more} records beyond those sent so far are sent (whether acknowledged or not). */
    void awaitSent(int more) {
        int target = records.sentCount() + more;
        await("producer of " + topic + " sent " + more + " more").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> records.sentCount() >= target);
    }

    /** Waits until {@code more} records beyond those acknowledged so far are acknowledged: the load goes on. */
    void awaitAcknowledged(int more) {
        int target = records.acknowledgedCount() + more;
        await("producer of " + topic + " acknowledged " + more + " more").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> records.acknowledgedCount() >= target);
    }

    /** Stops sending, waits for every outstanding send to be acknowledged or to fail, closes the producer. */
    ProducedRecords stop() {
        running = false;
        try {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while stopping the producer of " + topic, e);
        }
        if (thread.isAlive()) {
            throw new AssertionError("the producer of " + topic + " did not stop sending within 10 s");
        }
        producer.flush();
        producer.close(Duration.ofSeconds(30));
        if (sendError != null) {
            throw new AssertionError("send() threw", sendError);
        }
        return records;
    }

    @Override
    public void close() {
        running = false;
        producer.close(Duration.ofSeconds(5));
    }
}

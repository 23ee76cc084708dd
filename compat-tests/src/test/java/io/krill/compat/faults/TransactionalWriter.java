package io.krill.compat.faults;

import java.time.Duration;
import java.util.Properties;
import java.util.Random;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A transactional producer on its own thread: transaction after transaction of a few numbered values
 * ({@code <name>-<n>}) to random partitions, each then committed or aborted as a seeded coin says. What
 * the checker may demand of each transaction is recorded as its {@code txn-end} outcome:
 * <ul>
 *   <li>{@code committed}: commitTransaction returned, so every value must be read, once;
 *   <li>{@code aborted}: abortTransaction returned, or the transaction failed before its commit was ever
 *       asked (then no commit can happen: the next producer of this transactional id aborts it), so no
 *       value may be read under read_committed;
 *   <li>{@code unknown}: a commit was asked and did not return (a timeout, a lost coordinator): all values
 *       or none, but either.
 * </ul>
 * After an error the producer is closed and a new one with the same transactional id takes over (which
 * fences the old one and resolves its open transaction).
 */
final class TransactionalWriter extends WorkloadThread {
    private final History history;
    private final Properties props = new Properties();
    private final String name;
    private final String topic;
    private final int partitions;
    private final Random random;
    private final long pauseMillis;
    private KafkaProducer<String, String> producer;
    private long n;
    private long txn;

    TransactionalWriter(History history, Properties clientProps, String name, String topic, int partitions,
            long seed, int transactionsPerSecond) {
        super("txn-writer-" + name);
        this.history = history;
        this.name = name;
        this.topic = topic;
        this.partitions = partitions;
        this.random = new Random(seed);
        this.pauseMillis = 1000L / transactionsPerSecond;
        props.putAll(clientProps);
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "faults-" + name);
        props.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "20000");
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
        props.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "100");
        props.put(ProducerConfig.CLIENT_ID_CONFIG, name);
        start();
    }

    @Override
    protected void run() {
        while (running()) {
            try {
                if (producer == null) {
                    producer = new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
                    producer.initTransactions();
                }
                oneTransaction();
            } catch (KafkaException | IllegalStateException e) {
                history.record("txn-error", name, "txn", txn, "err", e.toString());
                closeProducer();
                pause(1000);
            }
            pause(pauseMillis);
        }
        closeProducer();
    }

    private void oneTransaction() {
        long id = ++txn;
        boolean commitAsked = false;
        try {
            producer.beginTransaction();
            int size = 1 + random.nextInt(4);
            for (int i = 0; i < size; i++) {
                int partition = random.nextInt(partitions);
                String tp = topic + "-" + partition;
                String value = name + "-" + n++;
                history.record("send", name, "tp", tp, "v", value, "txn", id);
                producer.send(new ProducerRecord<>(topic, partition, null, value), (metadata, error) -> {
                    if (error == null) {
                        history.record("ack", name, "tp", tp, "v", value, "off", metadata.offset(), "txn", id);
                    } else {
                        history.record("fail", name, "tp", tp, "v", value, "txn", id, "err", error.toString());
                    }
                });
            }
            if (random.nextInt(10) < 7) {
                commitAsked = true;
                commitWithRetries();
                history.record("txn-end", name, "txn", id, "outcome", "committed");
            } else {
                producer.abortTransaction();
                history.record("txn-end", name, "txn", id, "outcome", "aborted");
            }
        } catch (KafkaException | IllegalStateException e) {
            history.record("txn-end", name, "txn", id, "outcome", commitAsked ? "unknown" : "aborted",
                    "err", e.toString());
            throw e;
        }
    }

    /** A commit that timed out may be asked again (the client resumes the same EndTxn). */
    private void commitWithRetries() {
        for (int attempt = 1; ; attempt++) {
            try {
                producer.commitTransaction();
                return;
            } catch (TimeoutException e) {
                if (attempt == 3 || !running()) {
                    throw e;
                }
            }
        }
    }

    private void closeProducer() {
        if (producer != null) {
            try {
                producer.close(Duration.ZERO);
            } catch (RuntimeException e) {
                // closing a broken producer
            }
            producer = null;
        }
    }

    /** Finishes the transaction under way and stops. */
    void stop() throws InterruptedException {
        stopWithin(Duration.ofSeconds(120), "finish its transaction and stop");
    }

    @Override
    public void close() {
        closeWithin(Duration.ofSeconds(5));
    }
}

package io.krill.compat.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker of the transaction coordinator is killed with SIGKILL while a transactional producer commits
 * transaction after transaction: every transaction ends whole or not at all. A read_committed consumer
 * sees each transaction's ten records all together or none of them, sees every transaction whose commit
 * returned, and sees no record twice; the producer carries on with the new coordinator.
 */
class TransactionCoordinatorFailoverTest {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionCoordinatorFailoverTest.class);
    private static final String TOPIC = "txn-failover";
    private static final String TRANSACTIONAL_ID = "txn-failover-producer";
    private static final int PARTITIONS = 3;
    private static final int RECORDS_PER_TRANSACTION = 10;

    @RegisterExtension
    static final KrillClusterExtension CLUSTER = new KrillClusterExtension(3)
            .with("transaction.state.log.num.partitions", "3")
            .with("transaction.state.log.min.isr", "2");

    /** Runs transactions until stopped; remembers which ones returned from commit. */
    private static final class TransactionLoop implements Runnable {
        final Set<Integer> committed = ConcurrentHashMap.newKeySet();
        final AtomicInteger attempted = new AtomicInteger();
        final AtomicInteger reinitialised = new AtomicInteger();
        final AtomicBoolean running = new AtomicBoolean(true);
        private final Properties props;
        volatile Throwable failure;

        TransactionLoop(Properties props) {
            this.props = props;
        }

        @Override
        public void run() {
            KafkaProducer<String, String> producer = null;
            try {
                while (running.get()) {
                    if (producer == null) {
                        producer = new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
                        producer.initTransactions();
                    }
                    int txn = attempted.getAndIncrement();
                    try {
                        producer.beginTransaction();
                        for (int i = 0; i < RECORDS_PER_TRANSACTION; i++) {
                            producer.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, "t" + txn, txn + "-" + i));
                        }
                        producer.commitTransaction();
                        committed.add(txn);
                    } catch (ProducerFencedException e) {
                        throw e;
                    } catch (KafkaException e) {
                        // The coordinator died under the commit: this transaction's outcome is unknown to
                        // us (it may have committed). Start over with a fresh producer, as applications do.
                        LOG.info("transaction {} ended with {}; re-initialising", txn, e.toString());
                        producer.close(Duration.ZERO);
                        producer = null;
                        reinitialised.incrementAndGet();
                    }
                }
            } catch (Throwable e) {
                failure = e;
            } finally {
                if (producer != null) {
                    producer.close(Duration.ofSeconds(30));
                }
            }
        }
    }

    @Test
    void transactionsAreWholeOrAbsentAcrossACoordinatorCrash() throws Exception {
        KrillCluster cluster = CLUSTER.cluster();
        cluster.createTopic(TOPIC, PARTITIONS, 3, Map.of("min.insync.replicas", "2"));
        Properties props = cluster.clientProperties();
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, TRANSACTIONAL_ID);
        props.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "20000");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "60000");
        props.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "100");

        TransactionLoop loop = new TransactionLoop(props);
        Thread thread = new Thread(loop, "transaction-loop");
        thread.start();
        int killed;
        try {
            await("first transactions").atMost(Duration.ofSeconds(60))
                    .until(() -> loop.committed.size() >= 20 || loop.failure != null);
            killed = coordinator(cluster.admin());
            int before = loop.committed.size();
            cluster.kill9(killed);
            LOG.info("killed broker {}, the coordinator of {}, after {} commits", killed, TRANSACTIONAL_ID, before);
            await("transactions commit again with the new coordinator").atMost(Duration.ofSeconds(120))
                    .until(() -> loop.committed.size() >= before + 20 || loop.failure != null);
            cluster.start(killed);
            int afterRestart = loop.committed.size();
            await("and after the old coordinator's broker is back").atMost(Duration.ofSeconds(60))
                    .until(() -> loop.committed.size() >= afterRestart + 10 || loop.failure != null);
        } finally {
            loop.running.set(false);
            thread.join(Duration.ofSeconds(90).toMillis());
        }
        assertFalse(thread.isAlive(), "the transaction loop did not stop within 90 s");
        assertEquals(null, loop.failure, "the producer was never fenced or broken for good");
        LOG.info("coordinator moved from broker {} to {}", killed, coordinator(cluster.admin()));

        Map<Integer, List<String>> byTransaction = readCommitted(cluster);
        for (Map.Entry<Integer, List<String>> txn : byTransaction.entrySet()) {
            assertEquals(RECORDS_PER_TRANSACTION, txn.getValue().size(), "transaction " + txn.getKey()
                    + " is whole, once: " + txn.getValue());
            assertEquals(RECORDS_PER_TRANSACTION, Set.copyOf(txn.getValue()).size(), "no record twice");
        }
        for (int txn : loop.committed) {
            assertTrue(byTransaction.containsKey(txn), "committed transaction " + txn + " is readable");
        }
        LOG.info("{} transactions attempted, {} committed, {} readable, producer re-initialised {} times",
                loop.attempted.get(), loop.committed.size(), byTransaction.size(), loop.reinitialised.get());
    }

    /** The broker coordinating the transactional id (the cluster's shared Admin: not closed here). */
    private static int coordinator(Admin admin) throws Exception {
        return admin.describeTransactions(List.of(TRANSACTIONAL_ID)).description(TRANSACTIONAL_ID).get(60, TimeUnit.SECONDS)
                .coordinatorId();
    }

    /** Every partition from the start to its last stable offset, read_committed; values grouped by transaction. */
    private static Map<Integer, List<String>> readCommitted(KrillCluster cluster) {
        Properties props = cluster.clientProperties();
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            tps.add(new TopicPartition(TOPIC, p));
        }
        Map<Integer, List<String>> byTransaction = new TreeMap<>();
        Properties uncommittedProps = cluster.clientProperties();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                new StringDeserializer());
             KafkaConsumer<String, String> uncommitted = new KafkaConsumer<>(uncommittedProps,
                     new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            Map<TopicPartition, Long> end = new HashMap<>();
            // The last stable offsets reach the high watermarks once no transaction is left open (a
            // transaction cut off by the crash is aborted by the new coordinator, at the latest on timeout).
            await("no transaction left open").atMost(Duration.ofSeconds(60)).until(() -> {
                Map<TopicPartition, Long> stable = consumer.endOffsets(tps, Duration.ofSeconds(10));
                end.clear();
                end.putAll(stable);
                return stable.equals(uncommitted.endOffsets(tps, Duration.ofSeconds(10)));
            });
            await("read to the last stable offsets " + end).atMost(Duration.ofSeconds(60)).until(() -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    int txn = Integer.parseInt(r.value().substring(0, r.value().indexOf('-')));
                    byTransaction.computeIfAbsent(txn, k -> new ArrayList<>()).add(r.value());
                }
                return tps.stream().allMatch(tp -> consumer.position(tp) >= end.get(tp));
            });
        }
        return byTransaction;
    }
}

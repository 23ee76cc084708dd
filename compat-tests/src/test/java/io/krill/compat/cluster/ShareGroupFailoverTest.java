package io.krill.compat.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Share groups (KIP-932) across broker crashes: stock KafkaShareConsumers, two with implicit and two with
 * explicit acknowledgement, consume a replicated topic (replication factor 3, min.insync.replicas 2) while
 * a producer writes to it, and one broker at a time is killed with SIGKILL and restarted: the leader of a
 * partition, then the group coordinator, then the share coordinator of a share-partition. At the end every
 * record of the log has been accepted exactly once by an acknowledgement whose commit succeeded (the
 * AcknowledgementCommitCallback or commitSync said so): none accepted twice successfully, none left out.
 * Redeliveries are allowed (acquisitions die with a leader; a new leader may hand a record out again with the
 * same delivery count, since acquisitions are not written); they are counted. Excused, and reported: a record
 * whose only accept got no answer because its leader was killed under it, and that the share-partition has
 * since moved past (the broker applied that accept, as it may apply a produce request whose answer was lost).
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ShareGroupFailoverTest {
    private static final Logger LOG = LoggerFactory.getLogger(ShareGroupFailoverTest.class);
    private static final String TOPIC = "share-failover";
    private static final String GROUP = "share-failover-group";
    private static final int PARTITIONS = 4;

    @RegisterExtension
    static final KrillClusterExtension CLUSTER = new KrillClusterExtension(3)
            .with("offsets.topic.num.partitions", "6")
            .with("share.coordinator.state.topic.num.partitions", "6")
            .with("share.coordinator.state.topic.replication.factor", "3")
            .with("share.coordinator.state.topic.min.isr", "2");

    /** A record of the log: partition and offset. */
    record Key(int partition, long offset) implements Comparable<Key> {
        @Override
        public int compareTo(Key o) {
            return partition != o.partition ? Integer.compare(partition, o.partition) : Long.compare(offset, o.offset);
        }

        @Override
        public String toString() {
            return partition + "@" + offset;
        }
    }

    /** What every consumer saw and was told, for the whole run. Thread-safe. */
    static final class Ledger {
        final Map<Key, String> values = new ConcurrentHashMap<>();
        final Map<Key, List<String>> deliveries = new ConcurrentHashMap<>();
        final Map<Key, List<String>> accepted = new ConcurrentHashMap<>();
        final Map<Key, List<String>> failedAccepts = new ConcurrentHashMap<>();
        final AtomicInteger acceptedCount = new AtomicInteger();
        final AtomicInteger redeliveries = new AtomicInteger();
        final Map<String, AtomicInteger> errors = new ConcurrentHashMap<>();

        void delivered(String consumer, ConsumerRecord<String, String> r) {
            Key key = new Key(r.partition(), r.offset());
            values.put(key, r.value());
            short count = r.deliveryCount().orElse((short) -1);
            if (count > 1) {
                redeliveries.incrementAndGet();
            }
            deliveries.computeIfAbsent(key, k -> Collections.synchronizedList(new ArrayList<>()))
                    .add(java.time.LocalTime.now() + " " + consumer + "#" + count);
        }

        /** When the test last killed a broker (System.nanoTime), or 0. */
        volatile long lastKill;

        /** Keys whose accepts all failed, each failure without an answer from the broker. */
        final Set<Key> unanswered = ConcurrentHashMap.newKeySet();
        /** Keys with a failed accept that the broker answered with an error. */
        final Set<Key> answeredWithError = ConcurrentHashMap.newKeySet();

        void outcome(String consumer, int partition, Set<Long> offsets, Exception error) {
            for (long offset : offsets) {
                Key key = new Key(partition, offset);
                if (error == null) {
                    accepted.computeIfAbsent(key, k -> Collections.synchronizedList(new ArrayList<>())).add(consumer);
                    acceptedCount.incrementAndGet();
                } else {
                    (noAnswer(error, lastKill) ? unanswered : answeredWithError).add(key);
                    failedAccepts.computeIfAbsent(key, k -> Collections.synchronizedList(new ArrayList<>()))
                            .add(java.time.LocalTime.now() + " " + consumer + ": " + error);
                }
            }
            if (error != null) {
                errors.computeIfAbsent(error.getClass().getSimpleName(), e -> new AtomicInteger())
                        .addAndGet(offsets.size());
            }
        }

        /**
         * An acknowledgement that got no answer (the connection broke, or the client's deadline passed): the
         * broker may or may not have applied it, as a produce request without an answer may have been
         * written (the leader's write of the share-partition's state goes on at the share coordinator after
         * the leader died). An error answer is different: the broker says it did not apply it.
         *
         * <p>Kafka 4.4's client reports a ShareAcknowledge request that failed without an answer (commitSync's
         * acknowledgements to a leader that was killed) as UnknownServerException: it maps the failure with
         * {@code Errors.forException}, which knows no DisconnectException. So an UnknownServerException within
         * a few seconds of a kill counts as no answer too.
         */
        static boolean noAnswer(Exception error, long lastKill) {
            return error instanceof org.apache.kafka.common.errors.DisconnectException
                    || error instanceof org.apache.kafka.common.errors.NetworkException
                    || error instanceof org.apache.kafka.common.errors.TimeoutException
                    || error instanceof org.apache.kafka.common.errors.UnknownServerException && lastKill != 0
                            && System.nanoTime() - lastKill < TimeUnit.SECONDS.toNanos(5);
        }

        String history(Key key) {
            return key + " " + values.get(key) + " delivered " + deliveries.getOrDefault(key, List.of())
                    + ", accepted by " + accepted.getOrDefault(key, List.of()) + ", failed accepts "
                    + failedAccepts.getOrDefault(key, List.of());
        }
    }

    /**
     * One KafkaShareConsumer on its own thread, accepting every record. Implicit: the outcomes come through
     * the AcknowledgementCommitCallback. Explicit: acknowledge(ACCEPT) each record, then commitSync, whose
     * per-partition results are the outcomes. A consumer whose poll throws is logged and carries on; one
     * that fails for good is replaced.
     */
    static final class ShareWorker implements AutoCloseable {
        final String name;
        final boolean explicit;
        final Ledger ledger;
        final Properties props;
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicInteger pollErrors = new AtomicInteger();
        final Thread thread;
        volatile Throwable failure;

        ShareWorker(String name, boolean explicit, Properties props, Ledger ledger) {
            this.name = name;
            this.explicit = explicit;
            this.ledger = ledger;
            this.props = props;
            this.thread = new Thread(this::run, "share-worker-" + name);
            this.thread.start();
        }

        private void run() {
            try {
                while (!stop.get()) {
                    try (KafkaShareConsumer<String, String> consumer = newConsumer()) {
                        consumer.subscribe(List.of(TOPIC));
                        loop(consumer);
                    } catch (RuntimeException e) {
                        LOG.warn("{}: share consumer failed ({}); starting a new one", name, e.toString());
                        pollErrors.incrementAndGet();
                    }
                }
            } catch (Throwable e) {
                failure = e;
            }
        }

        private KafkaShareConsumer<String, String> newConsumer() {
            Properties p = new Properties();
            p.putAll(props);
            p.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
            p.put("share.acknowledgement.mode", explicit ? "explicit" : "implicit");
            KafkaShareConsumer<String, String> consumer = new KafkaShareConsumer<>(p, new StringDeserializer(),
                    new StringDeserializer());
            if (!explicit) {
                consumer.setAcknowledgementCommitCallback((offsets, error) -> offsets.forEach((tip, set) ->
                        ledger.outcome(name, tip.partition(), set, error)));
            }
            return consumer;
        }

        private void loop(KafkaShareConsumer<String, String> consumer) {
            int consecutiveErrors = 0;
            while (!stop.get()) {
                ConsumerRecords<String, String> records;
                try {
                    records = consumer.poll(Duration.ofMillis(200));
                    consecutiveErrors = 0;
                } catch (KafkaException e) {
                    pollErrors.incrementAndGet();
                    LOG.info("{}: poll threw {}", name, e.toString());
                    if (++consecutiveErrors >= 20) {
                        throw e;
                    }
                    continue;
                }
                Map<Integer, Set<Long>> batch = new HashMap<>();
                for (ConsumerRecord<String, String> r : records) {
                    ledger.delivered(name, r);
                    if (explicit) {
                        consumer.acknowledge(r, AcknowledgeType.ACCEPT);
                        batch.computeIfAbsent(r.partition(), p -> new java.util.TreeSet<>()).add(r.offset());
                    }
                }
                if (explicit && !batch.isEmpty()) {
                    Map<TopicIdPartition, Optional<KafkaException>> results;
                    try {
                        results = consumer.commitSync(Duration.ofSeconds(15));
                    } catch (KafkaException e) {
                        batch.forEach((p, offsets) -> ledger.outcome(name, p, offsets, e));
                        continue;
                    }
                    Map<Integer, Optional<KafkaException>> byPartition = new HashMap<>();
                    results.forEach((tip, result) -> byPartition.put(tip.partition(), result));
                    batch.forEach((p, offsets) -> {
                        Optional<KafkaException> result = byPartition.get(p);
                        Exception error = result == null
                                ? new IllegalStateException("commitSync returned no result for partition " + p)
                                : result.orElse(null);
                        ledger.outcome(name, p, offsets, error);
                    });
                }
            }
        }

        @Override
        public void close() throws InterruptedException {
            stop.set(true);
            thread.join(60_000);
        }
    }

    @Test
    void everyRecordIsAcceptedExactlyOnceAcrossLeaderAndCoordinatorCrashes() throws Exception {
        KrillCluster cluster = CLUSTER.cluster();
        cluster.createTopic(TOPIC, PARTITIONS, 3, Map.of("min.insync.replicas", "2"));
        List<AlterConfigOp> groupConfigs = List.of(
                new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET),
                new AlterConfigOp(new ConfigEntry("share.record.lock.duration.ms", "15000"), AlterConfigOp.OpType.SET),
                new AlterConfigOp(new ConfigEntry("share.delivery.count.limit", "10"), AlterConfigOp.OpType.SET));
        cluster.admin().incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, GROUP),
                groupConfigs)).all().get(30, TimeUnit.SECONDS);

        Properties producerProps = cluster.clientProperties();
        producerProps.put(ProducerConfig.ACKS_CONFIG, "all");
        producerProps.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        producerProps.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        producerProps.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
        producerProps.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "100");
        Properties consumerProps = cluster.clientProperties();
        consumerProps.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
        consumerProps.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "50");

        Ledger ledger = new Ledger();
        List<ShareWorker> workers = new ArrayList<>();
        List<String> crashes = new ArrayList<>();
        Map<Key, String> log;
        try {
            ProducedRecords produced;
            try (ContinuousProducer producer = new ContinuousProducer(producerProps, TOPIC, PARTITIONS, "share", 200)) {
                for (int i = 0; i < 4; i++) {
                    workers.add(new ShareWorker((i % 2 == 0 ? "implicit-" : "explicit-") + i, i % 2 == 1,
                            consumerProps, ledger));
                }
                awaitAccepted(ledger, workers, 300, "consumption under way");

                // 1. The leader of a partition (one that is not the group coordinator, if there is one).
                int groupCoordinator = groupCoordinator(cluster);
                int victim = -1;
                for (int p = 0; p < PARTITIONS && victim < 0; p++) {
                    int leader = cluster.leaderOf(TOPIC, p);
                    if (leader != groupCoordinator) {
                        victim = leader;
                        crashes.add("leader " + leader + " of partition " + p);
                    }
                }
                if (victim < 0) {
                    victim = cluster.leaderOf(TOPIC, 0);
                    crashes.add("leader " + victim + " of partition 0 (also the group coordinator)");
                }
                crashAndRestart(cluster, victim, ledger, workers, producer);

                // 2. The group coordinator.
                int coordinator = groupCoordinator(cluster);
                crashes.add("group coordinator " + coordinator);
                crashAndRestart(cluster, coordinator, ledger, workers, producer);

                // 3. The share coordinator of share-partition 0 (after 2, maybe another broker than before).
                int shareCoordinator = shareCoordinator(cluster, 0);
                crashes.add("share coordinator " + shareCoordinator + " of " + GROUP + ":" + TOPIC + ":0");
                crashAndRestart(cluster, shareCoordinator, ledger, workers, producer);

                produced = producer.stop();
            }

            log = readLog(cluster);
            assertTrue(produced.failures().isEmpty(), "acks=all idempotent sends all succeed: "
                    + produced.failures().stream().limit(5).toList());
            Set<String> inLog = Set.copyOf(log.values());
            List<String> lost = produced.acks().values().stream().flatMap(List::stream)
                    .map(ProducedRecords.Ack::value).filter(v -> !inLog.contains(v)).limit(10).toList();
            assertEquals(List.of(), lost, "acknowledged records missing from the log");
            Map<Integer, Long> end = new TreeMap<>();
            log.keySet().forEach(k -> end.merge(k.partition(), k.offset() + 1, Math::max));
            // Done when every record was accepted, or when the share-partitions start at the log end (nothing
            // is left to deliver: a record accepted without the client hearing so would otherwise keep us here).
            await("every record accepted, or every share-partition at the log end " + end)
                    .atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
                    .until(() -> workers.stream().anyMatch(w -> w.failure != null)
                            || ledger.accepted.keySet().containsAll(log.keySet())
                            || startOffsets(cluster).equals(end));
        } finally {
            for (ShareWorker w : workers) {
                w.close();
            }
        }
        for (ShareWorker w : workers) {
            assertEquals(null, w.failure, w.name + " failed");
            assertTrue(!w.thread.isAlive(), w.name + " did not stop");
        }

        List<Key> twice = new ArrayList<>();
        List<Key> missing = new ArrayList<>();
        List<Key> unknown = new ArrayList<>();
        for (Key key : new TreeMap<>(log).keySet()) {
            int n = ledger.accepted.getOrDefault(key, List.of()).size();
            if (n > 1) {
                twice.add(key);
            } else if (n == 0) {
                missing.add(key);
            }
        }
        for (Key key : ledger.accepted.keySet()) {
            if (!log.containsKey(key)) {
                unknown.add(key);
            }
        }
        Map<Integer, Long> deliveredMoreThanOnce = new TreeMap<>();
        ledger.deliveries.forEach((k, d) -> {
            if (d.size() > 1) {
                deliveredMoreThanOnce.merge(k.partition(), 1L, Long::sum);
            }
        });
        long onlyFailedAttempts = missing.stream().filter(ledger.failedAccepts::containsKey).count();
        long neverDelivered = missing.stream().filter(k -> !ledger.deliveries.containsKey(k)).count();
        // Missing but excusable: every accept of it failed without an answer (the leader died under it), and
        // the share-partition has moved past it (the wait above ended so), so the broker did apply one of them.
        List<Key> ambiguous = missing.stream().filter(k -> ledger.unanswered.contains(k)
                && !ledger.answeredWithError.contains(k)).toList();
        List<Key> lost = missing.stream().filter(k -> !ambiguous.contains(k)).toList();
        String summary = String.format("%d records in the log, %d never accepted successfully (%d of them never"
                        + " delivered, %d with failed accepts only, %d of them only unanswered ones: %s),"
                        + " %d successful accepts, %d deliveries with delivery"
                        + " count > 1, records delivered more than once by partition %s, failed accepts by error %s,"
                        + " poll errors %s; crashes: %s; share-partition start offsets %s; records with an error"
                        + " answer: %s",
                log.size(), missing.size(), neverDelivered, onlyFailedAttempts, ambiguous.size(),
                histories(ledger, ambiguous), ledger.acceptedCount.get(),
                ledger.redeliveries.get(), deliveredMoreThanOnce,
                ledger.errors, workers.stream().collect(Collectors.toMap(w -> w.name, w -> w.pollErrors.get())),
                crashes, startOffsetsOrError(cluster),
                histories(ledger, ledger.answeredWithError.stream().sorted().toList()));
        LOG.info("share failover: {}", summary);
        assertEquals(List.of(), histories(ledger, twice), "records accepted successfully more than once; " + summary);
        assertEquals(List.of(), histories(ledger, unknown), "accepted records not in the log; " + summary);
        assertEquals(List.of(), histories(ledger, lost), "records never accepted successfully; " + summary);
    }

    private static List<String> histories(Ledger ledger, List<Key> keys) {
        return keys.stream().limit(20).map(ledger::history).toList();
    }

    /** Kills {@code id} (SIGKILL), sees consumption go on without it, restarts it, sees consumption go on. */
    private static void crashAndRestart(KrillCluster cluster, int id, Ledger ledger, List<ShareWorker> workers,
            ContinuousProducer producer) throws Exception {
        LOG.info("share failover: killing broker {} after {} accepts", id, ledger.acceptedCount.get());
        ledger.lastKill = System.nanoTime();
        cluster.kill9(id);
        // the broker's roles move: no partition of the topic led by it, nor the group or share coordinator
        await("partitions and group coordinator moved off broker " + id).atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                .until(() -> java.util.stream.IntStream.range(0, PARTITIONS)
                        .allMatch(p -> cluster.leaderOf(TOPIC, p) != id && cluster.leaderOf(TOPIC, p) >= 0)
                        && groupCoordinator(cluster) != id && shareCoordinator(cluster, 0) != id);
        producer.awaitAcknowledged(200);
        awaitAccepted(ledger, workers, 300, "accepts go on without broker " + id);
        cluster.start(id);
        cluster.awaitFullIsr(TOPIC, Duration.ofSeconds(60));
        awaitAccepted(ledger, workers, 300, "accepts go on after broker " + id + " is back");
    }

    private static void awaitAccepted(Ledger ledger, List<ShareWorker> workers, int more, String what) {
        int target = ledger.acceptedCount.get() + more;
        await(what + " (" + more + " more accepts)").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .until(() -> ledger.acceptedCount.get() >= target || workers.stream().anyMatch(w -> w.failure != null));
        for (ShareWorker w : workers) {
            assertEquals(null, w.failure, w.name + " failed");
        }
    }

    /** The group coordinator, as Admin describeShareGroups names it. */
    private static int groupCoordinator(KrillCluster cluster) {
        return await("the group coordinator").atMost(Duration.ofSeconds(30)).ignoreExceptions()
                .until(() -> cluster.admin().describeShareGroups(List.of(GROUP)).describedGroups().get(GROUP)
                        .get(10, TimeUnit.SECONDS).coordinator().id(), id -> id >= 0);
    }

    /** The share coordinator of share-partition {@code GROUP:TOPIC:partition}: FindCoordinator key type SHARE. */
    private static int shareCoordinator(KrillCluster cluster, int partition) throws Exception {
        String topicId = cluster.admin().describeTopics(List.of(TOPIC)).topicNameValues().get(TOPIC)
                .get(30, TimeUnit.SECONDS).topicId().toString();
        String key = GROUP + ":" + topicId + ":" + partition;
        return await("share coordinator of " + key).atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
            String address = cluster.bootstrapServers(cluster.liveBrokers().get(0));
            FindCoordinatorResponse response = RawRequests.send(address, new FindCoordinatorRequest.Builder(
                    new FindCoordinatorRequestData().setKeyType(FindCoordinatorRequest.CoordinatorType.SHARE.id())
                            .setCoordinatorKeys(List.of(key))), (short) 6);
            FindCoordinatorResponseData.Coordinator c = response.data().coordinators().get(0);
            if (c.errorCode() != Errors.NONE.code()) {
                throw new IllegalStateException("FindCoordinator " + key + ": " + Errors.forCode(c.errorCode()));
            }
            return c.nodeId();
        }, id -> id >= 0);
    }

    /** Admin listShareGroupOffsets: the start offset of each share-partition of the topic. */
    private static Map<Integer, Long> startOffsets(KrillCluster cluster) throws Exception {
        Map<TopicPartition, SharePartitionOffsetInfo> info = cluster.admin()
                .listShareGroupOffsets(Map.of(GROUP, new ListShareGroupOffsetsSpec()))
                .partitionsToOffsetInfo(GROUP).get(10, TimeUnit.SECONDS);
        Map<Integer, Long> result = new TreeMap<>();
        info.forEach((tp, i) -> {
            if (tp.topic().equals(TOPIC) && i != null) {
                result.put(tp.partition(), i.startOffset());
            }
        });
        return result;
    }

    private static String startOffsetsOrError(KrillCluster cluster) {
        try {
            return startOffsets(cluster).toString();
        } catch (Exception e) {
            return "(" + e + ")";
        }
    }

    /** Every record of the topic, read from the beginning to the end offsets with a plain consumer. */
    private static Map<Key, String> readLog(KrillCluster cluster) {
        Properties props = cluster.clientProperties();
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            tps.add(new TopicPartition(TOPIC, p));
        }
        Map<Key, String> log = new HashMap<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                new StringDeserializer())) {
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            Map<TopicPartition, Long> end = consumer.endOffsets(tps, Duration.ofSeconds(20));
            await("read the log to " + end).atMost(Duration.ofSeconds(60)).until(() -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    log.put(new Key(r.partition(), r.offset()), r.value());
                }
                return tps.stream().allMatch(tp -> consumer.position(tp) >= end.get(tp));
            });
        }
        return log;
    }
}

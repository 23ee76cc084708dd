package io.krill.compat.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A KIP-848 consumer group across a crash of its coordinator: two stock 4.4 consumers
 * ({@code group.protocol=consumer}) consume a replicated topic while a producer writes to it, committing
 * after processing each poll; the group coordinator's broker is killed with SIGKILL, then restarted.
 * What Kafka promises: every acknowledged record is consumed at least once, in order within its
 * partition, and no committed offset goes backwards. What the group's records in {@code __consumer_offsets}
 * add: the new coordinator has the group Stable with the same members, epochs and assignments, so the
 * consumers go on without a rebalance (no partition revoked or lost). A third consumer joins and leaves
 * before the crash: the group epoch is past what two joins give, and the member who left stays gone.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ConsumerGroupFailoverTest {
    private static final Logger LOG = LoggerFactory.getLogger(ConsumerGroupFailoverTest.class);
    private static final String TOPIC = "group-failover";
    private static final String GROUP = "group-failover-group";
    private static final int PARTITIONS = 6;

    @RegisterExtension
    static final KrillClusterExtension CLUSTER = new KrillClusterExtension(3)
            .with("offsets.topic.num.partitions", "3")
            .with("offsets.topic.replication.factor", "3")
            .with("group.consumer.min.heartbeat.interval.ms", "500")
            .with("group.consumer.heartbeat.interval.ms", "1000");

    /** A rebalance callback a consumer got: its kind, the partitions, and whether it came after the crash. */
    record Callback(String consumer, String kind, Set<Integer> partitions, boolean afterKill) {
    }

    /** What the consumers saw, for the whole run. Thread-safe. */
    static final class Seen {
        /** Every record consumed, by partition and offset, with its value (a record consumed twice is kept once). */
        final Map<Integer, Map<Long, String>> consumed = new ConcurrentHashMap<>();
        final AtomicInteger consumedCount = new AtomicInteger();
        final List<Callback> callbacks = Collections.synchronizedList(new ArrayList<>());
        /** Offsets of a partition delivered at or before the previous one without a new assignment between. */
        final List<String> outOfOrder = Collections.synchronizedList(new ArrayList<>());
        /** Commits whose offset for a partition was below one committed (successfully) before. */
        final List<String> backwardCommits = Collections.synchronizedList(new ArrayList<>());
        final Map<Integer, Long> committed = new ConcurrentHashMap<>();
        final List<String> commitFailures = Collections.synchronizedList(new ArrayList<>());
        final AtomicInteger commitRetriableFailures = new AtomicInteger();
        volatile boolean killed;

        void consumed(ConsumerRecord<String, String> r) {
            consumed.computeIfAbsent(r.partition(), p -> new ConcurrentHashMap<>()).put(r.offset(), r.value());
            consumedCount.incrementAndGet();
        }

        /** Takes a successful commit; synchronized so that two consumers' commits of one partition are ordered. */
        synchronized void committed(String consumer, Map<TopicPartition, OffsetAndMetadata> offsets) {
            offsets.forEach((tp, o) -> {
                Long before = committed.put(tp.partition(), o.offset());
                if (before != null && before > o.offset()) {
                    backwardCommits.add(consumer + " committed " + tp + " at " + o.offset() + " after " + before);
                }
            });
        }

        List<Callback> callbacksAfterKill() {
            synchronized (callbacks) {
                return callbacks.stream().filter(Callback::afterKill).toList();
            }
        }
    }

    /**
     * One KafkaConsumer polling on its own thread: it checks each partition's offsets grow between
     * assignments, records its rebalance callbacks, and commits what it processed after each poll. A poll
     * that throws ends it ({@link #failure}): the stock consumer rides a coordinator move out by itself.
     */
    static final class Worker implements AutoCloseable {
        final String name;
        final Seen seen;
        final AtomicBoolean stop = new AtomicBoolean();
        final Thread thread;
        final Map<Integer, Long> lastOffset = new HashMap<>(); // the consumer thread's only
        volatile Set<Integer> owned = Set.of();
        volatile Throwable failure;
        private final Properties props;

        Worker(String name, Properties props, Seen seen) {
            this.name = name;
            this.props = props;
            this.seen = seen;
            this.thread = new Thread(this::run, "group-worker-" + name);
            this.thread.start();
        }

        private void run() {
            Properties p = new Properties();
            p.putAll(props);
            p.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p, new StringDeserializer(),
                    new StringDeserializer())) {
                consumer.subscribe(List.of(TOPIC), new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                        callback("revoked", partitions);
                    }

                    @Override
                    public void onPartitionsLost(Collection<TopicPartition> partitions) {
                        callback("lost", partitions);
                    }

                    @Override
                    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                        partitions.forEach(tp -> lastOffset.remove(tp.partition())); // it starts at the committed offset
                        callback("assigned", partitions);
                    }
                });
                Map<TopicPartition, OffsetAndMetadata> processed = new HashMap<>();
                while (!stop.get()) {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                        Long last = lastOffset.put(r.partition(), r.offset());
                        if (last != null && r.offset() <= last) {
                            seen.outOfOrder.add(name + ": partition " + r.partition() + " offset " + r.offset()
                                    + " after " + last);
                        }
                        seen.consumed(r);
                        processed.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
                    }
                    owned = consumer.assignment().stream().map(TopicPartition::partition).collect(Collectors.toSet());
                    if (!processed.isEmpty() && commit(consumer, processed)) {
                        processed.clear();
                    }
                }
            } catch (Throwable e) {
                failure = e;
            }
        }

        /** Commits {@code offsets}; whether they are done with (committed, or refused and recorded). */
        private boolean commit(KafkaConsumer<String, String> consumer, Map<TopicPartition, OffsetAndMetadata> offsets) {
            try {
                consumer.commitSync(offsets, Duration.ofSeconds(30));
                seen.committed(name, offsets);
            } catch (RetriableException e) {
                // no answer within the deadline, e.g. while the coordinator moves: committed again after the next poll
                seen.commitRetriableFailures.incrementAndGet();
                return false;
            } catch (org.apache.kafka.common.KafkaException e) {
                seen.commitFailures.add(name + ": " + e);
            }
            return true;
        }

        private void callback(String kind, Collection<TopicPartition> partitions) {
            if (!stop.get() && !partitions.isEmpty()) {
                Set<Integer> ps = partitions.stream().map(TopicPartition::partition).collect(Collectors.toCollection(TreeSet::new));
                seen.callbacks.add(new Callback(name, kind, ps, seen.killed));
                LOG.info("{}: partitions {} {}{}", name, kind, ps, seen.killed ? " (after the crash)" : "");
            }
        }

        @Override
        public void close() throws InterruptedException {
            stop.set(true);
            thread.join(60_000);
        }
    }

    /** The group as described before and after the crash: epochs, members and their assignments. */
    record GroupView(int coordinator, GroupState state, int groupEpoch, Map<String, Integer> memberEpochs,
                     Map<String, Set<Integer>> assignments, Map<String, Set<Integer>> targets) {
        static GroupView of(ConsumerGroupDescription d) {
            Map<String, Integer> epochs = new TreeMap<>();
            Map<String, Set<Integer>> assignments = new TreeMap<>();
            Map<String, Set<Integer>> targets = new TreeMap<>();
            for (MemberDescription m : d.members()) {
                epochs.put(m.consumerId(), m.memberEpoch().orElse(-1));
                assignments.put(m.consumerId(), partitions(m.assignment().topicPartitions()));
                targets.put(m.consumerId(), m.targetAssignment().map(a -> partitions(a.topicPartitions()))
                        .orElse(Set.of()));
            }
            return new GroupView(d.coordinator().id(), d.groupState(), d.groupEpoch().orElse(-1), epochs,
                    assignments, targets);
        }

        private static Set<Integer> partitions(Set<TopicPartition> tps) {
            return tps.stream().filter(tp -> tp.topic().equals(TOPIC)).map(TopicPartition::partition)
                    .collect(Collectors.toCollection(TreeSet::new));
        }

        /** Stable with {@code members} members, each owning its target and all partitions owned. */
        boolean settled(int members) {
            return state == GroupState.STABLE && assignments.size() == members && assignments.equals(targets)
                    && assignments.values().stream().mapToInt(Set::size).sum() == PARTITIONS
                    && memberEpochs.values().stream().allMatch(e -> e == groupEpoch);
        }
    }

    @Test
    void membersEpochsAndAssignmentsSurviveACoordinatorCrash() throws Exception {
        KrillCluster cluster = CLUSTER.cluster();
        cluster.createTopic(TOPIC, PARTITIONS, 3, Map.of("min.insync.replicas", "2"));
        Properties producerProps = cluster.clientProperties();
        producerProps.put(ProducerConfig.ACKS_CONFIG, "all");
        producerProps.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        producerProps.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        producerProps.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
        producerProps.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "100");
        Properties consumerProps = cluster.clientProperties();
        consumerProps.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
        consumerProps.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        consumerProps.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        consumerProps.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        consumerProps.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "100");

        Seen seen = new Seen();
        List<Worker> workers = new ArrayList<>();
        ProducedRecords produced;
        GroupView before;
        GroupView moved;
        Map<Integer, Long> committedBefore;
        Map<Integer, Long> committedMoved;
        Map<Integer, Long> committedEnd;
        int killed;
        try (ContinuousProducer producer = new ContinuousProducer(producerProps, TOPIC, PARTITIONS, "group", 200)) {
            workers.add(new Worker("a", consumerProps, seen));
            workers.add(new Worker("b", consumerProps, seen));
            awaitConsumed(seen, workers, 300, "consumption under way");
            // A third member joins and leaves: two more group epochs, and a member whose records are tombstoned.
            try (Worker transient3 = new Worker("c", consumerProps, seen)) {
                workers.add(transient3);
                await("c owns partitions").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                        .until(() -> !transient3.owned.isEmpty() || transient3.failure != null);
            }
            assertNull(workers.get(2).failure, "c failed");
            workers.remove(2);
            before = awaitSettled(cluster, 2, -1, "the group settles on a and b");
            awaitConsumed(seen, workers, 200, "a and b consume after c left");
            before = awaitSettled(cluster, 2, -1, "the group is still settled on a and b");
            assertTrue(before.groupEpoch() >= 4, "three joins and a leave moved the group epoch: " + before);
            committedBefore = committedOffsets(cluster);

            killed = before.coordinator();
            LOG.info("group failover: killing the coordinator {} of {}: {}", killed, GROUP, before);
            seen.killed = true;
            cluster.kill9(killed);
            moved = awaitSettled(cluster, 2, killed, "the group is Stable on a new coordinator");
            LOG.info("group failover: moved to {}: {}", moved.coordinator(), moved);
            assertEquals(before.assignments(), moved.assignments(), "each member keeps its assignment: " + moved);
            awaitConsumed(seen, workers, 300, "consumption goes on after the move");
            // as the members heartbeat the new coordinator (every second), the group stays as it was loaded
            GroupView loaded = moved;
            await("the group stays as loaded while its members heartbeat").during(Duration.ofSeconds(4))
                    .atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                    .until(() -> describe(cluster), v -> v.equals(loaded));
            assertEquals(List.of(), seen.callbacksAfterKill(), "no rebalance after the crash");
            committedMoved = committedOffsets(cluster);
            producer.awaitAcknowledged(200);

            cluster.start(killed);
            cluster.awaitFullIsr(TOPIC, Duration.ofSeconds(60));
            cluster.awaitFullIsr("__consumer_offsets", Duration.ofSeconds(60));
            awaitConsumed(seen, workers, 300, "consumption goes on with broker " + killed + " back");
            GroupView afterRestart = awaitSettled(cluster, 2, -1, "the group is Stable with broker " + killed + " back");
            assertEquals(before.assignments(), afterRestart.assignments(), "assignments after the restart");

            produced = producer.stop();
            Map<Integer, Set<Long>> acked = ackedOffsets(produced);
            await("every acknowledged record consumed").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                    .until(() -> workers.stream().anyMatch(w -> w.failure != null) || acked.entrySet().stream()
                            .allMatch(e -> seen.consumed.getOrDefault(e.getKey(), Map.of()).keySet()
                                    .containsAll(e.getValue())));
            await("every consumed record committed").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                    .until(() -> committedOffsets(cluster).equals(nextOffsets(seen)));
            committedEnd = committedOffsets(cluster);
        } finally {
            // all stop before any leaves the group: a leave would move partitions to one still recording
            workers.forEach(w -> w.stop.set(true));
            for (Worker w : workers) {
                w.close();
            }
        }
        for (Worker w : workers) {
            assertNull(w.failure, w.name + " failed");
            assertFalse(w.thread.isAlive(), w.name + " did not stop");
        }

        String summary = String.format("before the crash %s; after the move %s; %d records acknowledged, %d"
                        + " deliveries; commits that timed out %d; callbacks %s", before, moved,
                produced.acknowledgedCount(), seen.consumedCount.get(), seen.commitRetriableFailures.get(),
                seen.callbacks);
        LOG.info("group failover: {}", summary);

        // What the group's records add: the same group, members and assignments on the new coordinator.
        assertNotEquals(killed, moved.coordinator(), summary);
        assertEquals(before.assignments(), moved.assignments(), "each member keeps its assignment; " + summary);
        assertTrue(moved.groupEpoch() >= before.groupEpoch(), "the group epoch goes on; " + summary);
        before.memberEpochs().forEach((member, epoch) -> assertTrue(moved.memberEpochs().get(member) >= epoch,
                "member " + member + "'s epoch goes on; " + summary));
        assertEquals(List.of(), seen.callbacksAfterKill(), "no partition revoked, lost or assigned after the crash; "
                + summary);
        assertEquals(List.of(), seen.commitFailures, "commits refused; " + summary);

        // What Kafka promises: at least once, in order, commits never backwards.
        assertTrue(produced.failures().isEmpty(), "acks=all idempotent sends all succeed: "
                + produced.failures().stream().limit(5).toList());
        List<String> notConsumed = new ArrayList<>();
        List<String> misplaced = new ArrayList<>();
        produced.acks().values().forEach(list -> list.forEach(ack -> {
            String value = seen.consumed.getOrDefault(ack.partition(), Map.of()).get(ack.offset());
            if (value == null) {
                notConsumed.add(ack.toString());
            } else if (!value.equals(ack.value())) {
                misplaced.add(ack + " consumed as " + value);
            }
        }));
        assertEquals(List.of(), notConsumed.stream().limit(20).toList(), "acknowledged records never consumed; " + summary);
        assertEquals(List.of(), misplaced.stream().limit(20).toList(), "records consumed at another offset; " + summary);
        assertEquals(List.of(), seen.outOfOrder, "records of a partition out of order; " + summary);
        assertEquals(List.of(), seen.backwardCommits, "commits going backwards; " + summary);
        for (int p = 0; p < PARTITIONS; p++) {
            long b = committedBefore.getOrDefault(p, 0L);
            long m = committedMoved.getOrDefault(p, 0L);
            long e = committedEnd.getOrDefault(p, 0L);
            assertTrue(b <= m && m <= e, "partition " + p + "'s committed offset before the crash " + b
                    + ", after the move " + m + ", at the end " + e + "; " + summary);
        }
    }

    /**
     * Waits until the group, described through Admin, is settled with {@code members} members (and, unless
     * {@code notOn} is -1, on another coordinator than {@code notOn}).
     */
    private static GroupView awaitSettled(KrillCluster cluster, int members, int notOn, String what) {
        return await(what).atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250)).ignoreExceptions()
                .until(() -> describe(cluster), v -> v.settled(members) && v.coordinator() != notOn);
    }

    private static GroupView describe(KrillCluster cluster) throws Exception {
        return GroupView.of(cluster.admin().describeConsumerGroups(List.of(GROUP)).describedGroups().get(GROUP)
                .get(10, TimeUnit.SECONDS));
    }

    private static void awaitConsumed(Seen seen, List<Worker> workers, int more, String what) {
        int target = seen.consumedCount.get() + more;
        await(what + " (" + more + " more records)").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .until(() -> seen.consumedCount.get() >= target || workers.stream().anyMatch(w -> w.failure != null));
        for (Worker w : workers) {
            assertNull(w.failure, w.name + " failed");
        }
    }

    /** The group's committed offset of each partition of the topic (Admin listConsumerGroupOffsets). */
    private static Map<Integer, Long> committedOffsets(KrillCluster cluster) throws Exception {
        Map<Integer, Long> offsets = new TreeMap<>();
        cluster.admin().listConsumerGroupOffsets(GROUP).partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS)
                .forEach((tp, o) -> {
                    if (tp.topic().equals(TOPIC) && o != null) {
                        offsets.put(tp.partition(), o.offset());
                    }
                });
        return offsets;
    }

    /** Per partition, the offset after the last record consumed: what the group commits once caught up. */
    private static Map<Integer, Long> nextOffsets(Seen seen) {
        Map<Integer, Long> next = new TreeMap<>();
        seen.consumed.forEach((p, records) -> next.put(p, Collections.max(records.keySet()) + 1));
        return next;
    }

    private static Map<Integer, Set<Long>> ackedOffsets(ProducedRecords produced) {
        Map<Integer, Set<Long>> acked = new HashMap<>();
        produced.acks().forEach((p, list) -> acked.put(p, list.stream().map(ProducedRecords.Ack::offset)
                .collect(Collectors.toSet())));
        return acked;
    }
}

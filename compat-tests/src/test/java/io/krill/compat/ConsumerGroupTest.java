package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Stock KafkaConsumers (kafka-clients 4.4, group.protocol=classic) in consumer groups on one Krill
 * broker: partitions split among members, every record consumed once, commits, a member that dies
 * without leaving is removed after its session timeout, static members, independent groups,
 * cooperative-sticky rebalancing, and the admin client's view of groups.
 */
class ConsumerGroupTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension()
            .with("num.partitions", "6")
            .with("group.initial.rebalance.delay.ms", "300");

    private static final Duration WAIT = Duration.ofSeconds(60);

    /** Both rebalance protocols: the classic one and KIP-848's, assignment then done by the broker. */
    @ParameterizedTest
    @ValueSource(strings = {"classic", "consumer"})
    void threeConsumersSplitSixPartitionsAndConsumeEveryRecordOnce(String protocol) throws Exception {
        String topic = "group-split-" + protocol;
        String group = "split-group-" + protocol;
        produce(topic, 0, 1); // creates the topic with 6 partitions
        List<PollingConsumer> consumers = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                consumers.add(new PollingConsumer(group, topic, withProtocol(protocol)).commitEachPoll());
            }
            awaitAssignments(consumers, 2, 2, 2);
            Set<TopicPartition> all = new HashSet<>();
            for (PollingConsumer c : consumers) {
                for (TopicPartition tp : c.assignment()) {
                    assertTrue(all.add(tp), tp + " assigned twice");
                }
            }
            assertEquals(6, all.size());
            int rebalancesBefore = consumers.stream().mapToInt(c -> c.assignedCalls.get()).sum();

            int count = 3000;
            produce(topic, 1, count);
            int expected = count + 1;
            await(() -> consumers.stream().mapToInt(c -> c.records.size()).sum() >= expected, "all records consumed");
            Awaitility.await("no record delivered twice: exactly " + expected + " for 500 ms")
                    .during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50))
                    .until(() -> consumers.stream().mapToInt(c -> c.records.size()).sum() == expected);
            Map<String, Integer> seen = new HashMap<>();
            for (PollingConsumer c : consumers) {
                for (ConsumerRecord<String, String> r : c.records) {
                    assertTrue(c.assignment().contains(new TopicPartition(r.topic(), r.partition())),
                            "a consumer read only its own partitions");
                    seen.merge(r.value(), 1, Integer::sum);
                }
            }
            assertEquals(expected, seen.size(), "every record consumed");
            assertTrue(seen.values().stream().allMatch(n -> n == 1), "no record consumed twice");
            assertEquals(rebalancesBefore, consumers.stream().mapToInt(c -> c.assignedCalls.get()).sum(),
                    "no rebalance while membership was stable");

            try (Admin admin = admin()) {
                ConsumerGroupDescription description = admin.describeConsumerGroups(List.of(group))
                        .describedGroups().get(group).get(30, TimeUnit.SECONDS);
                assertEquals(GroupState.STABLE, description.groupState());
                assertEquals(3, description.members().size());
                Set<TopicPartition> described = new HashSet<>();
                for (MemberDescription member : description.members()) {
                    described.addAll(member.assignment().topicPartitions());
                }
                assertEquals(all, described, "DescribeGroups shows the assignment");
                await(() -> committedTotal(admin, group, topic) == expected, "commits of every record");
            }
        } finally {
            consumers.forEach(PollingConsumer::close);
        }
    }

    @Test
    void memberThatStopsWithoutLeavingIsRemovedAfterItsSessionTimeout() throws Exception {
        String topic = "group-expiry";
        String group = "expiry-group";
        produce(topic, 0, 1);
        Consumer<Properties> shortSession = props -> {
            props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "6000");
            props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "500");
        };
        PollingConsumer survivor = new PollingConsumer(group, topic, shortSession);
        PollingConsumer victim = new PollingConsumer(group, topic, shortSession);
        try {
            awaitAssignments(List.of(survivor, victim), 3, 3);
            victim.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP));
            // Removed by session expiry (6 s), not by a LeaveGroup: nothing moves for the first 4 s.
            Awaitility.await("the survivor keeps its 3 partitions while the victim's session lasts")
                    .during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50))
                    .until(() -> survivor.assignment().size() == 3);
            await(() -> survivor.assignment().size() == 6, "the survivor takes over every partition");
        } finally {
            victim.close();
            survivor.close();
        }
    }

    @Test
    void staticMemberRestartsWithoutRebalanceAndExpiresWhenGone() throws Exception {
        String topic = "group-static";
        String group = "static-group";
        produce(topic, 0, 1);
        Consumer<Properties> staticMember = props -> {
            props.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "instance-b");
            props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "6000");
            props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "500");
        };
        PollingConsumer dynamic = new PollingConsumer(group, topic, props -> { });
        PollingConsumer first = new PollingConsumer(group, topic, staticMember);
        PollingConsumer second = null;
        try {
            awaitAssignments(List.of(dynamic, first), 3, 3);
            Set<TopicPartition> staticPartitions = first.assignment();
            int dynamicRebalances = dynamic.assignedCalls.get();
            first.close(); // a static member does not leave the group when it closes
            second = new PollingConsumer(group, topic, staticMember);
            PollingConsumer restarted = second;
            await(() -> restarted.assignment().equals(staticPartitions), "the new instance gets the same partitions");
            Awaitility.await("no rebalance for the other member, for 1 s").during(Duration.ofSeconds(1))
                    .atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(50))
                    .until(() -> dynamic.assignedCalls.get() == dynamicRebalances);

            restarted.close();
            await(() -> dynamic.assignment().size() == 6, "the static member is removed after its session timeout");
        } finally {
            dynamic.close();
            first.close();
            if (second != null) {
                second.close();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"classic", "consumer"})
    void twoGroupsReadTheSameTopicIndependently(String protocol) throws Exception {
        String topic = "group-independent-" + protocol;
        int count = 500;
        String g1 = "independent-1-" + protocol;
        String g2 = "independent-2-" + protocol;
        produce(topic, 0, count);
        PollingConsumer one = new PollingConsumer(g1, topic, withProtocol(protocol)).commitEachPoll();
        PollingConsumer two = new PollingConsumer(g2, topic, withProtocol(protocol));
        try {
            await(() -> one.records.size() >= count && two.records.size() >= count, "both groups read everything");
            Awaitility.await("each group read each record once: " + count + " each, for 300 ms")
                    .during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(50))
                    .until(() -> one.records.size() == count && two.records.size() == count);
            try (Admin admin = admin()) {
                await(() -> committedTotal(admin, g1, topic) == count, "group 1 committed");
                assertEquals(0, committedTotal(admin, g2, topic), "group 2 committed nothing");
                Set<String> groups = new HashSet<>();
                for (GroupListing listing : admin.listGroups().all().get(30, TimeUnit.SECONDS)) {
                    groups.add(listing.groupId());
                }
                assertTrue(groups.containsAll(Set.of(g1, g2)), "ListGroups: " + groups);
                ExecutionException nonEmpty = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                        () -> admin.deleteConsumerGroups(List.of(g1)).all().get(30, TimeUnit.SECONDS));
                assertInstanceOf(GroupNotEmptyException.class, nonEmpty.getCause());
                one.close();
                admin.deleteConsumerGroups(List.of(g1)).all().get(30, TimeUnit.SECONDS);
                assertEquals(0, committedTotal(admin, g1, topic), "offsets deleted with the group");
            }
        } finally {
            one.close();
            two.close();
        }
    }

    @Test
    void cooperativeStickyMovesOnlyThePartitionsThatChangeOwner() throws Exception {
        String topic = "group-cooperative";
        String group = "cooperative-group";
        produce(topic, 0, 1);
        Consumer<Properties> cooperative = props -> props.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
                CooperativeStickyAssignor.class.getName());
        PollingConsumer first = new PollingConsumer(group, topic, cooperative);
        PollingConsumer second = null;
        try {
            awaitAssignments(List.of(first), 6);
            Set<TopicPartition> before = first.assignment();
            second = new PollingConsumer(group, topic, cooperative);
            awaitAssignments(List.of(first, second), 3, 3);
            Set<TopicPartition> kept = first.assignment();
            assertTrue(before.containsAll(kept));
            Set<TopicPartition> revoked = new HashSet<>();
            first.revoked.forEach(revoked::addAll);
            Set<TopicPartition> moved = new HashSet<>(before);
            moved.removeAll(kept);
            assertEquals(moved, revoked, "only the partitions that moved were revoked");
            assertFalse(revoked.stream().anyMatch(kept::contains));
        } finally {
            first.close();
            if (second != null) {
                second.close();
            }
        }
    }

    @Test
    void adminResetsAndDeletesOffsetsAsTheConsumerGroupsToolDoes() throws Exception {
        String topic = "group-admin";
        String group = "admin-group";
        produce(topic, 0, 600);
        TopicPartition first = new TopicPartition(topic, 0);
        try (Admin admin = admin()) {
            // --reset-offsets on a group that does not exist yet: a simple commit creates it.
            admin.alterConsumerGroupOffsets(group, Map.of(first, new OffsetAndMetadata(5)))
                    .all().get(30, TimeUnit.SECONDS);
            assertEquals(5, admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS).get(first).offset());
            PollingConsumer consumer = new PollingConsumer(group, topic, props -> { });
            try {
                await(() -> consumer.records.size() >= 595, "consumed from the reset offset");
                long firstOffset = consumer.records.stream().filter(r -> r.partition() == 0)
                        .mapToLong(ConsumerRecord::offset).min().orElseThrow();
                assertEquals(5, firstOffset, "resumed at the offset the admin set");

                ExecutionException subscribed = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                        () -> admin.deleteConsumerGroupOffsets(group, Set.of(first)).all().get(30, TimeUnit.SECONDS));
                assertInstanceOf(org.apache.kafka.common.errors.GroupSubscribedToTopicException.class,
                        subscribed.getCause());
                ExecutionException active = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                        () -> admin.alterConsumerGroupOffsets(group, Map.of(first, new OffsetAndMetadata(0)))
                                .all().get(30, TimeUnit.SECONDS));
                assertInstanceOf(org.apache.kafka.common.errors.UnknownMemberIdException.class, active.getCause(),
                        "offsets of an active group cannot be reset");
            } finally {
                consumer.close();
            }
            assertEquals(GroupState.EMPTY, admin.describeConsumerGroups(List.of(group)).describedGroups().get(group)
                    .get(30, TimeUnit.SECONDS).groupState());
            admin.deleteConsumerGroupOffsets(group, Set.of(first)).all().get(30, TimeUnit.SECONDS);
            assertFalse(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS).containsKey(first));
        }
    }

    // ------------------------------------------------------------------ helpers

    private static Consumer<Properties> withProtocol(String protocol) {
        return props -> props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
    }

    static void produce(String topic, int from, int count) throws Exception {
        produce(KRILL.bootstrapServers(), topic, from, count);
    }

    static void produce(String bootstrap, String topic, int from, int count) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(),
                new StringSerializer())) {
            List<java.util.concurrent.Future<?>> acks = new ArrayList<>();
            for (int i = from; i < from + count; i++) {
                acks.add(producer.send(new ProducerRecord<>(topic, "key-" + i, "value-" + i)));
            }
            for (java.util.concurrent.Future<?> ack : acks) {
                ack.get(30, TimeUnit.SECONDS);
            }
        }
    }

    private static Admin admin() {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KRILL.bootstrapServers());
        return Admin.create(props);
    }

    private static long committedTotal(Admin admin, String group, String topic) {
        try {
            Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            long total = 0;
            for (Map.Entry<TopicPartition, OffsetAndMetadata> e : offsets.entrySet()) {
                if (e.getKey().topic().equals(topic) && e.getValue() != null) {
                    total += e.getValue().offset();
                }
            }
            return total;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** Waits until the consumers hold exactly these numbers of partitions, pairwise disjoint. */
    static void awaitAssignments(List<PollingConsumer> consumers, int... sizes) {
        await(() -> {
            Set<TopicPartition> all = new HashSet<>();
            for (int i = 0; i < consumers.size(); i++) {
                Set<TopicPartition> assigned = consumers.get(i).assignment();
                if (assigned.size() != sizes[i] || !consumers.get(i).positionsKnown) {
                    return false;
                }
                all.addAll(assigned);
            }
            return all.size() == java.util.Arrays.stream(sizes).sum();
        }, "assignments of sizes " + java.util.Arrays.toString(sizes));
    }

    /** Awaits {@code condition} for at most a minute (Awaitility), failing with {@code what} otherwise. */
    static void await(java.util.function.BooleanSupplier condition, String what) {
        Awaitility.await(what).atMost(WAIT).pollInterval(Duration.ofMillis(50)).until(condition::getAsBoolean);
    }

    /**
     * A subscribed KafkaConsumer polled by its own thread (consumers are single-threaded): records,
     * assignment and rebalance callbacks are published for the test thread to read.
     */
    static final class PollingConsumer {
        final List<ConsumerRecord<String, String>> records = new CopyOnWriteArrayList<>();
        final List<Collection<TopicPartition>> revoked = new CopyOnWriteArrayList<>();
        final AtomicInteger assignedCalls = new AtomicInteger();
        final AtomicInteger commitFailures = new AtomicInteger();
        private final Set<TopicPartition> assignment = ConcurrentHashMap.newKeySet();
        private final Thread thread;
        private volatile boolean running = true;
        private volatile boolean commitEachPoll;
        private volatile boolean positionsKnown;
        private volatile CloseOptions closeOptions = CloseOptions.timeout(Duration.ofSeconds(30));
        private final KafkaConsumer<String, String> consumer;

        PollingConsumer(String group, String topic, Consumer<Properties> customize) {
            this(KRILL.bootstrapServers(), group, topic, customize);
        }

        PollingConsumer(String bootstrap, String group, String topic, Consumer<Properties> customize) {
            Properties props = new Properties();
            props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
            props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
            props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
            props.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, "30000");
            customize.accept(props);
            consumer = new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
            thread = new Thread(() -> run(topic), "consumer-" + group);
            thread.setDaemon(true);
            thread.start();
        }

        PollingConsumer commitEachPoll() {
            commitEachPoll = true;
            return this;
        }

        Set<TopicPartition> assignment() {
            return new HashSet<>(assignment);
        }

        private void run(String topic) {
            try {
                consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                        if (!partitions.isEmpty()) {
                            revoked.add(new ArrayList<>(partitions));
                        }
                        assignment.removeAll(partitions);
                        positionsKnown = false;
                    }

                    @Override
                    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                        assignedCalls.incrementAndGet();
                        assignment.addAll(partitions);
                        positionsKnown = false;
                    }

                    @Override
                    public void onPartitionsLost(Collection<TopicPartition> partitions) {
                        assignment.removeAll(partitions);
                        positionsKnown = false;
                    }
                });
                while (running) {
                    for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
                        records.add(record);
                    }
                    if (!positionsKnown && !assignment.isEmpty()) {
                        for (TopicPartition tp : consumer.assignment()) {
                            consumer.position(tp, Duration.ofSeconds(10));
                        }
                        positionsKnown = true;
                    }
                    if (commitEachPoll && !consumer.assignment().isEmpty()) {
                        try {
                            consumer.commitSync(Duration.ofSeconds(10));
                        } catch (org.apache.kafka.common.errors.RebalanceInProgressException
                                 | org.apache.kafka.clients.consumer.CommitFailedException e) {
                            commitFailures.incrementAndGet(); // redelivered after the rebalance: at least once
                        }
                    }
                }
            } finally {
                consumer.close(closeOptions);
            }
        }

        void close() {
            close(closeOptions);
        }

        void close(CloseOptions options) {
            if (!thread.isAlive()) {
                return;
            }
            closeOptions = options;
            running = false;
            try {
                thread.join(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while closing " + thread.getName(), e);
            }
            if (thread.isAlive()) {
                throw new AssertionError(thread.getName() + " did not stop within 60 s of close()");
            }
        }
    }
}

package io.krill.compat.connect;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.cluster.KrillCluster;
import io.krill.compat.differential.KafkaKraftProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.connect.mirror.RemoteClusterUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MirrorMaker 2 (the dedicated driver, {@code connect-mirror-maker.sh mm2.properties --clusters target},
 * in a JVM of its own) replicating into a Krill cluster ({@code target}) from another Krill cluster
 * ({@code krill}) and from an Apache Kafka 4.4 KRaft node ({@code kafka}) at once: one topic per source
 * with keys, values and headers, and a consumer group's committed offsets as checkpoints, with
 * {@code sync.group.offsets.enabled=true} so that the translated offsets are committed to the group on the
 * target.
 *
 * <p>Asserted per source: the remote topic {@code <source>.orders} holds every record of each partition, in
 * order, with its key, value and headers, at the same offsets (the topics are new, so MM2's offsets match);
 * the checkpoint topic {@code <source>.checkpoints.internal} exists on the target and
 * {@link RemoteClusterUtils#translateOffsets} reads the group's checkpoints from it; the group's offsets
 * committed on the target are at or before the upstream ones (translation never skips: KIP-382 and, since
 * Kafka 3.5, conservative translation from the nearest offset sync, so a consumer may reprocess; the counts
 * are logged); a consumer of the group on the target, with {@code auto.offset.reset=none} (it fails if
 * nothing was committed), starts at exactly those offsets.
 *
 * <p>MM2 emits offset syncs while records flow: after a burst of 100 records per partition only about a
 * dozen syncs were written (an in-flight limit; the rest wait for the next record), with Kafka 4.4 as the
 * source as with Krill, so no checkpoint of partition 1's offset could be made. A trickle of records to the
 * source topic while the checkpoints are awaited lets the syncs catch up, as on a live topic.
 */
class MirrorMakerTest {
    private static final Logger LOG = LoggerFactory.getLogger(MirrorMakerTest.class);
    private static final String TOPIC = "orders";
    private static final int PARTITIONS = 2;
    private static final int RECORDS = 100;
    private static final long COMMITTED_P1 = 60;

    @RegisterExtension
    static final KafkaKraftProcess KAFKA = new KafkaKraftProcess();

    @Test
    void replicatesTopicsAndGroupOffsetsFromKrillAndFromKafka44IntoKrill(@TempDir Path dir) throws Exception {
        String testName = getClass().getSimpleName();
        ConnectProcess.clearKeptLogs(testName);
        long started = System.nanoTime();
        CompletableFuture<KrillCluster> sourceStart = CompletableFuture.supplyAsync(
                () -> KrillCluster.start(testName + "-source", 1, singleBroker()));
        CompletableFuture<KrillCluster> targetStart = CompletableFuture.supplyAsync(
                () -> KrillCluster.start(testName + "-target", 1, singleBroker()));
        KrillCluster sourceKrill = null;
        KrillCluster target = null;
        ConnectProcess mirrorMaker = null;
        try {
            sourceKrill = sourceStart.get(180, TimeUnit.SECONDS);
            target = targetStart.get(180, TimeUnit.SECONDS);
            KAFKA.awaitReady(Duration.ofSeconds(120));
            LOG.info("two Krill brokers and Kafka 4.4 up after {} ms", millisSince(started));
            Map<String, String> sources = new LinkedHashMap<>();
            sources.put("krill", sourceKrill.bootstrapServers());
            sources.put("kafka", KAFKA.bootstrapServers());
            for (Map.Entry<String, String> source : sources.entrySet()) {
                createTopic(source.getValue());
            }

            Map<String, String> mm2 = mirrorMakerConfig(sources, target.bootstrapServers());
            mirrorMaker = ConnectProcess.mirrorMaker(testName, "mirror-maker", dir, mm2, List.of("--clusters", "target"));
            mirrorMaker.launch();
            long launched = System.nanoTime();
            // MM2 writes an offset sync per record only while it keeps up (at most 10 in flight; a burst's are
            // dropped), as on a live topic: the records come while it replicates, then the group commits.
            for (Map.Entry<String, String> source : sources.entrySet()) {
                produceWhileMirrored(mirrorMaker, source.getKey(), source.getValue(), target.bootstrapServers());
                commitGroup(source.getKey(), source.getValue());
            }

            for (String alias : sources.keySet()) {
                String remote = alias + "." + TOPIC;
                ConnectProcess mm = mirrorMaker;
                String targetServers = target.bootstrapServers();
                mm.await(remote + " replicated to the target", Duration.ofSeconds(120),
                        () -> endOffsets(targetServers, remote).values().stream().allMatch(e -> e == RECORDS));
                LOG.info("{} replicated {} ms after MirrorMaker's launch", remote, millisSince(launched));
                assertRecords(targetServers, alias, remote);

                String group = group(alias);
                TopicPartition p0 = new TopicPartition(remote, 0);
                TopicPartition p1 = new TopicPartition(remote, 1);
                Map<TopicPartition, Long> translated = new HashMap<>();
                // MM2 sends an offset sync only while records flow (the last syncs of a burst wait for the
                // next records): a trickle of records after the group's offsets lets both partitions' syncs
                // reach them, as on any live topic. Seen alike with Kafka 4.4 and Krill as the source.
                try (Trickle trickle = new Trickle(sources.get(alias), alias)) {
                    try {
                        mm.await(group + "'s offsets synced to the target", Duration.ofSeconds(90), () -> {
                            translated.clear();
                            translated.putAll(committed(targetServers, group));
                            return translated.size() == PARTITIONS;
                        });
                    } catch (AssertionError e) {
                        throw new AssertionError(diagnosis(sources.get(alias), targetServers, alias) + "\n"
                                + e.getMessage(), e);
                    }
                }
                long t0 = translated.get(p0);
                long t1 = translated.get(p1);
                // translation never skips: at or before the upstream offsets (KIP-382: at-least-once)
                assertTrue(t0 > 0 && t0 <= RECORDS, p0 + " translated to " + t0 + " for upstream " + RECORDS);
                assertTrue(t1 > 0 && t1 <= COMMITTED_P1, p1 + " translated to " + t1 + " for upstream " + COMMITTED_P1);
                LOG.info("{}: group offsets {} on the target for upstream {}={}, {}={} ({} and {} records to reprocess)",
                        alias, translated, p0, RECORDS, p1, COMMITTED_P1, RECORDS - t0, COMMITTED_P1 - t1);
                assertTrue(admin(targetServers).listTopics().names().get(30, TimeUnit.SECONDS)
                        .contains(alias + ".checkpoints.internal"), "checkpoint topic of " + alias + " on the target");
                Map<TopicPartition, OffsetAndMetadata> checkpoints = RemoteClusterUtils.translateOffsets(
                        Map.of("bootstrap.servers", targetServers), alias, group, Duration.ofSeconds(30));
                assertTrue(checkpoints.get(p0).offset() >= t0 && checkpoints.get(p0).offset() <= RECORDS,
                        "checkpoint of " + p0 + ": " + checkpoints.get(p0));
                assertTrue(checkpoints.get(p1).offset() >= t1 && checkpoints.get(p1).offset() <= COMMITTED_P1,
                        "checkpoint of " + p1 + ": " + checkpoints.get(p1));

                Map<TopicPartition, Long> sourceEnds = endOffsets(sources.get(alias), TOPIC);
                mm.await("the trickle replicated", Duration.ofSeconds(60), () -> endOffsets(targetServers, remote)
                        .equals(Map.of(p0, sourceEnds.get(new TopicPartition(TOPIC, 0)),
                                p1, sourceEnds.get(new TopicPartition(TOPIC, 1)))));
                assertConsumerStartsAtTranslatedOffsets(targetServers, alias, group, Map.of(p0, t0, p1, t1),
                        endOffsets(targetServers, remote));
            }
            assertTrue(mirrorMaker.isRunning(), "MirrorMaker still runs");
            LOG.info("whole test {} ms", millisSince(started));
        } catch (AssertionError | RuntimeException e) {
            if (mirrorMaker != null) {
                e.addSuppressed(new AssertionError("last lines of MirrorMaker's log:\n" + mirrorMaker.tail(120)));
            }
            for (KrillCluster c : new KrillCluster[] {sourceKrill, target}) {
                if (c != null) {
                    e.addSuppressed(new AssertionError("Krill logs:" + c.logTails(60)));
                }
            }
            throw e;
        } finally {
            if (mirrorMaker != null) {
                mirrorMaker.close();
            }
            closeQuietly(admins);
            closeCluster(sourceKrill, sourceStart);
            closeCluster(target, targetStart);
        }
    }

    // ------------------------------------------------------------------ set-up

    private static Map<String, String> singleBroker() {
        Map<String, String> c = new HashMap<>();
        c.put("default.replication.factor", "1");
        c.put("offsets.topic.replication.factor", "1");
        c.put("transaction.state.log.replication.factor", "1");
        c.put("transaction.state.log.min.isr", "1");
        c.put("auto.create.topics.enable", "false");
        // no failover here: a loaded machine must not expire the brokers' ZooKeeper sessions
        c.put("zookeeper.session.timeout.ms", "15000");
        return c;
    }

    private static Map<String, String> mirrorMakerConfig(Map<String, String> sources, String target) {
        Map<String, String> c = new HashMap<>();
        c.put("clusters", String.join(", ", sources.keySet()) + ", target");
        c.put("target.bootstrap.servers", target);
        sources.forEach((alias, servers) -> {
            c.put(alias + ".bootstrap.servers", servers);
            c.put(alias + "->target.enabled", "true");
            c.put(alias + "->target.topics", TOPIC);
            c.put(alias + "->target.groups", "mm2-.*");
        });
        c.put("sync.group.offsets.enabled", "true");
        c.put("sync.group.offsets.interval.seconds", "1");
        c.put("emit.checkpoints.interval.seconds", "1");
        c.put("emit.heartbeats.interval.seconds", "1");
        c.put("refresh.topics.interval.seconds", "2");
        c.put("refresh.groups.interval.seconds", "2");
        // an offset sync for every record: the end of the topic translates exactly
        c.put("offset.lag.max", "0");
        c.put("offset.flush.interval.ms", "1000");
        c.put("tasks.max", "1");
        for (String key : List.of("replication.factor", "checkpoints.topic.replication.factor",
                "heartbeats.topic.replication.factor", "offset-syncs.topic.replication.factor",
                "offset.storage.replication.factor", "status.storage.replication.factor",
                "config.storage.replication.factor")) {
            c.put(key, "1");
        }
        c.put("plugin.discovery", "service_load");
        c.put("target.plugin.discovery", "service_load");
        return c;
    }

    /** The topic: 2 partitions. */
    private void createTopic(String servers) throws Exception {
        admin(servers).createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get(30, TimeUnit.SECONDS);
    }

    /**
     * 100 records per partition with key, value and two headers: the first of each partition, then, once MM2
     * replicates the topic, the others a few milliseconds apart.
     */
    private void produceWhileMirrored(ConnectProcess mm, String alias, String servers, String targetServers)
            throws Exception {
        Properties props = clientProps(servers);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        String remote = alias + "." + TOPIC;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            for (int i = 0; i < RECORDS; i++) {
                for (int p = 0; p < PARTITIONS; p++) {
                    ProducerRecord<String, String> record = new ProducerRecord<>(TOPIC, p, key(p, i), value(p, i));
                    record.headers().add("seq", Integer.toString(i).getBytes(StandardCharsets.UTF_8));
                    record.headers().add("source", alias.getBytes(StandardCharsets.UTF_8));
                    producer.send(record).get(30, TimeUnit.SECONDS);
                }
                if (i == 0) {
                    mm.await(remote + " mirrored", Duration.ofSeconds(120), () -> {
                        Map<TopicPartition, Long> ends = endOffsets(targetServers, remote);
                        return ends.size() == PARTITIONS && ends.values().stream().allMatch(e -> e >= 1);
                    });
                } else {
                    TimeUnit.MILLISECONDS.sleep(5); // pacing, as a live topic's producers: not a wait for a state
                }
            }
        }
    }

    /** A consumer group that read everything and committed the end of partition 0 and offset 60 of partition 1. */
    private void commitGroup(String alias, String servers) throws Exception {
        // a consumer group (subscribed, so it has the consumer protocol type) that read everything and
        // committed the end of partition 0 and offset 60 of partition 1
        Properties cp = consumerProps(servers, group(alias));
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp)) {
            consumer.subscribe(List.of(TOPIC));
            int[] read = {0};
            await(alias + ": group consumes the topic").atMost(Duration.ofSeconds(60)).until(() -> {
                read[0] += consumer.poll(Duration.ofMillis(200)).count();
                return read[0] >= RECORDS * PARTITIONS;
            });
            consumer.commitSync(Map.of(
                    new TopicPartition(TOPIC, 0), new OffsetAndMetadata(RECORDS),
                    new TopicPartition(TOPIC, 1), new OffsetAndMetadata(COMMITTED_P1)));
        }
    }

    // ------------------------------------------------------------------ checks

    private void assertRecords(String servers, String alias, String remote) {
        Properties props = consumerProps(servers, null);
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            for (int p = 0; p < PARTITIONS; p++) {
                TopicPartition tp = new TopicPartition(remote, p);
                consumer.assign(List.of(tp));
                consumer.seekToBeginning(List.of(tp));
                List<ConsumerRecord<String, String>> records = new ArrayList<>();
                await(remote + " read").atMost(Duration.ofSeconds(30)).until(() -> {
                    consumer.poll(Duration.ofMillis(200)).forEach(records::add);
                    return records.size() >= RECORDS;
                });
                assertEquals(RECORDS, records.size(), tp + " record count");
                for (int i = 0; i < RECORDS; i++) {
                    ConsumerRecord<String, String> r = records.get(i);
                    assertEquals(i, r.offset(), tp + " offset");
                    assertEquals(key(p, i), r.key(), tp + " key at " + i);
                    assertEquals(value(p, i), r.value(), tp + " value at " + i);
                    assertEquals(Integer.toString(i), header(r, "seq"), tp + " header seq at " + i);
                    assertEquals(alias, header(r, "source"), tp + " header source at " + i);
                }
            }
        }
    }

    /** The group's consumer on the target ({@code auto.offset.reset=none}) reads each partition from its offset. */
    private void assertConsumerStartsAtTranslatedOffsets(String servers, String alias, String group,
            Map<TopicPartition, Long> translated, Map<TopicPartition, Long> ends) {
        Properties props = consumerProps(servers, group);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        Map<TopicPartition, List<ConsumerRecord<String, String>>> got = new HashMap<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            consumer.subscribe(List.of(translated.keySet().iterator().next().topic()));
            await(alias + ": the group's consumer on the target reads from the translated offsets")
                    .atMost(Duration.ofSeconds(60)).until(() -> {
                        consumer.poll(Duration.ofMillis(200)).forEach(r -> got
                                .computeIfAbsent(new TopicPartition(r.topic(), r.partition()), k -> new ArrayList<>()).add(r));
                        return ends.entrySet().stream().allMatch(e -> consumer.assignment().contains(e.getKey())
                                && consumer.position(e.getKey()) >= e.getValue());
                    });
        }
        translated.forEach((tp, offset) -> {
            List<ConsumerRecord<String, String>> records = got.getOrDefault(tp, List.of());
            assertEquals(ends.get(tp) - offset, records.size(), tp + ": records read from " + offset);
            ConsumerRecord<String, String> first = records.get(0);
            assertEquals(offset, first.offset(), tp + ": first offset read");
            if (offset < RECORDS) {
                assertEquals(value(tp.partition(), (int) (long) offset), first.value(), tp + " first value");
            }
        });
    }

    /** Records to both partitions of the source topic every 200 ms until closed. */
    private static final class Trickle implements AutoCloseable {
        private final KafkaProducer<String, String> producer;
        private final Thread thread;
        private volatile boolean stop;

        Trickle(String servers, String alias) {
            Properties props = clientProps(servers);
            props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            producer = new KafkaProducer<>(props);
            thread = new Thread(() -> {
                int i = 0;
                while (!stop) {
                    for (int p = 0; p < PARTITIONS; p++) {
                        producer.send(new ProducerRecord<>(TOPIC, p, "trickle-" + p, "trickle-" + p + "-" + i));
                    }
                    producer.flush();
                    i++;
                    try {
                        Thread.sleep(200);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "trickle-" + alias);
            thread.start();
        }

        @Override
        public void close() throws InterruptedException {
            stop = true;
            thread.join(10_000);
            producer.close(Duration.ofSeconds(5));
        }
    }

    // ------------------------------------------------------------------ helpers

    /** How far MM2's offset syncs (on the source) and checkpoints (on the target) got, for a failure. */
    private String diagnosis(String sourceServers, String targetServers, String alias) {
        StringBuilder sb = new StringBuilder();
        for (String[] t : new String[][] {{sourceServers, "mm2-offset-syncs.target.internal"},
                {targetServers, alias + ".checkpoints.internal"}}) {
            try {
                var tp = new TopicPartition(t[1], 0);
                long end = admin(t[0]).listOffsets(Map.of(tp, org.apache.kafka.clients.admin.OffsetSpec.latest()))
                        .all().get(10, TimeUnit.SECONDS).get(tp).offset();
                sb.append(t[1]).append("-0 ends at ").append(end).append("; ");
            } catch (Exception e) {
                sb.append(t[1]).append(": ").append(e).append("; ");
            }
        }
        try {
            sb.append("source group offsets ").append(committed(sourceServers, group(alias)));
        } catch (Exception e) {
            sb.append("source group offsets: ").append(e);
        }
        return sb.toString();
    }

    private final List<Admin> admins = new ArrayList<>();
    private final Map<String, Admin> adminByServers = new HashMap<>();

    private Admin admin(String servers) {
        return adminByServers.computeIfAbsent(servers, s -> {
            Admin a = Admin.create(clientProps(s));
            admins.add(a);
            return a;
        });
    }

    private Map<TopicPartition, Long> endOffsets(String servers, String topic) throws Exception {
        Admin admin = admin(servers);
        Map<TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            latest.put(new TopicPartition(topic, p), org.apache.kafka.clients.admin.OffsetSpec.latest());
        }
        Map<TopicPartition, Long> ends = new HashMap<>();
        admin.listOffsets(latest).all().get(10, TimeUnit.SECONDS).forEach((tp, info) -> ends.put(tp, info.offset()));
        return ends;
    }

    private Map<TopicPartition, Long> committed(String servers, String group) throws Exception {
        Map<TopicPartition, Long> offsets = new HashMap<>();
        admin(servers).listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS)
                .forEach((tp, om) -> {
                    if (om != null) {
                        offsets.put(tp, om.offset());
                    }
                });
        return offsets;
    }

    private static Properties clientProps(String servers) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        return props;
    }

    private static Properties consumerProps(String servers, String group) {
        Properties props = clientProps(servers);
        if (group != null) {
            props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        }
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        return props;
    }

    private static String header(ConsumerRecord<String, String> r, String key) {
        Header h = r.headers().lastHeader(key);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    private static String group(String alias) {
        return "mm2-" + alias + "-group";
    }

    private static String key(int p, int i) {
        return "k-" + p + "-" + i;
    }

    private static String value(int p, int i) {
        return "v-" + p + "-" + i;
    }

    private static void closeQuietly(List<Admin> admins) {
        for (Admin a : admins) {
            try {
                a.close(Duration.ofSeconds(2));
            } catch (RuntimeException e) {
                // best effort
            }
        }
        admins.clear();
    }

    /** Closes a cluster, or the one its start still makes (a failure elsewhere must not leave brokers). */
    private static void closeCluster(KrillCluster cluster, CompletableFuture<KrillCluster> start) {
        KrillCluster c = cluster;
        if (c == null) {
            try {
                c = start.get(180, TimeUnit.SECONDS);
            } catch (Exception e) {
                return; // it failed to start and cleaned up after itself
            }
        }
        c.close();
    }

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }
}

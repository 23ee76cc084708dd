package io.krill.compat.connect;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.cluster.KrillCluster;
import io.krill.compat.cluster.KrillClusterExtension;
import io.krill.compat.support.FreePorts;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka Connect 4.4 in distributed mode against a 3-broker Krill cluster: two workers, each a JVM of its
 * own ({@link ConnectProcess}; the test SIGKILLs one), in one group, with their config, offset and status
 * topics created by Connect (compacted, replication factor 3) and {@code exactly.once.source.support=enabled}.
 * Through the REST API, a FileStreamSource connector ({@code exactly.once.support=required}: the worker
 * refuses it unless every record and its source offset are written in one transaction) reads lines appended
 * to a file into a topic, and a FileStreamSink connector writes the topic to another file.
 *
 * <p>What is asserted, after a worker is SIGKILLed while lines are being appended (its tasks move to the
 * survivor) and after the leader of the topic's partition is SIGKILLed:
 * <ul>
 *   <li>the topic, read with read_committed, holds every line exactly once and in file order: the file
 *       source's exactly-once guarantee (a killed task's open transaction is fenced and aborted by the next
 *       task's producer, which resumes from the offset committed with the last committed transaction);</li>
 *   <li>the sink file holds every line, and in file order once repeated lines are dropped. The sink is
 *       at-least-once: a sink task that moves re-delivers the records after the offsets its group last
 *       committed, so a block of lines may be written twice; the test counts and logs such duplicates, and
 *       checks that each repeat is a replay (a line that was already written, coming again in order).</li>
 * </ul>
 */
class ConnectDistributedTest {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectDistributedTest.class);
    private static final String TOPIC = "file-lines";
    private static final String GROUP = "krill-connect";
    private static final Duration WORKER_START = Duration.ofSeconds(120);
    private static final Duration DELIVERY = Duration.ofSeconds(90);

    @RegisterExtension
    static final KrillClusterExtension CLUSTER = new KrillClusterExtension(3)
            .with("transaction.state.log.min.isr", "2");

    @Test
    void fileSourceAndSinkSurviveAWorkerKillAndABrokerKill(@TempDir Path dir) throws Exception {
        KrillCluster cluster = CLUSTER.cluster();
        cluster.createTopic(TOPIC, 1, 3, Map.of("min.insync.replicas", "2"));
        Path source = dir.resolve("source.txt");
        Path sink = dir.resolve("sink.txt");
        Files.writeString(source, "");
        String testName = getClass().getSimpleName();
        ConnectProcess.clearKeptLogs(testName);

        List<ConnectProcess> workers = new ArrayList<>();
        Map<String, ConnectProcess> byWorkerId = new HashMap<>();
        Map<String, ConnectRest> restOf = new HashMap<>();
        long started = System.nanoTime();
        try {
            for (int i = 1; i <= 2; i++) {
                int port = FreePorts.next();
                ConnectProcess worker = ConnectProcess.worker(testName, "worker-" + i, dir,
                        workerConfig(cluster, port));
                workers.add(worker);
                byWorkerId.put("127.0.0.1:" + port, worker);
                restOf.put(worker.name(), new ConnectRest("127.0.0.1", port));
            }
            workers.forEach(ConnectProcess::launch);
            for (ConnectProcess worker : workers) {
                ConnectRest rest = restOf.get(worker.name());
                worker.await("REST API serving, group joined", WORKER_START,
                        () -> rest.get("/connectors").status() == 200);
            }
            LOG.info("two workers serving after {} ms", millisSince(started));
            assertInternalTopics(cluster);

            ConnectRest rest = restOf.get("worker-1");
            Map<String, String> sourceConfig = Map.of(
                    "connector.class", "org.apache.kafka.connect.file.FileStreamSourceConnector",
                    "tasks.max", "1",
                    "file", source.toString(),
                    "topic", TOPIC,
                    "exactly.once.support", "required",
                    "transaction.boundary", "poll");
            Map<String, String> sinkConfig = Map.of(
                    "connector.class", "org.apache.kafka.connect.file.FileStreamSinkConnector",
                    "tasks.max", "1",
                    "file", sink.toString(),
                    "topics", TOPIC);
            await("source connector created").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                    .until(() -> logged("PUT file-source", rest.putConnector("file-source", sourceConfig)) / 100 == 2);
            await("sink connector created").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                    .until(() -> logged("PUT file-sink", rest.putConnector("file-sink", sinkConfig)) / 100 == 2);
            awaitRunning(workers, rest, "file-source");
            awaitRunning(workers, rest, "file-sink");
            LOG.info("connectors running after {} ms", millisSince(started));

            // 1. lines flow end to end
            append(source, 1, 100);
            awaitSink(workers, sink, 100);
            LOG.info("lines 1-100 in the sink after {} ms", millisSince(started));

            // 2. SIGKILL the worker that runs the source task while lines are being appended
            String sourceWorkerId = rest.taskWorker("file-source", 0);
            String sinkWorkerId = rest.taskWorker("file-sink", 0);
            ConnectProcess victim = byWorkerId.get(sourceWorkerId);
            ConnectProcess survivor = workers.stream().filter(w -> w != victim).findFirst().orElseThrow();
            ConnectRest survivorRest = restOf.get(survivor.name());
            String survivorId = byWorkerId.entrySet().stream().filter(e -> e.getValue() == survivor)
                    .findFirst().orElseThrow().getKey();
            LOG.info("source task on {}, sink task on {}: killing {}", sourceWorkerId, sinkWorkerId, victim);
            AtomicInteger appended = new AtomicInteger(100);
            Thread appender = new Thread(() -> {
                try {
                    for (int i = 101; i <= 200; i++) {
                        append(source, i, i);
                        appended.set(i);
                        Thread.sleep(10);
                    }
                } catch (IOException | InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }, "appender");
            appender.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> appended.get() >= 150);
            long killedAt = System.nanoTime();
            victim.kill9();
            appender.join(30_000);
            await("both tasks running on the survivor " + survivorId).atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                    .failFast("survivor exited", () -> !survivor.isRunning())
                    .until(() -> survivorRest.isRunning("file-source") && survivorRest.isRunning("file-sink")
                            && survivorId.equals(survivorRest.taskWorker("file-source", 0))
                            && survivorId.equals(survivorRest.taskWorker("file-sink", 0)));
            LOG.info("tasks moved to {} {} ms after the kill", survivorId, millisSince(killedAt));
            append(source, 201, 250);
            awaitSink(workers, sink, 250);
            LOG.info("lines 1-250 in the sink {} ms after the worker kill", millisSince(killedAt));

            // 3. SIGKILL the leader of the topic's partition, append, restart it
            int leader = cluster.leaderOf(TOPIC, 0);
            long brokerKilledAt = System.nanoTime();
            cluster.kill9(leader);
            LOG.info("killed broker {}, leader of {}-0", leader, TOPIC);
            append(source, 251, 300);
            awaitSink(workers, sink, 300);
            LOG.info("lines 1-300 in the sink {} ms after the broker kill", millisSince(brokerKilledAt));
            cluster.start(leader);
            append(source, 301, 320);
            awaitSink(workers, sink, 320);
            assertTrue(survivorRest.isRunning("file-source") && survivorRest.isRunning("file-sink"),
                    () -> "connectors not running at the end: " + statusOf(survivorRest));

            // 4. the topic: exactly once, in order (read_committed)
            List<String> inTopic = readCommitted(cluster, 320);
            assertEquals(expected(1, 320), inTopic, "the topic (read_committed) holds every line once, in order");

            // 5. the sink file: every line, in order once repeats are dropped; repeats are replays
            List<String> sunk = Files.readAllLines(sink, StandardCharsets.UTF_8);
            assertEquals(expected(1, 320), new ArrayList<>(new LinkedHashSet<>(sunk)),
                    "every line in the sink, first occurrences in file order");
            int duplicates = sunk.size() - 320;
            assertReplaysOnly(sunk);
            LOG.info("sink file: {} lines for 320, {} duplicates (at-least-once sink re-delivering after the "
                    + "offsets its group last committed when its task moved); whole test {} ms",
                    sunk.size(), duplicates, millisSince(started));
        } finally {
            for (ConnectProcess worker : workers) {
                worker.close();
            }
        }
    }

    private static Map<String, String> workerConfig(KrillCluster cluster, int port) {
        Map<String, String> c = new HashMap<>();
        c.put("bootstrap.servers", cluster.bootstrapServers());
        c.put("group.id", GROUP);
        c.put("config.storage.topic", "connect-configs");
        c.put("offset.storage.topic", "connect-offsets");
        c.put("status.storage.topic", "connect-status");
        c.put("config.storage.replication.factor", "3");
        c.put("offset.storage.replication.factor", "3");
        c.put("status.storage.replication.factor", "3");
        c.put("offset.storage.partitions", "5");
        c.put("status.storage.partitions", "3");
        c.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
        c.put("value.converter", "org.apache.kafka.connect.storage.StringConverter");
        c.put("listeners", "http://127.0.0.1:" + port);
        c.put("rest.advertised.host.name", "127.0.0.1");
        c.put("rest.advertised.port", Integer.toString(port));
        c.put("exactly.once.source.support", "enabled");
        // The sink sees only committed source transactions.
        c.put("consumer.isolation.level", "read_committed");
        c.put("plugin.discovery", "service_load");
        c.put("offset.flush.interval.ms", "1000");
        // A dead worker's tasks are reassigned after its session expires plus this delay (default 5 min).
        c.put("scheduled.rebalance.max.delay.ms", "2000");
        c.put("session.timeout.ms", "6000");
        c.put("heartbeat.interval.ms", "1000");
        c.put("task.shutdown.graceful.timeout.ms", "2000");
        c.put("metadata.max.age.ms", "5000");
        return c;
    }

    /** Connect created its three topics compacted with replication factor 3. */
    private static void assertInternalTopics(KrillCluster cluster) throws Exception {
        for (String topic : List.of("connect-configs", "connect-offsets", "connect-status")) {
            assertEquals(3, cluster.describe(topic).partitions().get(0).replicas().size(), topic + " replicas");
            var resource = new org.apache.kafka.common.config.ConfigResource(
                    org.apache.kafka.common.config.ConfigResource.Type.TOPIC, topic);
            String policy = cluster.admin().describeConfigs(List.of(resource)).all()
                    .get(30, java.util.concurrent.TimeUnit.SECONDS).get(resource).get("cleanup.policy").value();
            assertEquals("compact", policy, topic + " cleanup.policy");
        }
        assertEquals(1, cluster.describe("connect-configs").partitions().size());
        assertEquals(5, cluster.describe("connect-offsets").partitions().size());
    }

    private static int logged(String what, ConnectRest.Answer answer) {
        if (answer.status() / 100 != 2) {
            LOG.info("{}: {} {}", what, answer.status(), answer.body());
        }
        return answer.status();
    }

    private static void awaitRunning(List<ConnectProcess> workers, ConnectRest rest, String connector) {
        try {
            await(connector + " and its task RUNNING").atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                    .until(() -> rest.isRunning(connector));
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError(e.getMessage() + "\nstatus: " + statusOf(rest) + tails(workers), e);
        }
    }

    private static void awaitSink(List<ConnectProcess> workers, Path sink, int last) {
        String line = line(last);
        try {
            await("line " + last + " in the sink file").atMost(DELIVERY).pollInterval(Duration.ofMillis(250))
                    .ignoreExceptions()
                    .until(() -> Files.exists(sink) && Files.readAllLines(sink, StandardCharsets.UTF_8).contains(line));
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError(e.getMessage() + tails(workers), e);
        }
    }

    private static String statusOf(ConnectRest rest) {
        try {
            return "file-source " + rest.status("file-source") + ", file-sink " + rest.status("file-sink");
        } catch (Exception e) {
            return "(no status: " + e + ")";
        }
    }

    private static String tails(List<ConnectProcess> workers) {
        StringBuilder sb = new StringBuilder();
        for (ConnectProcess w : workers) {
            sb.append("\n--- last lines of ").append(w).append(" ---\n").append(w.tail(60));
        }
        return sb.toString();
    }

    /** Each line of the sink either is new (the next line of the file) or replays lines already written. */
    private static void assertReplaysOnly(List<String> sunk) {
        Set<String> seen = new LinkedHashSet<>();
        int next = 1;
        for (int i = 0; i < sunk.size(); i++) {
            String l = sunk.get(i);
            if (l.equals(line(next))) {
                seen.add(l);
                next++;
            } else {
                assertTrue(seen.contains(l), "sink line " + (i + 1) + " '" + l + "' is neither line " + next
                        + " nor a repeat of one already written");
            }
        }
    }

    private static List<String> readCommitted(KrillCluster cluster, int count) {
        Properties props = cluster.clientProperties();
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            TopicPartition tp = new TopicPartition(TOPIC, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp)).get(tp);
            await("topic read to its end").atMost(Duration.ofSeconds(30)).until(() -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(r.value());
                }
                return consumer.position(tp) >= end;
            });
        }
        return values;
    }

    private static void append(Path file, int from, int to) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (int i = from; i <= to; i++) {
            sb.append(line(i)).append('\n');
        }
        Files.writeString(file, sb, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
    }

    private static List<String> expected(int from, int to) {
        List<String> lines = new ArrayList<>();
        for (int i = from; i <= to; i++) {
            lines.add(line(i));
        }
        return lines;
    }

    private static String line(int i) {
        return String.format("line-%05d", i);
    }

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }
}

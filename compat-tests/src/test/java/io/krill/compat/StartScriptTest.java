package io.krill.compat;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import io.krill.compat.cluster.RawRequests;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import io.krill.compat.support.FreePorts;

/**
 * The README's run command, as a user runs it: {@code bin/krill-server-start.sh} with the shipped
 * config (overridden only where a test must: port and data folder) starts a broker a stock producer
 * writes to; SIGTERM stops it cleanly, leaving the clean-shutdown marker, and a restart keeps the data.
 */
class StartScriptTest {
    private static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();
    private Process process;
    private Path dataDir;

    @AfterEach
    void cleanUp() throws Exception {
        if (process != null && process.isAlive()) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        if (dataDir != null) {
            try (Stream<Path> paths = Files.walk(dataDir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private Process start(int port, Path log) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(ROOT.resolve("bin/krill-server-start.sh").toString(),
                "--override", "listeners=PLAINTEXT://127.0.0.1:" + port,
                "--override", "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
                "--override", "log.dirs=" + dataDir)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().put("KAFKA_HEAP_OPTS", "-Xmx256m");
        return builder.start();
    }

    /** Starts the broker and returns as soon as its port takes connections (polled every 5 ms). */
    private void startAndAwaitPort(int port, Path log) throws IOException {
        process = start(port, log);
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(5))
                .until(() -> accepting(port) || !process.isAlive());
        assertTrue(process.isAlive(), () -> "broker exited: " + read(log));
    }

    private static boolean accepting(int port) {
        try (Socket ignored = new Socket("127.0.0.1", port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void startsServesStopsCleanlyAndRestartsWithItsData() throws Exception {
        dataDir = Files.createTempDirectory("krill-script");
        Path log = dataDir.resolve("server.out");
        int port = FreePorts.next();
        startAndAwaitPort(port, log);

        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
            RecordMetadata first = producer.send(new ProducerRecord<>("script-topic", "k", "v1")).get(60, TimeUnit.SECONDS);
            assertEquals(0, first.offset());
        }

        process.toHandle().destroy(); // SIGTERM
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), "stops within 30 s of SIGTERM");
        assertTrue(Files.exists(dataDir.resolve(".kafka_cleanshutdown")), "clean-shutdown marker written");
        String output = Files.readString(log);
        assertTrue(output.contains("ready in"), () -> read(log));
        assertTrue(output.contains("Listening for PLAINTEXT on /127.0.0.1:" + port), () -> read(log));

        Path secondLog = dataDir.resolve("server2.out");
        process = start(port, secondLog);
        await().atMost(Duration.ofSeconds(60)).until(() -> accepting(port) || !process.isAlive());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
            RecordMetadata second = producer.send(new ProducerRecord<>("script-topic", "k", "v2")).get(60, TimeUnit.SECONDS);
            assertEquals(1, second.offset(), "the first record survived the restart");
        }
        assertTrue(read(secondLog).contains("(clean shutdown)"), read(secondLog));
        process.toHandle().destroy();
        assertTrue(process.waitFor(30, TimeUnit.SECONDS));
    }

    /**
     * A client that connects the moment the port opens (the broker has bound it but not joined its cluster
     * yet) and asks for a topic to be auto-created is answered once the broker can serve, as Kafka's
     * acceptors start only then: the answer lists the broker, and the topic is created or the error is
     * retriable, never a permanent one such as INVALID_REPLICATION_FACTOR.
     */
    @Test
    void aClientConnectingAsTheBrokerStartsIsServedOnceItIsReady() throws Exception {
        dataDir = Files.createTempDirectory("krill-early");
        Path log = dataDir.resolve("server.out");
        int port = FreePorts.next();
        startAndAwaitPort(port, log);
        boolean readyBefore = Files.readString(log).lines()
                .anyMatch(line -> line.contains("Krill broker") && line.contains(" ready in "));
        MetadataResponse response = RawRequests.send("127.0.0.1:" + port,
                new MetadataRequest.Builder(List.of("early-topic"), true), (short) 12, 60_000);
        assertTrue(response.brokers().stream().anyMatch(node -> node.port() == port),
                () -> "the first answer comes from a broker that has joined its cluster, and lists it: "
                        + response.brokers() + "\n" + read(log));
        Errors error = response.topicMetadata().iterator().next().error();
        assertTrue(error == Errors.NONE || error.exception() instanceof RetriableException,
                () -> "the first answer for an auto-created topic: " + error + "\n" + read(log));
        assertFalse(readyBefore, "the port opened only after the broker was ready: nothing early was tried");
        List<String> lines = Files.readAllLines(log);
        int ready = indexOf(lines, "Krill broker", " ready in ");
        int created = indexOf(lines, "created topic early-topic", "");
        assertTrue(ready >= 0 && created > ready, () -> "the request was handled only once the broker was ready"
                + " (line " + created + " created the topic, line " + ready + " said ready)\n" + read(log));
        process.toHandle().destroy();
        assertTrue(process.waitFor(30, TimeUnit.SECONDS));
    }

    private static int indexOf(List<String> lines, String part, String other) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(part) && lines.get(i).contains(other)) {
                return i;
            }
        }
        return -1;
    }

    private static String read(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }
}

package io.krill.compat;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

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

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
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
        int port = freePort();
        process = start(port, log);
        await().atMost(Duration.ofSeconds(120)).until(() -> accepting(port) || !process.isAlive());
        assertTrue(process.isAlive(), () -> "broker exited: " + read(log));

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

    private static String read(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }
}

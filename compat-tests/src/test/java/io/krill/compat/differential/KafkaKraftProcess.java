package io.krill.compat.differential;

import static org.awaitility.Awaitility.await;

import io.krill.compat.TestFiles;
import io.krill.compat.support.BrokerApis;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.opentest4j.TestAbortedException;
import io.krill.compat.support.FreePorts;

/**
 * Apache Kafka 4.4 as the reference broker: one KRaft node (broker and controller combined) in a JVM of
 * its own, on two free loopback ports, with its log dir in a temporary folder. Register with
 * {@code @RegisterExtension static}; {@link #awaitReady} blocks until it serves.
 *
 * <p>Why a separate process: Kafka's server (Scala, its own Jackson, Log4j and metrics singletons) must
 * not share the test JVM, whose class path carries Krill and kafka-clients as a judge. The child's class
 * path is this test's class path without Krill's own classes, plus {@code kafka_2.13} and the Scala jars
 * the pom copies into {@code krill.compat.kafkaServerDir} (they are kept off the test class path).
 *
 * <p>{@link #beforeAll} only starts the work on a thread of its own ({@code kafka-kraft-start}): the
 * storage is formatted with Kafka's {@code StorageTool} in one short-lived JVM, then {@code kafka.Kafka}
 * is launched, while the Krill broker starts in the test JVM. {@link #afterAll} runs whether or not tests
 * failed (also after a failed start): it kills the process (SIGKILL: its data is thrown away, so a
 * controlled shutdown would only cost seconds) and deletes the folder. A shutdown hook does the same if
 * the test JVM ends first.
 *
 * <p>Thread-safety: JUnit calls the callbacks on one thread; the starter thread publishes the process
 * through a volatile field and {@link #afterAll} waits for that thread before it kills.
 */
public final class KafkaKraftProcess implements BeforeAllCallback, AfterAllCallback, TestExecutionExceptionHandler {
    /** Heap and JIT for a node that serves a few hundred requests: C1 only starts faster on two cores. */
    private static final List<String> JVM_OPTIONS = List.of("-Xms128m", "-Xmx512m", "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData", "-Djava.awt.headless=true");
    private static final Duration FORMAT_TIMEOUT = Duration.ofSeconds(60);
    private static final int NODE_ID = 1;

    private final String listenerName;
    private final Map<String, String> overrides;
    private final List<Class<?>> plugins;
    private Path dir;
    private int port;
    private int controllerPort;
    private volatile Process process;
    private volatile CompletableFuture<Void> starting;
    private Thread shutdownHook;

    /** A node with one PLAINTEXT listener for clients. */
    public KafkaKraftProcess() {
        this("PLAINTEXT", Map.of());
    }

    /**
     * A node whose client listener is named after, and speaks, {@code securityProtocol} (PLAINTEXT or
     * SASL_PLAINTEXT), with {@code overrides} (SASL and authorizer keys) added to its properties. The
     * controller listener stays PLAINTEXT (its principal is ANONYMOUS).
     */
    public KafkaKraftProcess(String securityProtocol, Map<String, String> overrides) {
        this(securityProtocol, overrides, List.of());
    }

    /**
     * As {@link #KafkaKraftProcess(String, Map)}, with {@code plugins} (top-level classes of this test's
     * class path, such as {@link DiscardingTelemetryReporter}) on Kafka's class path: the test classes
     * themselves are kept off it, so each is copied to a folder of the node's own.
     */
    public KafkaKraftProcess(String securityProtocol, Map<String, String> overrides, List<Class<?>> plugins) {
        this.listenerName = securityProtocol;
        this.overrides = Map.copyOf(overrides);
        this.plugins = List.copyOf(plugins);
    }

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        dir = Files.createTempDirectory("kafka-kraft");
        port = FreePorts.next();
        controllerPort = FreePorts.next();
        shutdownHook = new Thread(this::destroy, "kafka-kraft-cleanup");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        CompletableFuture<Void> future = new CompletableFuture<>();
        starting = future;
        Thread starter = new Thread(() -> {
            try {
                formatAndLaunch();
                future.complete(null);
            } catch (Throwable t) {
                future.completeExceptionally(t);
            }
        }, "kafka-kraft-start");
        starter.setDaemon(true);
        starter.start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        try {
            destroy();
        } finally {
            if (shutdownHook != null) {
                try {
                    Runtime.getRuntime().removeShutdownHook(shutdownHook);
                } catch (IllegalStateException e) {
                    // the JVM is shutting down: the hook runs destroy() itself
                }
            }
        }
    }

    /** Attaches the end of Kafka's log to a failed test, as KrillBrokerExtension attaches Krill's. */
    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable throwable) throws Throwable {
        if (!(throwable instanceof TestAbortedException)) {
            throwable.addSuppressed(new RecentKafkaLog(logTail()));
        }
        throw throwable;
    }

    /**
     * Waits until Kafka serves its listener and lists itself as an (unfenced) broker in Metadata; fails
     * with the end of its log otherwise.
     */
    public void awaitReady(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            starting.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new AssertionError("Kafka did not start: " + e + "\n" + logTail(), e);
        }
        Duration left = Duration.ofNanos(Math.max(deadline - System.nanoTime(), 1_000_000_000L));
        try {
            await("Kafka 4.4 serving on " + bootstrapServers()).atMost(left).pollInterval(Duration.ofMillis(200))
                    .ignoreExceptions()
                    .failFast("Kafka exited", () -> !process.isAlive())
                    .until(this::servesAsBroker);
        } catch (ConditionTimeoutException | org.awaitility.core.TerminalFailureException e) {
            throw new AssertionError(e.getMessage() + "\n" + logTail(), e);
        }
    }

    public String host() {
        return "127.0.0.1";
    }

    public int port() {
        return port;
    }

    public String bootstrapServers() {
        return host() + ":" + port;
    }

    /** The last lines of Kafka's log (server and format), for failure messages. */
    public String logTail() {
        StringBuilder sb = new StringBuilder();
        for (String name : List.of("format.log", "server.log", "stdout.log")) {
            Path file = dir == null ? null : dir.resolve(name);
            if (file != null && Files.exists(file)) {
                try {
                    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
                    sb.append("--- kafka ").append(name).append(" (last 60 lines) ---\n");
                    lines.subList(Math.max(0, lines.size() - 60), lines.size()).forEach(l -> sb.append(l).append('\n'));
                } catch (IOException e) {
                    sb.append("(").append(name).append(" unreadable: ").append(e).append(")\n");
                }
            }
        }
        return sb.toString();
    }

    /**
     * Serves ApiVersions and lists itself as an (unfenced) broker in Metadata; behind SASL, where Metadata
     * needs a login, serves ApiVersions and has logged that its startup (which waits to be unfenced) ended.
     */
    private boolean servesAsBroker() throws IOException {
        if (BrokerApis.probe(host(), port).versions().isEmpty()) {
            return false;
        }
        if (listenerName.equals("PLAINTEXT")) {
            return !io.krill.compat.cluster.RawRequests.metadata(bootstrapServers(), List.of()).brokers().isEmpty();
        }
        Path log = dir.resolve("server.log");
        return Files.exists(log) && Files.readString(log, StandardCharsets.UTF_8).contains("Kafka Server started");
    }

    private void formatAndLaunch() throws IOException, InterruptedException {
        Path config = dir.resolve("server.properties");
        Files.writeString(config, serverProperties(), StandardCharsets.UTF_8);
        Path logback = dir.resolve("logback.xml");
        Files.writeString(logback, logbackConfig(dir.resolve("server.log")), StandardCharsets.UTF_8);
        copyPlugins();
        String classPath = classPath();

        List<String> format = javaCommand(classPath, logback);
        format.addAll(List.of("kafka.tools.StorageTool", "format", "-t", Uuid.randomUuid().toString(),
                "-c", config.toString()));
        Process formatting = new ProcessBuilder(format).redirectErrorStream(true)
                .redirectOutput(dir.resolve("format.log").toFile()).start();
        try {
            if (!formatting.waitFor(FORMAT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("Kafka's StorageTool format still running after " + FORMAT_TIMEOUT);
            }
        } finally {
            formatting.destroyForcibly();
        }
        if (formatting.exitValue() != 0) {
            throw new IllegalStateException("Kafka's StorageTool format exited with " + formatting.exitValue());
        }

        launch(classPath);
    }

    /** Launches {@code kafka.Kafka} on the formatted folder; its output is appended to stdout.log. */
    private void launch(String classPath) throws IOException {
        synchronized (this) {
            if (dir == null) {
                return; // afterAll came first
            }
            List<String> server = javaCommand(classPath, dir.resolve("logback.xml"));
            server.addAll(List.of("kafka.Kafka", dir.resolve("server.properties").toString()));
            process = new ProcessBuilder(server).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("stdout.log").toFile())).start();
        }
    }

    /**
     * Kills the node (SIGKILL, as a crash) and launches it again on the same ports and log dir, without
     * formatting, then waits until it serves as {@link #awaitReady} does. In KRaft the node's new broker
     * registration fences the old one and then is unfenced: its partitions get new leader epochs.
     * Called by the test thread between tests, after {@link #awaitReady}.
     */
    public void restart(Duration timeout) throws IOException {
        relaunch();
        awaitReady(timeout);
    }

    /** {@link #restart} without the wait: the caller does other work, then calls {@link #awaitReady}. */
    public void relaunch() throws IOException {
        Process running = process;
        if (running == null) {
            throw new IllegalStateException("Kafka is not running");
        }
        kill(running);
        launch(classPath());
    }

    private static void kill(Process running) {
        running.descendants().forEach(ProcessHandle::destroyForcibly);
        running.destroyForcibly();
        try {
            running.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static List<String> javaCommand(String classPath, Path logback) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(JVM_OPTIONS);
        command.add("-Dlogback.configurationFile=" + logback);
        command.add("-cp");
        command.add(classPath);
        return command;
    }

    private void destroy() {
        CompletableFuture<Void> start = starting;
        if (start != null) {
            try {
                start.get(FORMAT_TIMEOUT.toSeconds() + 10, TimeUnit.SECONDS);
            } catch (Exception e) {
                // a failed start has been reported by awaitReady; clean up regardless
            }
        }
        Path folder;
        Process running;
        synchronized (this) {
            folder = dir;
            running = process;
            dir = null;
            process = null;
        }
        if (running != null) {
            kill(running);
        }
        TestFiles.deleteRecursively(folder);
    }

    private String serverProperties() {
        StringBuilder extra = new StringBuilder();
        overrides.forEach((key, value) -> extra.append(key).append('=').append(value.replace("\\", "\\\\"))
                .append('\n'));
        return String.join("\n",
                "process.roles=broker,controller",
                "node.id=" + NODE_ID,
                "controller.quorum.voters=" + NODE_ID + "@127.0.0.1:" + controllerPort,
                "listeners=" + listenerName + "://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort,
                "advertised.listeners=" + listenerName + "://127.0.0.1:" + port,
                "controller.listener.names=CONTROLLER",
                "inter.broker.listener.name=" + listenerName,
                "listener.security.protocol.map=CONTROLLER:PLAINTEXT," + listenerName + ":" + listenerName,
                "log.dirs=" + dir.resolve("data"),
                // What DifferentialNodes gives Krill too: one node, small internal topics.
                "num.partitions=1",
                "default.replication.factor=1",
                "offsets.topic.replication.factor=1",
                "offsets.topic.num.partitions=1",
                "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1",
                "transaction.state.log.num.partitions=1",
                "share.coordinator.state.topic.replication.factor=1",
                "share.coordinator.state.topic.min.isr=1",
                "share.coordinator.state.topic.num.partitions=1",
                "group.initial.rebalance.delay.ms=0",
                // The sequences' records carry 2023 timestamps (ClientRequests.BASE_TIMESTAMP): with a retention
                // time, a retention pass (30 s after the start, then every 5 min) would delete them mid-sequence.
                "log.retention.ms=-1",
                // Two cores: few threads.
                "num.network.threads=1",
                "num.io.threads=2",
                "num.recovery.threads.per.data.dir=1",
                "background.threads=2",
                extra.toString());
    }

    private static String logbackConfig(Path logFile) {
        return """
                <configuration>
                  <appender name="FILE" class="ch.qos.logback.core.FileAppender">
                    <file>%s</file>
                    <encoder><pattern>%%d{HH:mm:ss.SSS} %%-5level %%msg \\(%%logger{0}\\) [%%thread]%%n</pattern></encoder>
                  </appender>
                  <logger name="kafka.server" level="INFO"/>
                  <root level="WARN"><appender-ref ref="FILE"/></root>
                </configuration>
                """.formatted(logFile);
    }

    /**
     * This test's class path minus Krill's classes (target folders, io.krill artifacts), then Kafka's
     * server jars as the pom copied them.
     */
    private String classPath() throws IOException {
        String serverDir = System.getProperty("krill.compat.kafkaServerDir");
        if (serverDir == null) {
            throw new IllegalStateException("system property krill.compat.kafkaServerDir is not set (run through Maven)");
        }
        List<String> entries = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String normalized = entry.replace('\\', '/');
            boolean krill = normalized.contains("/io/krill/") || normalized.endsWith("/target/classes")
                    || normalized.endsWith("/target/test-classes");
            if (!entry.isEmpty() && !krill) {
                entries.add(entry);
            }
        }
        try (Stream<Path> jars = Files.list(Path.of(serverDir))) {
            List<String> server = jars.filter(p -> p.toString().endsWith(".jar")).map(Path::toString).sorted()
                    .collect(Collectors.toList());
            if (server.stream().noneMatch(p -> p.contains("kafka_2.13"))) {
                throw new IllegalStateException("no kafka_2.13 jar in " + serverDir);
            }
            entries.addAll(server);
        }
        if (!plugins.isEmpty()) {
            entries.add(dir.resolve("plugins").toString());
        }
        return String.join(File.pathSeparator, entries);
    }

    /** Copies each plugin's class file, from this test's class path, to {@code plugins/} of the node's folder. */
    private void copyPlugins() throws IOException {
        for (Class<?> plugin : plugins) {
            String file = plugin.getName().replace('.', '/') + ".class";
            Path target = dir.resolve("plugins").resolve(file);
            Files.createDirectories(target.getParent());
            try (var in = plugin.getClassLoader().getResourceAsStream(file)) {
                if (in == null) {
                    throw new IllegalStateException("no class file " + file + " on the test class path");
                }
                Files.copy(in, target);
            }
        }
    }

    /** Carries Kafka's recent log lines on a failed test's exception. */
    static final class RecentKafkaLog extends Exception {
        private static final long serialVersionUID = 1L;

        RecentKafkaLog(String lines) {
            super("recent Kafka 4.4 log:\n" + lines, null, false, false);
        }
    }
}

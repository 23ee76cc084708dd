package io.krill.compat.connect;

import io.krill.compat.TestFiles;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A Kafka Connect 4.4 JVM of its own: a distributed worker ({@code ConnectDistributed}) or MirrorMaker 2's
 * dedicated driver ({@code MirrorMaker}), run on a properties file, with its log (logback, through
 * Connect's SLF4J logging) in a file of its own.
 *
 * <p>Why a process: a test kills a worker with SIGKILL, which must take its clients, its group membership
 * and its open transactions with it, as a crash does; and Connect's Jetty, Jersey and Jackson stay out of
 * the test JVM. The class path is this test's minus Krill's own classes (the pom puts connect-runtime,
 * connect-file and connect-mirror on it, test scope). The process is the JVM itself ({@code java} is
 * launched directly), so {@link #kill9} reaches it and nothing else.
 *
 * <p>{@link #close} kills the process if it runs and copies its log to
 * {@code target/connect-logs/<test>/}. Not thread-safe: driven by the test thread.
 */
final class ConnectProcess implements AutoCloseable {
    /** Two cores shared with three brokers and the test: a small heap, C1 only, serial GC. */
    private static final List<String> JVM_OPTIONS = List.of("-Xms64m", "-Xmx384m", "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData", "-Djava.awt.headless=true");
    private static final List<String> NOT_FOR_WORKERS = List.of("rocksdbjni", "kafka-streams", "junit-",
            "opentest4j", "awaitility", "hamcrest", "helix", "zookeeper", "netty-");
    static final String DISTRIBUTED = "org.apache.kafka.connect.cli.ConnectDistributed";
    static final String MIRROR_MAKER = "org.apache.kafka.connect.mirror.MirrorMaker";

    private final String name;
    private final String testName;
    private final String mainClass;
    private final Path configFile;
    private final Path logFile;
    private final Path logback;
    private final List<String> extraArgs;
    private Process process;

    private ConnectProcess(String testName, String name, Path dir, String mainClass, Map<String, String> config,
            List<String> extraArgs) {
        this.testName = testName;
        this.name = name;
        this.mainClass = mainClass;
        this.extraArgs = List.copyOf(extraArgs);
        this.configFile = dir.resolve(name + ".properties");
        this.logFile = dir.resolve(name + ".log");
        this.logback = dir.resolve(name + "-logback.xml");
        StringBuilder sb = new StringBuilder();
        new TreeMap<>(config).forEach((k, v) -> sb.append(k).append('=').append(v.replace("\\", "\\\\")).append('\n'));
        try {
            Files.createDirectories(dir);
            Files.writeString(configFile, sb, StandardCharsets.UTF_8);
            Files.writeString(logFile, "", StandardCharsets.UTF_8);
            Files.writeString(logback, logbackConfig(logFile), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A distributed worker ({@code connect-distributed.sh worker.properties}). */
    static ConnectProcess worker(String testName, String name, Path dir, Map<String, String> config) {
        return new ConnectProcess(testName, name, dir, DISTRIBUTED, config, List.of());
    }

    /** MirrorMaker 2's dedicated driver ({@code connect-mirror-maker.sh mm2.properties [args]}). */
    static ConnectProcess mirrorMaker(String testName, String name, Path dir, Map<String, String> config,
            List<String> args) {
        return new ConnectProcess(testName, name, dir, MIRROR_MAKER, config, args);
    }

    String name() {
        return name;
    }

    Path logFile() {
        return logFile;
    }

    boolean isRunning() {
        return process != null && process.isAlive();
    }

    void launch() {
        if (isRunning()) {
            throw new IllegalStateException(name + " already runs");
        }
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(JVM_OPTIONS);
        command.add("-Dlogback.configurationFile=" + logback);
        command.add("-cp");
        command.add(classPath());
        command.add(mainClass);
        command.add(configFile.toString());
        command.addAll(extraArgs);
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile())).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name, e);
        }
    }

    /** Waits until {@code condition} holds, failing fast (with the log) if the process exits. */
    void await(String what, Duration timeout, java.util.concurrent.Callable<Boolean> condition) {
        try {
            org.awaitility.Awaitility.await(name + ": " + what).atMost(timeout).pollInterval(Duration.ofMillis(250))
                    .ignoreExceptions()
                    .failFast(name + " exited", () -> !isRunning())
                    .until(condition);
        } catch (ConditionTimeoutException | org.awaitility.core.TerminalFailureException e) {
            throw new AssertionError(e.getMessage() + "\n--- last lines of " + name + " ---\n" + tail(80), e);
        }
    }

    /** SIGKILL: no shutdown hook, no LeaveGroup, open transactions left to be fenced or to time out. */
    void kill9() {
        Process running = process;
        if (running == null || !running.isAlive()) {
            throw new IllegalStateException(name + " is not running");
        }
        running.destroyForcibly();
        try {
            if (!running.waitFor(30, TimeUnit.SECONDS)) {
                throw new AssertionError(name + " still alive 30 s after SIGKILL");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    String tail(int lines) {
        try {
            List<String> all = Files.readAllLines(logFile, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(cannot read " + logFile + ": " + e + ")";
        }
    }

    /** Lines of the log that contain {@code text}. */
    List<String> logLines(String text) {
        try {
            return Files.readAllLines(logFile, StandardCharsets.UTF_8).stream().filter(l -> l.contains(text)).toList();
        } catch (IOException | UncheckedIOException e) {
            return List.of();
        }
    }

    @Override
    public void close() {
        Process running = process;
        if (running != null && running.isAlive()) {
            running.destroyForcibly();
            try {
                running.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        Path kept = Path.of(System.getProperty("user.dir"), "target", "connect-logs", testName);
        try {
            Files.createDirectories(kept);
            if (Files.exists(logFile)) {
                Files.copy(logFile, kept.resolve(logFile.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            // the log is a convenience: never fail the cleanup for it
        }
    }

    /** Clears {@code target/connect-logs/<test>/} of an earlier run. */
    static void clearKeptLogs(String testName) {
        TestFiles.deleteRecursively(Path.of(System.getProperty("user.dir"), "target", "connect-logs", testName));
    }

    private static String logbackConfig(Path file) {
        return """
                <configuration>
                  <appender name="FILE" class="ch.qos.logback.core.FileAppender">
                    <file>%s</file>
                    <encoder><pattern>%%d{HH:mm:ss.SSS} %%-5level [%%thread] %%logger{0}: %%msg%%n</pattern></encoder>
                  </appender>
                  <logger name="org.apache.kafka.connect" level="INFO"/>
                  <logger name="org.apache.kafka.connect.runtime.WorkerConfig" level="WARN"/>
                  <logger name="org.apache.kafka.connect.runtime.isolation" level="WARN"/>
                  <logger name="org.apache.kafka.connect.mirror" level="INFO"/>
                  <logger name="org.apache.kafka.connect.mirror.MirrorCheckpointTask" level="DEBUG"/>
                  <logger name="org.apache.kafka.connect.mirror.OffsetSyncStore" level="DEBUG"/>
                  <logger name="org.apache.kafka.connect.mirror.OffsetSyncWriter" level="DEBUG"/>
                  <logger name="org.apache.kafka.clients" level="WARN"/>
                  <logger name="org.apache.kafka.clients.consumer.internals.ConsumerCoordinator" level="INFO"/>
                  <logger name="org.apache.kafka.clients.producer.internals.TransactionManager" level="INFO"/>
                  <logger name="org.apache.kafka.common" level="WARN"/>
                  <logger name="org.eclipse.jetty" level="WARN"/>
                  <logger name="org.glassfish" level="WARN"/>
                  <root level="INFO"><appender-ref ref="FILE"/></root>
                </configuration>
                """.formatted(file);
    }

    /** This test's class path without Krill's own classes and artifacts. */
    private static String classPath() {
        List<String> entries = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String normalized = entry.replace('\\', '/');
            boolean krill = normalized.contains("/io/krill/") || normalized.endsWith("/target/classes")
                    || normalized.endsWith("/target/test-classes");
            String file = normalized.substring(normalized.lastIndexOf('/') + 1);
            // what Connect never loads but its plugin scan would read: Streams, RocksDB, test libraries
            boolean unused = NOT_FOR_WORKERS.stream().anyMatch(file::startsWith);
            if (!entry.isEmpty() && !krill && !unused) {
                entries.add(entry);
            }
        }
        if (entries.stream().noneMatch(e -> e.contains("connect-runtime"))) {
            throw new IllegalStateException("connect-runtime is not on the test class path");
        }
        entries.add(pluginBridges().toString());
        return String.join(File.pathSeparator, entries);
    }

    /**
     * A folder with the two classes that let the 4.3.1 plugins (connect-file, connect-mirror: Maven Central
     * has no 4.4.0 of them yet) link against kafka-clients 4.4.0, which moved {@code AppInfoParser} and
     * {@code Exit} from {@code org.apache.kafka.common.utils} to its {@code internals} package; the bridges
     * forward to the moved classes. Copied out of the test classes, so nothing else of them reaches the workers.
     */
    private static synchronized Path pluginBridges() {
        Path dir = Path.of(System.getProperty("user.dir"), "target", "connect-plugin-bridges");
        try {
            for (String name : List.of("AppInfoParser", "Exit")) {
                String resource = "org/apache/kafka/common/utils/" + name + ".class";
                Path file = dir.resolve(resource);
                Files.createDirectories(file.getParent());
                try (var in = ConnectProcess.class.getClassLoader().getResourceAsStream(resource)) {
                    if (in == null) {
                        throw new IllegalStateException(resource + " is not among the test classes");
                    }
                    Files.copy(in, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return dir;
    }

    @Override
    public String toString() {
        return name + (isRunning() ? " (pid " + process.pid() + ")" : " (down)");
    }
}

package io.krill.compat.cluster;

import static org.awaitility.Awaitility.await;

import io.krill.compat.support.Processes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;

/**
 * One broker of a {@link KrillCluster} as an operating-system process: the distribution's
 * {@code bin/krill-server-start.sh} run on its own config file, port, data folder and log file. The port,
 * folder and files stay the same across restarts, so a restarted broker finds its data and clients find
 * the broker where metadata said it was; every start appends to the same log file after a marker line.
 *
 * <p>The script {@code exec}s {@code krill-run-class.sh}, which {@code exec}s java: the process started
 * here is the broker's JVM itself, so a signal sent to its pid reaches the broker and nothing else (checked
 * on every start, since a script that stopped exec'ing would make kill -9 hit a shell and leave an orphan).
 *
 * <p>A broker may run behind a launcher prefix (the fault campaign's {@code ip netns exec <namespace>}, which
 * exec's too) and listen on another host than loopback; {@link #address()} is then that host.
 *
 * <p>Not thread-safe: driven by the test thread.
 */
public final class BrokerProcess {
    /** Heap and JIT settings that let three brokers, ZooKeeper and the test share two cores. */
    private static final String HEAP_OPTS = "-Xms64m -Xmx256m";
    private static final String JVM_OPTS = "-XX:+UseSerialGC -XX:TieredStopAtLevel=1";

    private final int id;
    private final String host;
    private final int port;
    private final List<String> launcher;
    private final Path script;
    private final Path dataDir;
    private final Path configFile;
    private final Path logFile;
    private Process process;
    private boolean paused;
    private int starts;
    /** Where the current start's output begins in the log file. */
    private long startOffset;

    BrokerProcess(int id, int port, Path script, Path dir, Map<String, String> config) {
        this(id, "127.0.0.1", port, List.of(), script, dir, config);
    }

    /**
     * A broker listening on {@code host:port} (as {@code config} says), started as {@code launcher} followed
     * by the start script and its config file; {@code launcher} must exec, so the process is still the JVM.
     */
    public BrokerProcess(int id, String host, int port, List<String> launcher, Path script, Path dir,
            Map<String, String> config) {
        this.id = id;
        this.host = host;
        this.port = port;
        this.launcher = List.copyOf(launcher);
        this.script = script;
        this.dataDir = dir.resolve("data-" + id);
        this.configFile = dir.resolve("broker-" + id + ".properties");
        this.logFile = dir.resolve("broker-" + id + ".log");
        StringBuilder sb = new StringBuilder();
        new TreeMap<>(config).forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
        try {
            Files.createDirectories(dataDir);
            Files.writeString(configFile, sb);
            Files.writeString(logFile, "");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public int id() {
        return id;
    }

    public int port() {
        return port;
    }

    public String address() {
        return host + ":" + port;
    }

    public Path dataDir() {
        return dataDir;
    }

    public Path logFile() {
        return logFile;
    }

    public boolean isRunning() {
        return process != null && process.isAlive();
    }

    public boolean isPaused() {
        return paused && isRunning();
    }

    public long pid() {
        if (!isRunning()) {
            throw new IllegalStateException("broker " + id + " is not running");
        }
        return process.pid();
    }

    /** Starts the broker and returns once it logged that it is ready; fails with its log if it does not. */
    public void start(Duration timeout) {
        launch();
        awaitReady(timeout);
    }

    /** Starts the process without waiting (brokers of a new cluster start side by side). */
    public void launch() {
        if (isRunning()) {
            throw new IllegalStateException("broker " + id + " is already running (pid " + process.pid() + ")");
        }
        starts++;
        String marker = "==== test harness: start #" + starts + " of broker " + id + " at " + LocalTime.now() + " ====";
        try {
            Files.writeString(logFile, marker + "\n", StandardOpenOption.APPEND);
            startOffset = Files.size(logFile);
            List<String> command = new ArrayList<>(launcher);
            command.add(script.toString());
            command.add(configFile.toString());
            ProcessBuilder builder = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
            builder.environment().put("KAFKA_HEAP_OPTS", HEAP_OPTS);
            builder.environment().put("KAFKA_JVM_PERFORMANCE_OPTS", JVM_OPTS);
            process = builder.start();
            paused = false;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start broker " + id, e);
        }
    }

    /** Waits for the line the broker logs once it serves, registered in the cluster; checks the pid is java. */
    public void awaitReady(Duration timeout) {
        Process started = process;
        if (started == null) {
            throw new IllegalStateException("broker " + id + " was never launched");
        }
        String ready = "Krill broker " + id + " of cluster ";
        try {
            await("broker " + id + " ready").atMost(timeout).pollInterval(Duration.ofMillis(100))
                    .until(() -> !started.isAlive() || logSince(startOffset).lines()
                            .anyMatch(l -> l.contains(ready) && l.contains(" ready in ")));
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("broker " + id + " not ready within " + timeout + "\n" + tail(60), e);
        }
        if (!started.isAlive()) {
            throw new AssertionError("broker " + id + " exited with " + started.exitValue() + " while starting\n"
                    + tail(60));
        }
        String command = started.info().command().orElse("?");
        if (!command.endsWith("/java")) {
            throw new AssertionError("pid " + started.pid() + " of broker " + id + " runs " + command
                    + ", not java: the start script no longer execs the JVM, so signals would miss the broker");
        }
    }

    /** SIGKILL (Java's forcible destroy is SIGKILL on Unix): no shutdown hook, no controlled shutdown. */
    public void kill9() {
        Process running = requireRunning();
        running.destroyForcibly();
        awaitExit(running, Duration.ofSeconds(30), "SIGKILL");
        paused = false;
    }

    /** SIGTERM (the broker's controlled shutdown) and waits for the process to exit. */
    public void stop(Duration timeout) {
        Process running = requireRunning();
        if (paused) {
            resume();
        }
        running.destroy();
        awaitExit(running, timeout, "SIGTERM");
    }

    /** SIGSTOP: the JVM freezes with its sockets and ZooKeeper session open, as in a long GC pause. */
    public void pause() {
        signal("STOP");
        paused = true;
    }

    /** SIGCONT. */
    public void resume() {
        signal("CONT");
        paused = false;
    }

    /** Kills the process if it runs (SIGKILL works on a stopped process too); never throws. */
    public void destroy() {
        Process running = process;
        if (running != null && running.isAlive()) {
            running.destroyForcibly();
            try {
                running.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        paused = false;
    }

    /** The last {@code lines} lines of the broker's log (all its starts). */
    public String tail(int lines) {
        try {
            List<String> all = Files.readAllLines(logFile, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(cannot read " + logFile + ": " + e + ")";
        }
    }

    /** The whole log of the current start (after its marker line). */
    public String logOfCurrentStart() {
        try {
            String all = Files.readString(logFile, StandardCharsets.UTF_8);
            int at = all.lastIndexOf("==== test harness: start #");
            return at < 0 ? all : all.substring(at);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String logSince(long offset) throws IOException {
        byte[] bytes = Files.readAllBytes(logFile);
        int from = (int) Math.min(offset, bytes.length);
        return new String(bytes, from, bytes.length - from, StandardCharsets.UTF_8);
    }

    private Process requireRunning() {
        if (!isRunning()) {
            throw new IllegalStateException("broker " + id + " is not running");
        }
        return process;
    }

    private void signal(String signal) {
        Processes.run(List.of("kill", "-" + signal, Long.toString(pid())), "", Duration.ofSeconds(10))
                .assertSuccess();
    }

    private void awaitExit(Process running, Duration timeout, String signal) {
        try {
            if (!running.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("broker " + id + " still running " + timeout + " after " + signal + "\n"
                        + tail(60));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted waiting for broker " + id + " to exit", e);
        }
    }

    @Override
    public String toString() {
        return "broker " + id + " (" + address() + (isRunning() ? ", pid " + process.pid() : ", down")
                + (isPaused() ? ", paused" : "") + ")";
    }
}

package io.krill.compat.faults;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import io.krill.compat.support.FreePorts;

/**
 * The cluster's ZooKeeper as its own process (the distribution's {@code bin/zookeeper-server-start.sh}), on
 * the bridge address so that brokers in their namespaces reach it, with its data on disk so that a restart
 * (even after SIGKILL) keeps the cluster's metadata and the sessions it had granted. A process rather than a
 * server in the test JVM, so the nemesis can kill it the way a machine dies. Same port on every start.
 *
 * <p>{@code tickTime} 1000 ms lets brokers ask for sessions from 2 s.
 */
final class ZooKeeperProcess implements AutoCloseable {
    private final String host;
    private final int port;
    private final Path script;
    private final Path config;
    private final Path logFile;
    private Process process;

    ZooKeeperProcess(Path distribution, String host, Path dir) {
        this.host = host;
        this.port = FreePorts.next();
        this.script = distribution.resolve("bin/zookeeper-server-start.sh");
        this.config = dir.resolve("zookeeper.properties");
        this.logFile = dir.resolve("zookeeper.log");
        String properties = "dataDir=" + dir.resolve("zookeeper-data") + "\n"
                + "clientPort=" + port + "\n"
                + "clientPortAddress=" + host + "\n"
                + "maxClientCnxns=0\n"
                + "tickTime=1000\n"
                + "admin.enableServer=false\n"
                + "4lw.commands.whitelist=ruok\n";
        try {
            Files.writeString(config, properties);
            Files.writeString(logFile, "");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    int port() {
        return port;
    }

    String connectString() {
        return host + ":" + port;
    }

    Path logFile() {
        return logFile;
    }

    boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** Starts the server and waits until it answers {@code ruok}. */
    void start() {
        if (isRunning()) {
            throw new IllegalStateException("ZooKeeper already runs");
        }
        try {
            Files.writeString(logFile, "==== test harness: ZooKeeper start ====\n", StandardOpenOption.APPEND);
            ProcessBuilder builder = new ProcessBuilder(script.toString(), config.toString())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
            builder.environment().put("KAFKA_HEAP_OPTS", "-Xms64m -Xmx512m");
            builder.environment().put("KAFKA_JVM_PERFORMANCE_OPTS", "-XX:+UseSerialGC -XX:TieredStopAtLevel=1");
            builder.environment().put("KAFKA_OPTS", "-Dkrill.zookeeper.log.level=WARN");
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start ZooKeeper", e);
        }
        Process started = process;
        await("ZooKeeper answers ruok on " + connectString()).atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> !started.isAlive() || answersRuok());
        if (!started.isAlive()) {
            throw new AssertionError("ZooKeeper exited with " + started.exitValue() + ", see " + logFile);
        }
    }

    private boolean answersRuok() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 1000);
            socket.setSoTimeout(2000);
            OutputStream out = socket.getOutputStream();
            out.write("ruok".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readNBytes(4), StandardCharsets.US_ASCII).equals("imok");
        } catch (IOException e) {
            return false;
        }
    }

    /** SIGKILL and waits for the process to end: every session and connection drops at once. */
    void kill9() {
        Process running = process;
        if (running == null || !running.isAlive()) {
            return;
        }
        running.destroyForcibly();
        try {
            if (!running.waitFor(30, TimeUnit.SECONDS)) {
                throw new AssertionError("ZooKeeper still runs 30 s after SIGKILL");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    @Override
    public void close() {
        kill9();
    }
}

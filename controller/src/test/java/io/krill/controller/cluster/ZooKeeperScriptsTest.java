package io.krill.controller.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.krill.controller.metadata.NewTopic;
import io.krill.controller.metadata.PartitionState;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution's standalone ZooKeeper as a user runs it: {@code bin/zookeeper-server-start.sh
 * config/zookeeper.properties} (in the foreground, then with {@code -daemon}) and {@code
 * bin/zookeeper-server-stop.sh}, with the shipped scripts and configuration (only the data folder and
 * port substituted) in a throwaway installation whose {@code libs/} are this test's jars, so nothing is
 * built. A cluster store connects to it, and its data survives a restart.
 */
class ZooKeeperScriptsTest {
    private static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();
    private static final String MAIN = "org.apache.zookeeper.server.quorum.QuorumPeerMain";
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    private Path installation;
    private Process foreground;

    @AfterEach
    void stopWhatIsLeft() throws Exception {
        if (foreground != null && foreground.isAlive()) {
            foreground.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        // A daemon is not our child: find it by this test's own installation folder, which nothing else names.
        if (installation != null) {
            String marker = installation + File.separator;
            List<ProcessHandle> leftovers = ProcessHandle.allProcesses().filter(p -> p.info().commandLine()
                    .map(line -> line.contains(MAIN) && line.contains(marker)).orElse(false)).toList();
            for (ProcessHandle leftover : leftovers) {
                leftover.destroyForcibly();
                leftover.onExit().get(10, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void startsInTheForegroundAndAsADaemonAndStops() throws Exception {
        assumeTrue(new File("/bin/bash").canExecute(), "needs bash");
        int port = freePort();
        Path data = dir.resolve("zookeeper-data");
        installation = install(port, data);
        Path config = installation.resolve("config/zookeeper.properties");

        Path console = dir.resolve("foreground.out");
        foreground = script("zookeeper-server-start.sh", config.toString()).redirectErrorStream(true)
                .redirectOutput(console.toFile()).start();
        await().atMost(PATIENCE).until(() -> "imok".equals(fourLetterWord(port, "ruok")) || !foreground.isAlive());
        assertTrue(foreground.isAlive(), () -> "ZooKeeper exited: " + tail(console));
        assertTrue(Files.isDirectory(data.resolve("version-2")), "its data goes to the configured dataDir");

        String connect = InetAddress.getLoopbackAddress().getHostAddress() + ":" + port + "/krill";
        try (ZooKeeperMetadataStore store = new ZooKeeperMetadataStore(
                ZooKeeperStoreConfig.of(connect, "scripted", 1).withSessionTimeoutMs(4_000))) {
            store.registerBroker(TestCluster.broker(1));
            store.createTopic(NewTopic.of("kept", 1, 1));
            await().atMost(PATIENCE).until(() -> store.image().topic("kept").partition(0).hasLeader());
        }

        assertEquals(0, run("zookeeper-server-stop.sh"), "stops the server it started");
        assertTrue(foreground.waitFor(30, TimeUnit.SECONDS), "exits on SIGTERM");
        String output = tail(console);
        assertTrue(output.contains("binding to port"), "ZooKeeper logs at INFO through SLF4J: " + output);
        assertEquals(1, run("zookeeper-server-stop.sh"), "nothing left to stop");

        Path logs = dir.resolve("logs");
        ProcessBuilder daemon = script("zookeeper-server-start.sh", "-daemon", config.toString());
        daemon.environment().put("LOG_DIR", logs.toString());
        Process launcher = daemon.redirectErrorStream(true).redirectOutput(dir.resolve("launcher.out").toFile()).start();
        assertTrue(launcher.waitFor(30, TimeUnit.SECONDS), "-daemon returns at once");
        assertEquals(0, launcher.exitValue(), () -> tail(dir.resolve("launcher.out")));
        Path daemonConsole = logs.resolve("zookeeper.out");
        await().atMost(PATIENCE).until(() -> "imok".equals(fourLetterWord(port, "ruok")));
        try (ZooKeeperMetadataStore store = new ZooKeeperMetadataStore(
                ZooKeeperStoreConfig.of(connect, "scripted", 1).withSessionTimeoutMs(4_000))) {
            PartitionState kept = store.image().topic("kept").partition(0);
            assertEquals(List.of(1), kept.replicas(), "the metadata survived the restart");
        }
        assertEquals(0, run("zookeeper-server-stop.sh"));
        await().atMost(PATIENCE).until(() -> fourLetterWord(port, "ruok") == null);
        assertTrue(tail(daemonConsole).contains("binding to port"), () -> tail(daemonConsole));
    }

    /** A copy of the distribution's layout: the real bin/ scripts and config/, libs/ linking this test's jars. */
    private Path install(int port, Path data) throws IOException {
        Path home = dir.resolve("krill");
        Files.createDirectories(home.resolve("bin"));
        for (String name : List.of("krill-run-class.sh", "zookeeper-server-start.sh", "zookeeper-server-stop.sh")) {
            Path script = Files.copy(ROOT.resolve("bin").resolve(name), home.resolve("bin").resolve(name));
            assertTrue(script.toFile().setExecutable(true));
        }
        Files.createDirectories(home.resolve("config"));
        List<String> lines = new ArrayList<>();
        for (String line : Files.readAllLines(ROOT.resolve("config/zookeeper.properties"))) {
            if (line.startsWith("dataDir=")) {
                line = "dataDir=" + data;
            } else if (line.startsWith("clientPort=")) {
                line = "clientPort=" + port;
            }
            lines.add(line);
        }
        assertTrue(lines.contains("clientPort=" + port) && lines.contains("dataDir=" + data), "substituted: " + lines);
        Files.write(home.resolve("config/zookeeper.properties"), lines);
        Path libs = Files.createDirectories(home.resolve("libs"));
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path jar = Path.of(entry);
            if (entry.endsWith(".jar") && !Files.exists(libs.resolve(jar.getFileName()))) {
                Files.createSymbolicLink(libs.resolve(jar.getFileName()), jar);
            }
        }
        return home;
    }

    private ProcessBuilder script(String name, String... args) {
        List<String> command = new ArrayList<>(List.of("/bin/bash", installation.resolve("bin").resolve(name).toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().put("KAFKA_HEAP_OPTS", "-Xmx128m");
        return builder;
    }

    private int run(String name) throws Exception {
        Process process = script(name).redirectErrorStream(true).redirectOutput(dir.resolve(name + ".out").toFile())
                .start();
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), name + " finishes");
        return process.exitValue();
    }

    /** ZooKeeper's answer to a four-letter word, or null when nothing answers. */
    private static String fourLetterWord(int port, String word) {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(2_000);
            OutputStream out = socket.getOutputStream();
            out.write(word.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim();
        } catch (IOException e) {
            return null;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static String tail(Path file) {
        try (Stream<String> lines = Files.lines(file)) {
            List<String> all = lines.toList();
            return String.join("\n", all.subList(Math.max(0, all.size() - 40), all.size()));
        } catch (IOException e) {
            return "(no output: " + e + ")";
        }
    }
}

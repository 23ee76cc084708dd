package io.krill.compat.cluster;

import static org.awaitility.Awaitility.await;

import io.krill.compat.TestFiles;
import io.krill.controller.cluster.EmbeddedZooKeeper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.requests.MetadataResponse.PartitionMetadata;
import io.krill.compat.support.FreePorts;

/**
 * A Krill cluster for tests: one ZooKeeper in this JVM (a fresh chroot per cluster) and N brokers, each a
 * separate process started from the built distribution ({@code broker/target/krill/krill-*}; Maven's
 * {@code package} phase of the broker module builds it before compat-tests run), with its own port, data
 * folder, config file and log file. Tests kill, stop, pause and restart brokers by id; the harness checks
 * nothing about Krill itself beyond "the broker said it is ready" and leaves the judging to stock clients.
 *
 * <p>{@link #close} kills every broker (SIGKILL), stops ZooKeeper and deletes the folder, whatever state
 * the test left; a JVM shutdown hook does the killing too, so an aborted test run leaves no broker behind.
 *
 * <p>Not thread-safe: one test thread drives it (clients may run on other threads).
 */
public final class KrillCluster implements AutoCloseable {
    /** A broker JVM needs 5-10 s to start on a loaded two-core machine; allow for much worse. */
    static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);

    private final String name;
    private final Path dir;
    private final EmbeddedZooKeeper zooKeeper;
    private final Map<Integer, BrokerProcess> brokers = new LinkedHashMap<>();
    private final Map<String, String> config;
    private final Thread killer;
    private Admin admin;
    private boolean closed;

    private KrillCluster(String name, Path dir, EmbeddedZooKeeper zooKeeper, Map<String, String> config) {
        this.name = name;
        this.dir = dir;
        this.zooKeeper = zooKeeper;
        this.config = config;
        this.killer = new Thread(this::destroyBrokers, "krill-cluster-killer");
        Runtime.getRuntime().addShutdownHook(killer);
    }

    /** The broker settings every cluster gets unless a test overrides them: fast failure detection. */
    static Map<String, String> defaults() {
        Map<String, String> d = new HashMap<>();
        d.put("zookeeper.session.timeout.ms", "3000");
        d.put("replica.lag.time.max.ms", "5000");
        d.put("replica.fetch.backoff.ms", "200");
        d.put("default.replication.factor", "3");
        d.put("offsets.topic.replication.factor", "3");
        d.put("transaction.state.log.replication.factor", "3");
        d.put("group.initial.rebalance.delay.ms", "0");
        d.put("auto.create.topics.enable", "false");
        // Leaders move only when a test moves them (the preferred-election test runs the tool itself).
        d.put("auto.leader.rebalance.enable", "false");
        d.put("num.io.threads", "2");
        d.put("num.network.threads", "2");
        return d;
    }

    /**
     * Starts ZooKeeper and brokers 1..size (side by side) with {@link #defaults()} plus {@code overrides},
     * and returns once every broker is ready and sees all the others. {@code name} names the folder under
     * {@code target/cluster-logs} where the brokers' logs are kept after {@link #close}.
     */
    public static KrillCluster start(String name, int size, Map<String, String> overrides) {
        return start(name, size, overrides, (id, port) -> Map.of());
    }

    /**
     * As {@link #start(String, int, Map)}, with settings of each broker on top: {@code perBroker} gets the
     * broker id and the port of its PLAINTEXT listener (which the harness uses) and may, e.g., add listeners
     * ({@code listeners=PLAINTEXT://127.0.0.1:<port>,SECURE://...}).
     */
    public static KrillCluster start(String name, int size, Map<String, String> overrides,
                                     java.util.function.BiFunction<Integer, Integer, Map<String, String>> perBroker) {
        Path dir;
        try {
            dir = Files.createTempDirectory("krill-cluster");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        EmbeddedZooKeeper zk = null;
        KrillCluster cluster = null;
        try {
            zk = EmbeddedZooKeeper.start(dir.resolve("zookeeper"), 0);
            Map<String, String> config = defaults();
            config.putAll(overrides);
            config.put("zookeeper.connect", zk.connectString() + "/krill-" + UUID.randomUUID().toString().substring(0, 8));
            cluster = new KrillCluster(name, dir, zk, config);
            Path script = distributionScript();
            for (int id = 1; id <= size; id++) {
                int port = FreePorts.next();
                Map<String, String> brokerConfig = new HashMap<>(config);
                brokerConfig.put("node.id", Integer.toString(id));
                brokerConfig.put("listeners", "PLAINTEXT://127.0.0.1:" + port);
                brokerConfig.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
                brokerConfig.put("log.dirs", dir.resolve("data-" + id).toString());
                brokerConfig.putAll(perBroker.apply(id, port));
                cluster.brokers.put(id, new BrokerProcess(id, port, script, dir, brokerConfig));
            }
            cluster.startAll(cluster.brokers.keySet());
            return cluster;
        } catch (RuntimeException | Error e) {
            if (cluster != null) {
                try {
                    cluster.close();
                } catch (RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
            } else {
                if (zk != null) {
                    zk.close();
                }
                TestFiles.deleteRecursively(dir);
            }
            throw e;
        }
    }

    /**
     * The start script of the distribution the build assembled: {@code broker/target/krill/krill-<version>}
     * next to this module (surefire runs with the module as working directory).
     */
    public static Path distributionScript() {
        Path root = Path.of(System.getProperty("user.dir")).getParent();
        Path target = root.resolve("broker/target/krill");
        try (Stream<Path> dists = Files.list(target)) {
            Path dist = dists.filter(p -> p.getFileName().toString().startsWith("krill-")
                            && Files.isExecutable(p.resolve("bin/krill-server-start.sh")))
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("no distribution under " + target));
            return dist.resolve("bin/krill-server-start.sh");
        } catch (IOException e) {
            throw new IllegalStateException("no distribution under " + target
                    + ": build it with mvn -pl broker -am package", e);
        }
    }

    // ------------------------------------------------------------------ brokers

    public Set<Integer> brokerIds() {
        return new TreeSet<>(brokers.keySet());
    }

    /** Brokers whose process runs and is not paused. */
    public List<Integer> liveBrokers() {
        return brokers.values().stream().filter(b -> b.isRunning() && !b.isPaused()).map(BrokerProcess::id).toList();
    }

    public boolean isRunning(int id) {
        return broker(id).isRunning();
    }

    /** Starts a stopped broker and waits until it is ready. */
    public void start(int id) {
        broker(id).start(START_TIMEOUT);
    }

    /** SIGKILL: the broker dies mid-flight, no controlled shutdown. */
    public void kill9(int id) {
        broker(id).kill9();
    }

    /** SIGTERM (controlled shutdown) and waits for the process to end. */
    public void stop(int id) {
        broker(id).stop(STOP_TIMEOUT);
    }

    /** SIGSTOP. */
    public void pause(int id) {
        broker(id).pause();
    }

    /** SIGCONT. */
    public void resume(int id) {
        broker(id).resume();
    }

    /** SIGTERM, then starts it again on the same port and data. */
    public void restart(int id) {
        stop(id);
        start(id);
    }

    /** The process id of a running broker (the JVM itself). */
    public long pid(int id) {
        return broker(id).pid();
    }

    /**
     * Back to every broker running: resumes paused ones, starts stopped ones, and waits until every broker
     * sees all of them live. What a test sharing the cluster calls after it broke something.
     */
    public void heal() {
        List<Integer> down = new ArrayList<>();
        for (BrokerProcess b : brokers.values()) {
            if (b.isPaused()) {
                b.resume();
            }
            if (!b.isRunning()) {
                down.add(b.id());
            }
        }
        startAll(down);
    }

    private void startAll(Collection<Integer> ids) {
        for (int id : ids) {
            broker(id).launch();
        }
        for (int id : ids) {
            broker(id).awaitReady(START_TIMEOUT);
        }
        awaitAllBrokersSeeEachOther();
    }

    private void awaitAllBrokersSeeEachOther() {
        Set<Integer> all = brokerIds();
        await("every broker sees brokers " + all).atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .ignoreExceptions()
                .until(() -> brokers.values().stream().allMatch(b -> RawRequests.metadata(b.address(), List.of())
                        .brokers().stream().map(Node::id).collect(Collectors.toSet()).equals(all)));
    }

    private BrokerProcess broker(int id) {
        BrokerProcess b = brokers.get(id);
        if (b == null) {
            throw new IllegalArgumentException("no broker " + id + " in " + brokers.keySet());
        }
        return b;
    }

    // ------------------------------------------------------------------ clients' view

    /** Every broker's address, dead or alive (clients skip the dead ones). */
    public String bootstrapServers() {
        return brokers.values().stream().map(BrokerProcess::address).collect(Collectors.joining(","));
    }

    /** One broker's address only. */
    public String bootstrapServers(int id) {
        return broker(id).address();
    }

    public int port(int id) {
        return broker(id).port();
    }

    /** The broker settings the cluster started with (before per-broker ones). */
    public Map<String, String> config() {
        return Map.copyOf(config);
    }

    /** Client properties that fail fast: a dead broker costs seconds, not minutes. */
    public Properties clientProperties() {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
        props.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "500");
        return props;
    }

    /** One Admin client for the cluster (bootstrapped to every broker), closed with the cluster. */
    public Admin admin() {
        if (admin == null) {
            admin = Admin.create(clientProperties());
        }
        return admin;
    }

    public TopicDescription describe(String topic) {
        try {
            return admin().describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("describeTopics " + topic + " failed", e);
        }
    }

    public TopicPartitionInfo describe(String topic, int partition) {
        return describe(topic).partitions().get(partition);
    }

    /** The leader's id as the Admin client describes it, or -1 with no leader. */
    public int leaderOf(String topic, int partition) {
        Node leader = describe(topic, partition).leader();
        return leader == null || leader.isEmpty() ? -1 : leader.id();
    }

    /** Creates a topic through the Admin client and waits until every partition has a leader and a full ISR. */
    public void createTopic(String topic, int partitions, int replicationFactor, Map<String, String> configs) {
        try {
            admin().createTopics(List.of(new NewTopic(topic, partitions, (short) replicationFactor).configs(configs)))
                    .all().get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("cannot create " + topic, e);
        }
        awaitFullIsr(topic);
    }

    /** Waits until every partition of the topic has a leader and all its replicas in the ISR. */
    public void awaitFullIsr(String topic) {
        awaitFullIsr(topic, Duration.ofSeconds(60));
    }

    public void awaitFullIsr(String topic, Duration timeout) {
        await(topic + ": every partition led, all replicas in sync").atMost(timeout)
                .pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                .until(() -> describe(topic).partitions().stream().allMatch(p -> p.leader() != null
                        && !p.leader().isEmpty() && p.isr().size() == p.replicas().size()));
    }

    /**
     * The partition (leader, leader epoch, replicas, ISR) as broker {@code askedBroker} answers a raw
     * Metadata request: the only client-side view of leader epochs.
     */
    public PartitionMetadata metadata(int askedBroker, String topic, int partition) {
        return RawRequests.partition(broker(askedBroker).address(), topic, partition);
    }

    /** Like {@link #metadata(int, String, int)}, asking the first live broker other than {@code except}. */
    public PartitionMetadata metadataExcept(int except, String topic, int partition) {
        int asked = liveBrokers().stream().filter(id -> id != except).findFirst()
                .orElseThrow(() -> new IllegalStateException("no live broker besides " + except));
        return metadata(asked, topic, partition);
    }

    // ------------------------------------------------------------------ files

    public Path dataDir(int id) {
        return broker(id).dataDir();
    }

    /** The last {@code lines} lines of every broker's log: attached to failures. */
    public String logTails(int lines) {
        StringBuilder sb = new StringBuilder();
        for (BrokerProcess b : brokers.values()) {
            sb.append("\n======== ").append(b).append(", last ").append(lines).append(" lines of ")
                    .append(b.logFile()).append(" ========\n").append(b.tail(lines)).append('\n');
        }
        return sb.toString();
    }

    /** What broker {@code id} logged since it last started. */
    public String logOfCurrentStart(int id) {
        return broker(id).logOfCurrentStart();
    }

    // ------------------------------------------------------------------ teardown

    private void destroyBrokers() {
        for (BrokerProcess b : brokers.values()) {
            b.destroy();
        }
    }

    /** Kills every broker, stops ZooKeeper, deletes the folder; each step runs even if one before failed. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        RuntimeException failure = null;
        List<Runnable> steps = List.of(
                () -> {
                    if (admin != null) {
                        admin.close(Duration.ofSeconds(2));
                    }
                },
                this::destroyBrokers,
                this::keepLogs,
                zooKeeper::close,
                () -> TestFiles.deleteRecursively(dir),
                () -> {
                    try {
                        Runtime.getRuntime().removeShutdownHook(killer);
                    } catch (IllegalStateException shuttingDown) {
                        // the JVM is exiting: the hook runs anyway
                    }
                });
        for (Runnable step : steps) {
            try {
                step.run();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Copies the brokers' logs to {@code target/cluster-logs/<name>/} (build output, like surefire's
     * reports) before the cluster's folder goes: what to read when a run went wrong in a way no assertion
     * caught. Replaces the logs of a previous run of the same name.
     */
    private void keepLogs() {
        Path kept = Path.of(System.getProperty("user.dir"), "target", "cluster-logs", name);
        try {
            TestFiles.deleteRecursively(kept);
            Files.createDirectories(kept);
            for (BrokerProcess b : brokers.values()) {
                if (Files.exists(b.logFile())) {
                    Files.copy(b.logFile(), kept.resolve(b.logFile().getFileName()));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot keep the brokers' logs in " + kept, e);
        }
    }

    @Override
    public String toString() {
        return "cluster " + brokers.values() + " on ZooKeeper " + config.get("zookeeper.connect");
    }
}

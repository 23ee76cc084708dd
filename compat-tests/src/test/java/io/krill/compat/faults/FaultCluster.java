package io.krill.compat.faults;

import static org.awaitility.Awaitility.await;

import io.krill.compat.TestFiles;
import io.krill.compat.cluster.BrokerProcess;
import io.krill.compat.cluster.KrillCluster;
import io.krill.compat.cluster.RawRequests;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The campaign's cluster: ZooKeeper as a process on the bridge of a {@link NetworkLab}, and brokers 1..n each
 * in its own namespace ({@code ip netns exec}) listening on its host address, port 9092 everywhere. The last
 * broker keeps its log dir on a {@link SmallDisk}. Clients in the test JVM reach brokers through the bridge.
 *
 * <p>{@link #close} kills every process, unmounts, deletes the namespaces and the folder (keeping the
 * brokers' and ZooKeeper's logs where asked), whatever state the nemesis left; a JVM shutdown hook does the
 * same, so an interrupted build leaves no process, namespace or mount behind, and a campaign killed with
 * SIGKILL has its leftovers swept by the next one.
 */
final class FaultCluster implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FaultCluster.class);
    static final int PORT = 9092;
    static final int SESSION_TIMEOUT_MS = 4000;
    private static final Duration START_TIMEOUT = Duration.ofSeconds(180);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(90);

    private final Path dir;
    private final NetworkLab network;
    private final ZooKeeperProcess zooKeeper;
    private final Map<Integer, BrokerProcess> brokers = new LinkedHashMap<>();
    private final int smallDiskBroker;
    private final Thread cleaner;
    private SmallDisk smallDisk;
    private Admin admin;
    private boolean closed;

    private FaultCluster(Path dir, NetworkLab network, ZooKeeperProcess zooKeeper, int smallDiskBroker) {
        this.dir = dir;
        this.network = network;
        this.zooKeeper = zooKeeper;
        this.smallDiskBroker = smallDiskBroker;
        this.cleaner = new Thread(this::closeQuietly, "fault-cluster-cleaner");
        Runtime.getRuntime().addShutdownHook(cleaner);
    }

    /** Broker settings: fast failure detection, durable topics, leaders rebalanced back now and then. */
    static Map<String, String> brokerDefaults() {
        Map<String, String> d = new HashMap<>();
        d.put("zookeeper.session.timeout.ms", Integer.toString(SESSION_TIMEOUT_MS));
        d.put("replica.lag.time.max.ms", "6000");
        d.put("replica.fetch.backoff.ms", "200");
        d.put("default.replication.factor", "3");
        d.put("min.insync.replicas", "2");
        d.put("unclean.leader.election.enable", "false");
        d.put("offsets.topic.replication.factor", "3");
        d.put("offsets.topic.num.partitions", "6");
        d.put("transaction.state.log.replication.factor", "3");
        d.put("transaction.state.log.min.isr", "2");
        d.put("transaction.state.log.num.partitions", "6");
        d.put("group.initial.rebalance.delay.ms", "0");
        d.put("auto.create.topics.enable", "false");
        d.put("auto.leader.rebalance.enable", "true");
        d.put("leader.imbalance.check.interval.seconds", "30");
        d.put("num.io.threads", "2");
        d.put("num.network.threads", "2");
        return d;
    }

    static FaultCluster start(int size, int smallDiskMegabytes) {
        SmallDisk.sweepLeftovers();
        sweepLeftoverFolders();
        Path dir;
        try {
            dir = Files.createTempDirectory("krill-faults-" + ProcessHandle.current().pid() + "-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        NetworkLab network = null;
        FaultCluster cluster = null;
        try {
            network = NetworkLab.create(size);
            Path script = KrillCluster.distributionScript();
            Path distribution = script.getParent().getParent();
            ZooKeeperProcess zk = new ZooKeeperProcess(distribution, network.bridgeAddress(), dir);
            cluster = new FaultCluster(dir, network, zk, size);
            zk.start();
            Map<String, String> config = brokerDefaults();
            config.put("zookeeper.connect", zk.connectString() + "/krill-faults");
            for (int id = 1; id <= size; id++) {
                String host = network.address(id);
                Map<String, String> brokerConfig = new HashMap<>(config);
                brokerConfig.put("node.id", Integer.toString(id));
                brokerConfig.put("listeners", "PLAINTEXT://" + host + ":" + PORT);
                brokerConfig.put("advertised.listeners", "PLAINTEXT://" + host + ":" + PORT);
                Path logDir = dir.resolve("data-" + id);
                if (id == size) {
                    cluster.smallDisk = SmallDisk.mount(dir.resolve("disk-" + id), smallDiskMegabytes);
                    logDir = cluster.smallDisk.logDir();
                }
                brokerConfig.put("log.dirs", logDir.toString());
                cluster.brokers.put(id, new BrokerProcess(id, host, PORT, network.launcher(id), script, dir,
                        brokerConfig));
            }
            cluster.startBrokers(cluster.brokers.keySet());
            cluster.awaitAllBrokersSeeEachOther();
            return cluster;
        } catch (RuntimeException | Error e) {
            if (cluster != null) {
                cluster.closeQuietly();
            } else {
                if (network != null) {
                    network.close();
                }
                TestFiles.deleteRecursively(dir);
            }
            throw e;
        }
    }

    // ------------------------------------------------------------------ parts

    NetworkLab network() {
        return network;
    }

    ZooKeeperProcess zooKeeper() {
        return zooKeeper;
    }

    SmallDisk smallDisk() {
        return smallDisk;
    }

    int smallDiskBroker() {
        return smallDiskBroker;
    }

    Set<Integer> brokerIds() {
        return new TreeSet<>(brokers.keySet());
    }

    BrokerProcess broker(int id) {
        BrokerProcess b = brokers.get(id);
        if (b == null) {
            throw new IllegalArgumentException("no broker " + id);
        }
        return b;
    }

    void startBroker(int id) {
        broker(id).start(START_TIMEOUT);
    }

    /** Starts stopped brokers side by side (after a power cut they wait for one another's partitions). */
    void startBrokers(Collection<Integer> ids) {
        ids.forEach(id -> broker(id).launch());
        ids.forEach(id -> broker(id).awaitReady(START_TIMEOUT));
    }

    void stopBroker(int id) {
        broker(id).stop(STOP_TIMEOUT);
    }

    // ------------------------------------------------------------------ clients' view

    String bootstrapServers() {
        return brokers.values().stream().map(BrokerProcess::address).collect(Collectors.joining(","));
    }

    /** Client settings that ride out faults: short request timeouts, quick reconnects, fresh metadata. */
    Properties clientProperties() {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        props.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "1000");
        props.put(AdminClientConfig.METADATA_MAX_AGE_CONFIG, "5000");
        props.put(AdminClientConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG, "5000");
        props.put(AdminClientConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG, "10000");
        return props;
    }

    Admin admin() {
        if (admin == null) {
            admin = Admin.create(clientProperties());
        }
        return admin;
    }

    /** Sets configs of group {@code group} (ConfigResource GROUP), as {@code kafka-configs --entity-type groups}. */
    void setGroupConfigs(String group, Map<String, String> configs) {
        List<AlterConfigOp> ops = new ArrayList<>();
        configs.forEach((k, v) -> ops.add(new AlterConfigOp(new ConfigEntry(k, v), AlterConfigOp.OpType.SET)));
        try {
            admin().incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group), ops)).all()
                    .get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("cannot set configs of group " + group, e);
        }
    }

    /**
     * Creates these topics (name to partitions, RF 3) in one CreateTopics request and waits until every
     * partition is led with a full ISR; both steps bounded, more loosely the more partitions there are. The
     * request goes through an Admin client of its own with a long request timeout, so that a slow creation
     * is not retried by the client. A topic the broker answers REQUEST_TIMED_OUT for ("it may still exist")
     * is asked again, as an operator would, until the bound; one that then exists counts as created.
     */
    void createTopics(Map<String, Integer> topics, Map<String, String> configs) {
        int partitions = topics.values().stream().mapToInt(Integer::intValue).sum();
        Duration bound = Duration.ofSeconds(60 + partitions / 20);
        long deadline = System.nanoTime() + bound.toNanos();
        Properties props = clientProperties();
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(bound.toMillis()));
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(bound.toMillis() + 10_000));
        Map<String, Integer> missing = new LinkedHashMap<>(topics);
        try (Admin creator = Admin.create(props)) {
            for (int attempt = 1; !missing.isEmpty(); attempt++) {
                List<NewTopic> newTopics = new ArrayList<>();
                missing.forEach((topic, n) -> newTopics.add(new NewTopic(topic, n, (short) 3).configs(configs)));
                CreateTopicsResult result = creator.createTopics(newTopics,
                        new CreateTopicsOptions().timeoutMs((int) bound.toMillis()));
                Map<String, Throwable> timedOut = new LinkedHashMap<>();
                for (Map.Entry<String, KafkaFuture<Void>> f : result.values().entrySet()) {
                    try {
                        f.getValue().get(bound.toMillis() + 20_000, TimeUnit.MILLISECONDS);
                        missing.remove(f.getKey());
                    } catch (ExecutionException e) {
                        if (e.getCause() instanceof TopicExistsException) {
                            missing.remove(f.getKey());
                        } else if (e.getCause() instanceof org.apache.kafka.common.errors.TimeoutException) {
                            timedOut.put(f.getKey(), e.getCause());
                        } else {
                            throw new AssertionError("cannot create " + f.getKey(), e.getCause());
                        }
                    }
                }
                if (!timedOut.isEmpty()) {
                    LOG.warn("CreateTopics attempt {}: {} of {} topics timed out ({}), asking again",
                            attempt, timedOut.size(), topics.size(), timedOut.values().iterator().next().toString());
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError("cannot create " + timedOut.keySet() + " within " + bound,
                                timedOut.values().iterator().next());
                    }
                    TimeUnit.SECONDS.sleep(1);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while creating " + topics.keySet(), e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("CreateTopics of " + partitions + " partitions did not answer within "
                    + bound, e);
        }
        awaitFullIsr(List.copyOf(topics.keySet()), Duration.ofSeconds(120 + partitions / 30));
    }

    Map<String, TopicDescription> describe(List<String> topics) throws Exception {
        return admin().describeTopics(topics).allTopicNames().get(30, TimeUnit.SECONDS);
    }

    /** Leader id per "topic-partition" as the Admin client sees it now (-1: none); empty if it cannot tell. */
    Map<String, Integer> leaders(List<String> topics) {
        Map<String, Integer> leaders = new LinkedHashMap<>();
        try {
            describe(topics).forEach((topic, d) -> {
                for (TopicPartitionInfo p : d.partitions()) {
                    Node leader = p.leader();
                    leaders.put(topic + "-" + p.partition(), leader == null || leader.isEmpty() ? -1 : leader.id());
                }
            });
        } catch (Exception e) {
            LOG.info("cannot describe {}: {}", topics, e.toString());
        }
        return leaders;
    }

    void awaitFullIsr(List<String> topics, Duration timeout) {
        await(topics + ": every partition led, all replicas in sync").atMost(timeout)
                .pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                .until(() -> describe(topics).values().stream().flatMap(d -> d.partitions().stream())
                        .allMatch(p -> p.leader() != null && !p.leader().isEmpty()
                                && p.isr().size() == p.replicas().size()));
    }

    /** Every broker runs, answers Metadata, and lists all brokers as live. */
    void awaitAllBrokersSeeEachOther() {
        Set<Integer> all = brokerIds();
        await("every broker sees brokers " + all).atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(250))
                .ignoreExceptions()
                .until(() -> brokers.values().stream().allMatch(b -> b.isRunning() && !b.isPaused()
                        && RawRequests.metadata(b.address(), List.of()).brokers().stream().map(Node::id)
                        .collect(Collectors.toSet()).equals(all)));
    }

    // ------------------------------------------------------------------ teardown

    /** Copies the brokers' and ZooKeeper's logs into {@code into} (created). */
    void keepLogs(Path into) {
        try {
            Files.createDirectories(into);
            for (BrokerProcess b : brokers.values()) {
                if (Files.exists(b.logFile())) {
                    Files.copy(b.logFile(), into.resolve(b.logFile().getFileName()),
                            StandardCopyOption.REPLACE_EXISTING);
                }
            }
            if (Files.exists(zooKeeper.logFile())) {
                Files.copy(zooKeeper.logFile(), into.resolve("zookeeper.log"),
                        StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            LOG.warn("cannot keep logs in {}: {}", into, e.toString());
        }
    }

    /** The last lines of every broker's log, for failure messages. */
    String logTails(int lines) {
        StringBuilder sb = new StringBuilder();
        for (BrokerProcess b : brokers.values()) {
            sb.append("\n======== ").append(b).append(" ========\n").append(b.tail(lines)).append('\n');
        }
        return sb.toString();
    }

    private synchronized void closeQuietly() {
        if (closed) {
            return;
        }
        closed = true;
        List<Runnable> steps = new ArrayList<>();
        steps.add(() -> {
            if (admin != null) {
                admin.close(Duration.ofSeconds(2));
            }
        });
        steps.add(() -> brokers.values().forEach(BrokerProcess::destroy));
        steps.add(zooKeeper::close);
        steps.add(() -> {
            if (smallDisk != null) {
                smallDisk.close();
            }
        });
        steps.add(network::close);
        steps.add(() -> TestFiles.deleteRecursively(dir));
        for (Runnable step : steps) {
            try {
                step.run();
            } catch (RuntimeException | Error e) {
                LOG.warn("clean-up step failed: {}", e.toString());
            }
        }
    }

    @Override
    public void close() {
        closeQuietly();
        try {
            Runtime.getRuntime().removeShutdownHook(cleaner);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs anyway
        }
    }

    /** Folders of campaigns whose JVM died (their mounts were swept before). */
    private static void sweepLeftoverFolders() {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        Pattern name = Pattern.compile("^krill-faults-(\\d+)-");
        try (Stream<Path> dirs = Files.list(tmp)) {
            for (Path d : dirs.toList()) {
                Matcher m = name.matcher(d.getFileName().toString());
                if (m.find() && !ProcessHandle.of(Long.parseLong(m.group(1))).map(ProcessHandle::isAlive).orElse(false)) {
                    TestFiles.deleteRecursively(d);
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("cannot sweep {}: {}", tmp, e.toString());
        }
    }

    @Override
    public String toString() {
        return "fault cluster " + brokers.values() + " on ZooKeeper " + zooKeeper.connectString() + ", " + network;
    }
}

package io.krill.broker.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The immutable, typed configuration of a broker: server.properties plus command-line overrides (the static
 * layer), optionally with dynamic per-broker and cluster-wide layers set by AlterConfigs. Immutable and thread-safe;
 * a dynamic change yields a new instance ({@link #withDynamicConfigs}).
 *
 * <p>Effective value of a key: dynamic per-broker, else dynamic cluster default, else static, else the default.
 * Keys are Kafka's, with Kafka's defaults. Unknown keys are not fatal: they are reported once, at WARN, like
 * KRaft-only keys (reported separately as not applicable). Bad values fail with a {@link ConfigException} naming
 * the key and value.
 */
public final class BrokerConfig {
    private static final Logger LOG = LoggerFactory.getLogger(BrokerConfig.class);
    /** Prefix of per-listener overrides such as {@code listener.name.internal.ssl.keystore.location}. */
    public static final String LISTENER_PREFIX = "listener.name.";
    /** The values of {@code authorizer.class.name} that select Krill's ACL authorizer (Kafka's names and Krill's). */
    public static final List<String> ACL_AUTHORIZER_CLASS_NAMES = List.of(
            "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
            "kafka.security.authorizer.AclAuthorizer",
            "io.krill.broker.security.authorizer.AclAuthorizer");

    private final Map<String, String> staticConfigs;
    private final Map<String, String> dynamicBrokerConfigs;
    private final Map<String, String> dynamicDefaultConfigs;
    private final ConfigValues values;
    private final Map<String, Object> topicDefaults;
    private final Set<String> unknownKeys;
    private final Map<String, String> notApplicableKeys;
    private final Set<String> unsupportedKeys;
    private final int nodeId;
    private final BrokerListeners listeners;
    private final LogSettings log;
    private final SocketSettings socket;
    private final ReplicationSettings replication;
    private final GroupSettings group;
    private final TransactionSettings transaction;
    private final ShareGroupSettings shareGroup;
    private final ShareCoordinatorSettings shareCoordinator;

    private BrokerConfig(Map<String, String> statics, Map<String, String> perBroker,
                         Map<String, String> clusterDefault) {
        this.staticConfigs = sortedCopy(statics);
        this.dynamicBrokerConfigs = sortedCopy(perBroker);
        this.dynamicDefaultConfigs = sortedCopy(clusterDefault);
        checkDynamic(dynamicBrokerConfigs, false);
        checkDynamic(dynamicDefaultConfigs, true);

        Set<String> unknown = new TreeSet<>();
        Map<String, String> notApplicable = new TreeMap<>();
        Map<String, String> merged = new HashMap<>();
        staticConfigs.forEach((k, val) -> {
            if (BrokerConfigDefs.DEF.contains(k)) {
                merged.put(k, val);
            } else if (!isKnownListenerOverride(k)) {
                NotApplicableKeys.reason(k).ifPresentOrElse(r -> notApplicable.put(k, r), () -> unknown.add(k));
            }
        });
        merged.putAll(dynamicDefaultConfigs);
        merged.putAll(dynamicBrokerConfigs);
        this.unknownKeys = Collections.unmodifiableSet(unknown);
        this.notApplicableKeys = Collections.unmodifiableMap(notApplicable);
        this.nodeId = BrokerConfigChecks.reconcileNodeId(merged);
        this.values = BrokerConfigDefs.DEF.parse(merged);
        Set<String> unsupported = new TreeSet<>();
        for (ConfigKey key : BrokerConfigDefs.DEF.keys()) {
            if (!key.supported() && !Objects.equals(values.get(key.name()), key.defaultValue())) {
                unsupported.add(key.name());
            }
        }
        this.unsupportedKeys = Collections.unmodifiableSet(unsupported);
        BrokerConfigChecks.check(values, nodeId);
        this.listeners = BrokerListeners.from(values, merged.keySet());
        Map<String, Object> defaults = new LinkedHashMap<>();
        for (ConfigKey key : TopicConfigDefs.DEF.keys()) {
            Object value = TopicConfigSynonyms.brokerDefault(key.name(), values);
            if (value != null && key.validator() != null) {
                key.validator().ensureValid(TopicConfigSynonyms.suppliedBy(key.name(), values), value);
            }
            defaults.put(key.name(), value);
        }
        this.topicDefaults = Collections.unmodifiableMap(defaults);
        this.log = new LogSettings(values, topicDefaults);
        this.socket = new SocketSettings(values);
        this.replication = new ReplicationSettings(values);
        this.group = new GroupSettings(values);
        this.transaction = new TransactionSettings(values);
        this.shareGroup = new ShareGroupSettings(values);
        this.shareCoordinator = new ShareCoordinatorSettings(values);
    }

    /** Builds the static configuration from properties (e.g. server.properties with overrides applied). */
    public static BrokerConfig from(Map<String, String> props) {
        BrokerConfig config = new BrokerConfig(props, Map.of(), Map.of());
        config.logIgnoredKeys();
        return config;
    }

    public static BrokerConfig from(Properties props) {
        return from(BrokerConfigLoader.toMap(props));
    }

    /**
     * Loads server.properties and applies {@code --override key=value} arguments, which win over the file.
     *
     * @throws ConfigException if the file cannot be read, an override is malformed or a value is invalid
     */
    public static BrokerConfig load(Path propertiesFile, List<String> overrides) {
        return from(BrokerConfigLoader.read(propertiesFile, overrides));
    }

    /**
     * This configuration with new dynamic layers (each replaces the current one).
     *
     * @param perBroker      dynamic configs of this broker (AlterConfigs on resource "&lt;id&gt;")
     * @param clusterDefault dynamic cluster-wide defaults (AlterConfigs on resource "")
     * @throws ConfigException if a key cannot be set dynamically (at that level) or a value is invalid
     */
    public BrokerConfig withDynamicConfigs(Map<String, String> perBroker, Map<String, String> clusterDefault) {
        return new BrokerConfig(staticConfigs, perBroker, clusterDefault);
    }

    private static void checkDynamic(Map<String, String> layer, boolean clusterDefault) {
        Set<String> notDynamic = new TreeSet<>();
        Set<String> perBrokerOnly = new TreeSet<>();
        layer.keySet().forEach(k -> {
            Optional<ConfigKey> key = BrokerConfigDefs.DEF.find(k);
            if (key.isEmpty() || !key.get().dynamicMode().isDynamic()) {
                notDynamic.add(k);
            } else if (clusterDefault && key.get().dynamicMode() == DynamicMode.PER_BROKER) {
                perBrokerOnly.add(k);
            }
        });
        if (!notDynamic.isEmpty()) {
            throw new ConfigException("Cannot update these configs dynamically: " + notDynamic);
        }
        if (!perBrokerOnly.isEmpty()) {
            throw new ConfigException("Cannot update these configs at default cluster level, broker id must be "
                    + "specified: " + perBrokerOnly);
        }
    }

    private static boolean isKnownListenerOverride(String key) {
        if (!key.startsWith(LISTENER_PREFIX)) {
            return false;
        }
        int dot = key.indexOf('.', LISTENER_PREFIX.length());
        if (dot < 0) {
            return false;
        }
        String rest = key.substring(dot + 1);
        // listener.name.<l>.<mechanism>.sasl.jaas.config: the per-mechanism JAAS config of a SASL listener
        return BrokerConfigDefs.DEF.contains(rest) || rest.indexOf('.') > 0
                && rest.substring(rest.indexOf('.') + 1).equals("sasl.jaas.config");
    }

    private void logIgnoredKeys() {
        if (!unknownKeys.isEmpty()) {
            LOG.warn("Ignoring unknown configuration keys: {}", String.join(", ", unknownKeys));
        }
        if (!unsupportedKeys.isEmpty()) {
            LOG.warn("Ignoring configuration keys that Krill accepts but does not implement: {}",
                    String.join(", ", unsupportedKeys));
        }
        Map<String, List<String>> byReason = new TreeMap<>();
        notApplicableKeys.forEach((k, reason) -> byReason.computeIfAbsent(reason, r -> new ArrayList<>()).add(k));
        byReason.forEach((reason, keys) -> LOG.info("Ignoring configuration keys not applicable to Krill ({}): {}",
                reason, String.join(", ", keys)));
    }

    private static Map<String, String> sortedCopy(Map<String, String> map) {
        Map<String, String> copy = new TreeMap<>();
        map.forEach((k, v) -> {
            if (v != null) {
                copy.put(k, v);
            }
        });
        return Collections.unmodifiableMap(copy);
    }

    /** The static layer as given (file plus overrides), including unknown keys; sorted by key. */
    public Map<String, String> staticConfigs() {
        return staticConfigs;
    }

    /** The dynamic per-broker layer; sorted by key. */
    public Map<String, String> dynamicBrokerConfigs() {
        return dynamicBrokerConfigs;
    }

    /** The dynamic cluster-wide default layer; sorted by key. */
    public Map<String, String> dynamicDefaultConfigs() {
        return dynamicDefaultConfigs;
    }

    /** The effective value of every broker key. */
    public ConfigValues values() {
        return values;
    }

    /** Keys of the static layer that Krill does not know (likely typos), sorted. */
    public Set<String> unknownKeys() {
        return unknownKeys;
    }

    /** Kafka keys of the static layer that do not apply to Krill (KRaft-only...), with the reason; sorted. */
    public Map<String, String> notApplicableKeys() {
        return notApplicableKeys;
    }

    /** Keys set to a non-default value that Krill accepts but does not implement (plug-ins, tiered storage). */
    public Set<String> unsupportedKeys() {
        return unsupportedKeys;
    }

    /** node.id (= broker.id); -1 if neither is set. */
    public int nodeId() {
        return nodeId;
    }

    public Optional<String> rack() {
        return values.optionalString("broker.rack");
    }

    public Optional<String> clusterId() {
        return values.optionalString("cluster.id");
    }

    /** log.dirs, else log.dir. */
    public List<String> logDirs() {
        List<String> dirs = values.getList("log.dirs");
        return dirs != null ? dirs : values.getList("log.dir");
    }

    public boolean brokerIdGenerationEnable() {
        return values.getBoolean("broker.id.generation.enable");
    }

    public int reservedBrokerMaxId() {
        return values.getInt("reserved.broker.max.id");
    }

    public boolean autoCreateTopicsEnable() {
        return values.getBoolean("auto.create.topics.enable");
    }

    public boolean deleteTopicEnable() {
        return values.getBoolean("delete.topic.enable");
    }

    /** The ZooKeeper connection string; empty means "start an embedded ZooKeeper". */
    public String zookeeperConnect() {
        return values.getString("zookeeper.connect");
    }

    public boolean embeddedZooKeeper() {
        return zookeeperConnect().isEmpty();
    }

    public int embeddedZooKeeperPort() {
        return values.getInt("krill.zookeeper.embedded.port");
    }

    /** Whether the embedded ZooKeeper fsyncs each write before acknowledging it. */
    public boolean embeddedZooKeeperFsync() {
        return values.getBoolean("krill.zookeeper.embedded.fsync");
    }

    /** Whether metadata lives in a local file (one broker, no ZooKeeper) rather than in ZooKeeper. */
    public boolean localMetadataStore() {
        return "local".equals(values.getString("krill.metadata.store"));
    }

    /** {@code krill.controller.crash.detection.enable}. */
    public boolean crashDetection() {
        return values.getBoolean("krill.controller.crash.detection.enable");
    }

    public int zookeeperSessionTimeoutMs() {
        return values.getInt("zookeeper.session.timeout.ms");
    }

    /** zookeeper.connection.timeout.ms, else the session timeout. */
    public int zookeeperConnectionTimeoutMs() {
        return values.optionalInt("zookeeper.connection.timeout.ms").orElse(zookeeperSessionTimeoutMs());
    }

    public int zookeeperMaxInFlightRequests() {
        return values.getInt("zookeeper.max.in.flight.requests");
    }

    /** authorizer.class.name; empty means no authorization. */
    public String authorizerClassName() {
        return values.getString("authorizer.class.name");
    }

    /** super.users as written: principals separated by ';'. */
    public String superUsers() {
        return values.getString("super.users");
    }

    public boolean allowEveryoneIfNoAclFound() {
        return values.getBoolean("allow.everyone.if.no.acl.found");
    }

    /** telemetry.max.bytes: the largest metrics payload (as sent) a client may push. */
    public int telemetryMaxBytes() {
        return values.getInt("telemetry.max.bytes");
    }

    /** krill.client.telemetry.max.series: the most series of pushed client metrics kept for /metrics. */
    public int clientTelemetryMaxSeries() {
        return values.getInt("krill.client.telemetry.max.series");
    }

    /** The Prometheus /metrics HTTP port; 0 means disabled. */
    public int httpPort() {
        return values.getInt("krill.http.port");
    }

    /** krill.console.enable: whether the HTTP port serves the web console (docs/console.md). */
    public boolean consoleEnable() {
        return values.getBoolean("krill.console.enable");
    }

    /** krill.console.read.only: whether the console refuses every action that changes something. */
    public boolean consoleReadOnly() {
        return values.getBoolean("krill.console.read.only");
    }

    /** krill.console.listener: the listener whose security the console applies; the first listener when empty. */
    public String consoleListener() {
        String name = values.getString("krill.console.listener");
        if (name == null || name.isBlank()) {
            // the first listener the broker binds: KRaft controller listeners (kept in configs copied
            // from Kafka) are not bound
            java.util.Set<String> controller = new java.util.HashSet<>();
            for (String c : staticConfigs().getOrDefault("controller.listener.names", "").split(",")) {
                controller.add(c.trim().toUpperCase(java.util.Locale.ROOT));
            }
            return listeners().listeners().stream().map(Listener::name).filter(n -> !controller.contains(n))
                    .findFirst().orElse(listeners().listeners().get(0).name());
        }
        return name.trim().toUpperCase(java.util.Locale.ROOT);
    }

    /** krill.console.history.interval.ms: how often the console's history is sampled. */
    public long consoleHistoryIntervalMs() {
        return values.getLong("krill.console.history.interval.ms");
    }

    /** krill.console.history.samples: samples kept per console history series. */
    public int consoleHistorySamples() {
        return values.getInt("krill.console.history.samples");
    }

    public BrokerListeners listeners() {
        return listeners;
    }

    public LogSettings log() {
        return log;
    }

    public SocketSettings socket() {
        return socket;
    }

    public ReplicationSettings replication() {
        return replication;
    }

    public GroupSettings group() {
        return group;
    }

    /** The share-group keys ({@code group.share.*}): defaults and bounds of share groups' settings. */
    public ShareGroupSettings shareGroup() {
        return shareGroup;
    }

    /** The share coordinator keys ({@code share.coordinator.*}). */
    public ShareCoordinatorSettings shareCoordinator() {
        return shareCoordinator;
    }

    public TransactionSettings transaction() {
        return transaction;
    }

    /**
     * The value each topic key takes when a topic does not override it (Kafka's broker-derived log config),
     * e.g. retention.ms from log.retention.ms/minutes/hours.
     */
    public Map<String, Object> topicDefaults() {
        return topicDefaults;
    }

    /** All effective values, one per line, sorted; passwords hidden. */
    @Override
    public String toString() {
        return "BrokerConfig values:\n" + values;
    }
}

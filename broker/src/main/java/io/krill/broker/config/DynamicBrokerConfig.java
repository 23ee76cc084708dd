package io.krill.broker.config;

import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.MetadataListener;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's effective configuration: the static one (server.properties and overrides) with the dynamic
 * layers Kafka's AlterConfigs sets on BROKER resources, which the cluster metadata carries to every broker
 * (the cluster-wide defaults, and this broker's own). Readers take {@link #current()} once per use.
 *
 * <p>Krill applies dynamic values while running only where it reads them at use: the broker defaults of
 * topic configs ({@code log.retention.ms}, {@code log.segment.bytes}, {@code min.insync.replicas},
 * {@code message.max.bytes}, ...), which every partition without its own override follows. Other
 * dynamic keys of Kafka (thread counts, listeners, TLS stores) are refused by AlterConfigs with the
 * reason, rather than accepted and silently ignored.
 *
 * <p>Thread-safety: {@link #current()} is a volatile read; the metadata thread replaces it.
 */
public final class DynamicBrokerConfig implements MetadataListener {
    private static final Logger LOG = LoggerFactory.getLogger(DynamicBrokerConfig.class);
    private static final Set<String> APPLIED_LIVE = appliedLive();

    private final BrokerConfig statics;
    private final String ownEntity;
    private volatile BrokerConfig current;

    public DynamicBrokerConfig(BrokerConfig statics) {
        this.statics = statics;
        this.ownEntity = Integer.toString(statics.nodeId());
        this.current = statics;
    }

    private static Set<String> appliedLive() {
        Set<String> keys = new HashSet<>();
        for (ConfigKey key : TopicConfigDefs.DEF.keys()) {
            for (TopicConfigSynonyms.BrokerSynonym synonym : TopicConfigSynonyms.of(key.name())) {
                BrokerConfigDefs.DEF.find(synonym.name()).filter(k -> k.dynamicMode().isDynamic())
                        .ifPresent(k -> keys.add(k.name()));
            }
        }
        return Collections.unmodifiableSet(keys);
    }

    /** Whether Krill applies a dynamic value of {@code key} while running. */
    public static boolean appliedLive(String key) {
        return APPLIED_LIVE.contains(key);
    }

    /**
     * IncrementalAlterConfigs on a dynamic layer: SET, DELETE, and APPEND/SUBTRACT on LIST keys (on the
     * layer's own value). The result is validated by {@link BrokerConfig#withDynamicConfigs}.
     *
     * @throws ConfigException for a list operation on a key that is not a list
     */
    public static Map<String, String> applyIncremental(Map<String, String> layer, List<AlterConfigOp> ops) {
        Map<String, String> result = new TreeMap<>(layer);
        for (AlterConfigOp op : ops) {
            switch (op.op()) {
                case SET -> result.put(op.name(), op.value());
                case DELETE -> result.remove(op.name());
                case APPEND, SUBTRACT -> {
                    ConfigKey key = BrokerConfigDefs.DEF.find(op.name())
                            .orElseThrow(() -> new ConfigException("Unknown broker config: " + op.name()));
                    if (key.type() != ConfigType.LIST) {
                        throw new ConfigException("Can't " + op.op() + " to key " + op.name()
                                + " because its type is not LIST.");
                    }
                    result.put(op.name(), op.applyToList(result.get(op.name())));
                }
                default -> throw new IllegalStateException("Unexpected op " + op.op());
            }
        }
        return result;
    }

    public BrokerConfig current() {
        return current;
    }

    /** server.properties and overrides only. */
    public BrokerConfig statics() {
        return statics;
    }

    /** This broker's entity name for dynamic configs: its node id. */
    public String ownEntity() {
        return ownEntity;
    }

    /** Takes the dynamic layers of the image the broker starts from. */
    public void startup(MetadataImage image) {
        apply(image);
    }

    @Override
    public void onChange(MetadataImage previous, MetadataImage next) {
        if (previous == null || !Objects.equals(previous.entityConfigs(""), next.entityConfigs(""))
                || !Objects.equals(previous.entityConfigs(ownEntity), next.entityConfigs(ownEntity))) {
            apply(next);
        }
    }

    /**
     * A layer that does not validate (written by another version, or a static config that changed since)
     * is not applied: the previous configuration stays and the reason is logged, as Kafka does.
     */
    private void apply(MetadataImage image) {
        try {
            BrokerConfig next = statics.withDynamicConfigs(image.entityConfigs(ownEntity), image.entityConfigs(""));
            if (!next.dynamicBrokerConfigs().equals(current.dynamicBrokerConfigs())
                    || !next.dynamicDefaultConfigs().equals(current.dynamicDefaultConfigs())) {
                LOG.info("Dynamic broker configs now {} (this broker) and {} (cluster default)",
                        next.dynamicBrokerConfigs().keySet(), next.dynamicDefaultConfigs().keySet());
            }
            current = next;
        } catch (ConfigException e) {
            LOG.error("Dynamic broker configs not applied, keeping the previous ones: {}", e.getMessage());
        }
    }
}

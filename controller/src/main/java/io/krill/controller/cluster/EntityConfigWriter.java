package io.krill.controller.cluster;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes entity configs (dynamic broker configs, users, clients, IPs, ACLs: {@link ZkPaths#entityConfig})
 * as version-checked read-modify-writes of one znode per entity ({@link ConditionalWrite}), without a
 * thread waiting for ZooKeeper. The node, and its parent for the first entity of all, is created on
 * first use; a change that leaves the configs as they are writes nothing.
 *
 * <p>Thread-safe: no state of its own; concurrent writers, on any broker, are ordered by ZooKeeper's
 * versions.
 */
final class EntityConfigWriter {
    private static final Logger LOG = LoggerFactory.getLogger(EntityConfigWriter.class);

    private final StoreContext context;

    EntityConfigWriter(StoreContext context) {
        this.context = context;
    }

    /**
     * Compare-and-set on the entity's znode version, {@code change} applied again to the fresh configs
     * after a lost race, so that two brokers changing different keys of one entity (a user's SCRAM
     * credential and its quota) both win. Completes with what the entity holds once this broker's image
     * shows it; never throws.
     */
    CompletableFuture<Map<String, String>> update(String entity, UnaryOperator<Map<String, String>> change) {
        String name = entity.isEmpty() ? "the cluster" : entity;
        return ConditionalWrite.start(context, context.paths().entityConfig(entity), "configs of " + name, data -> {
            Map<String, String> current = data == null ? Map.of() : MetadataRecords.decodeEntityConfigs(data);
            Map<String, String> next = Map.copyOf(change.apply(current));
            return next.equals(current) ? ConditionalWrite.Decision.unchanged(next)
                    : ConditionalWrite.Decision.write(MetadataRecords.encodeEntityConfigs(entity, next), next);
        }).thenApply(outcome -> {
            if (outcome.written()) {
                LOG.info("configs of {} set (keys {})", name, outcome.result().keySet());
            }
            return outcome.result();
        });
    }
}

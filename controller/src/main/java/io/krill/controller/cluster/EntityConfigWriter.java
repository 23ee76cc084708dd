package io.krill.controller.cluster;

import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes entity configs (dynamic broker configs, users, clients, IPs, ACLs: {@link ZkPaths#entityConfig})
 * as version-checked read-modify-writes of one znode per entity.
 *
 * <p>Thread-safe: no state of its own; concurrent writers are ordered by ZooKeeper's versions.
 */
final class EntityConfigWriter {
    private static final Logger LOG = LoggerFactory.getLogger(EntityConfigWriter.class);
    private static final int MAX_ATTEMPTS = 10;

    private final StoreContext context;

    EntityConfigWriter(StoreContext context) {
        this.context = context;
    }

    /**
     * Compare-and-set on the entity's znode version, retried on a lost race, so that two brokers
     * changing different keys of one entity (a user's SCRAM credential and its quota) both win.
     */
    Map<String, String> update(String entity, UnaryOperator<Map<String, String>> change) {
        context.ensureOpen();
        ZkSession session = context.session();
        ZkPaths paths = context.paths();
        String path = paths.entityConfig(entity);
        Map<String, String> written = context.guarded(() -> {
            for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
                try {
                    Stat stat = new Stat();
                    byte[] data = session.readOrNull(path, stat);
                    Map<String, String> current = data == null ? Map.of() : MetadataRecords.decodeEntityConfigs(data);
                    Map<String, String> next = Map.copyOf(change.apply(current));
                    byte[] encoded = MetadataRecords.encodeEntityConfigs(entity, next);
                    if (data == null) {
                        createIfAbsent(paths.entityConfigs(), new byte[0]);
                        if (!createIfAbsent(path, encoded)) {
                            continue;
                        }
                    } else {
                        int version = stat.getVersion();
                        session.call(zk -> zk.setData(path, encoded, version));
                    }
                    return next;
                } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
                    // Another writer got in between: read again.
                } catch (KeeperException e) {
                    throw ZkSession.unexpected(e);
                }
            }
            throw new ApiException(Errors.REQUEST_TIMED_OUT, "configs of " + entity + " kept changing while being altered");
        });
        LOG.info("configs of {} set (keys {})", entity.isEmpty() ? "the cluster" : entity, written.keySet());
        context.await(context.watcher().refreshEntityConfig(entity));
        return written;
    }

    /** Creates a persistent node; false if it already exists. */
    private boolean createIfAbsent(String path, byte[] data) throws KeeperException {
        try {
            context.session().call(zk -> zk.create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
            return true;
        } catch (KeeperException.NodeExistsException e) {
            return false;
        }
    }
}

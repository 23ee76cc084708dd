package io.krill.controller.cluster;

import io.krill.controller.metadata.BrokerInfo;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import org.apache.helix.zookeeper.datamodel.ZNRecord;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.Stat;

/**
 * Creates what a Krill cluster needs in ZooKeeper, once, whoever comes first: Helix's cluster
 * structure and Krill's state model ({@link HelixLayout}), Krill's root, cluster id and
 * producer-id counter, all in one transaction; and registers brokers as Helix instances. Brokers
 * starting together serialise the set-up on an ephemeral lock node; the producer-id counter marks a
 * finished set-up (a half-made cluster, which only an older Krill could leave, is made again from
 * scratch: nothing of value can be in it, since no broker starts before the mark).
 *
 * <p>Stateless; safe to call from several brokers at once.
 */
final class HelixCluster {
    private static final long LOCK_POLL_MS = 100;

    private HelixCluster() {
    }

    /** Sets the cluster up if nobody has; returns once it is. */
    static void ensure(ZkSession session, ZkPaths paths, String clusterId, long timeoutMs) {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (!isSetUp(session, paths)) {
            if (tryLock(session, paths)) {
                try {
                    if (!isSetUp(session, paths)) {
                        setUp(session, paths, clusterId);
                    }
                } finally {
                    unlock(session, paths);
                }
                return;
            }
            if (System.currentTimeMillis() > deadline) {
                throw new ZkUnavailableException("cluster " + paths.cluster() + " still being set up by another broker"
                        + " after " + timeoutMs + " ms (lock " + paths.setupLock() + ")", null);
            }
            sleep();
        }
    }

    private static boolean isSetUp(ZkSession session, ZkPaths paths) {
        return session.readOrNull(paths.producerIds(), new Stat()) != null;
    }

    /**
     * One transaction: Helix's cluster structure, then Krill's root, cluster
     * id and producer-id counter. A cluster half made by an older Krill (which made it node by node)
     * is removed first.
     */
    private static void setUp(ZkSession session, ZkPaths paths, String clusterId) {
        deleteRecursively(session, paths.clusterRoot());
        List<Op> ops = new ArrayList<>(HelixLayout.cluster(paths.cluster(), List.of()));
        ops.add(Op.create(paths.krillRoot(), new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
        ops.add(Op.create(paths.topics(), new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
        ops.add(Op.create(paths.clusterId(), MetadataRecords.encodeClusterId(clusterId != null ? clusterId : newClusterId()),
                ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
        ops.add(Op.create(paths.producerIds(), MetadataRecords.encodeNextProducerId(0), ZooDefs.Ids.OPEN_ACL_UNSAFE,
                CreateMode.PERSISTENT));
        try {
            session.call(zk -> zk.multi(ops));
        } catch (KeeperException e) {
            throw ZkSession.unexpected(e);
        }
    }

    private static void createMissing(ZkSession session, List<Op> creates) {
        for (Op op : creates) {
            try {
                session.call(zk -> zk.multi(List.of(op)));
            } catch (KeeperException.NodeExistsException e) {
                // there already
            } catch (KeeperException e) {
                throw ZkSession.unexpected(e);
            }
        }
    }

    private static void deleteRecursively(ZkSession session, String path) {
        for (String child : session.childrenOrEmpty(path)) {
            deleteRecursively(session, path + "/" + child);
        }
        try {
            session.call(zk -> {
                zk.delete(path, -1);
                return null;
            });
        } catch (KeeperException.NoNodeException e) {
            // not there (the usual case: a new cluster)
        } catch (KeeperException e) {
            throw ZkSession.unexpected(e);
        }
    }

    /**
     * Writes {@code broker} into its Helix instance config, creating the instance (config and
     * Helix's per-instance nodes) the first time.
     */
    static void registerInstance(ZkSession session, ZkPaths paths, BrokerInfo broker) {
        String instance = ZkPaths.instanceName(broker.nodeId());
        String path = paths.instanceConfig(instance);
        for (int attempt = 0; attempt < 10; attempt++) {
            Stat stat = new Stat();
            byte[] data = session.readOrNull(path, stat);
            if (data == null) {
                List<Op> ops = HelixLayout.instance(paths.cluster(), MetadataRecords.instanceConfig(broker));
                try {
                    session.call(zk -> zk.multi(ops));
                    return;
                } catch (KeeperException.NodeExistsException e) {
                    if (session.readOrNull(path, new Stat()) == null) {
                        // an instance whose config alone was removed: make what is missing, as Helix's admin would
                        createMissing(session, ops);
                        return;
                    }
                    // created meanwhile by another start of this broker: update it instead
                } catch (KeeperException e) {
                    throw ZkSession.unexpected(e);
                }
                continue;
            }
            ZNRecord record = MetadataRecords.deserialize(data);
            MetadataRecords.writeBroker(record, broker);
            byte[] updated = MetadataRecords.serialize(record);
            try {
                session.call(zk -> zk.setData(path, updated, stat.getVersion()));
                return;
            } catch (KeeperException.BadVersionException e) {
                // changed meanwhile (Helix writes instance configs too): read again
            } catch (KeeperException e) {
                throw ZkSession.unexpected(e);
            }
        }
        throw new IllegalStateException("instance config " + path + " kept changing");
    }

    /**
     * Removes the Helix resources (ideal states) that Krill before 0.2 made, one per topic: brokers no
     * longer take per-replica transitions from Helix, whose controller would otherwise keep sending
     * them. Idempotent; brokers starting together may race (a node already gone is fine).
     */
    static void deleteLegacyResources(ZkSession session, ZkPaths paths) {
        for (String resource : session.childrenOrEmpty(paths.idealStates())) {
            try {
                session.call(zk -> {
                    zk.delete(paths.idealState(resource), -1);
                    return null;
                });
            } catch (KeeperException.NoNodeException e) {
                // removed by another broker meanwhile
            } catch (KeeperException e) {
                throw ZkSession.unexpected(e);
            }
        }
    }

    /** A random cluster id in Kafka's form: 22 characters of URL-safe base64 of a UUID. */
    static String newClusterId() {
        UUID uuid = UUID.randomUUID();
        ByteBuffer bytes = ByteBuffer.allocate(16).putLong(uuid.getMostSignificantBits())
                .putLong(uuid.getLeastSignificantBits());
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.array());
    }

    private static void create(ZkSession session, String path, byte[] data) {
        try {
            session.call(zk -> zk.create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
        } catch (KeeperException.NodeExistsException e) {
            // a retried create that had succeeded: the node is there
        } catch (KeeperException e) {
            throw ZkSession.unexpected(e);
        }
    }

    private static boolean tryLock(ZkSession session, ZkPaths paths) {
        try {
            session.call(zk -> zk.create(paths.setupLock(), new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE,
                    CreateMode.EPHEMERAL));
            return true;
        } catch (KeeperException.NodeExistsException e) {
            // Ours if a create retried after a lost connection had gone through the first time.
            Stat stat = new Stat();
            return session.readOrNull(paths.setupLock(), stat) != null && stat.getEphemeralOwner() == session.sessionId();
        } catch (KeeperException e) {
            throw ZkSession.unexpected(e);
        }
    }

    private static void unlock(ZkSession session, ZkPaths paths) {
        try {
            session.call(zk -> {
                zk.delete(paths.setupLock(), -1);
                return null;
            });
        } catch (KeeperException.NoNodeException e) {
            // gone with a renewed session
        } catch (KeeperException e) {
            throw ZkSession.unexpected(e);
        }
    }

    private static void sleep() {
        try {
            Thread.sleep(LOCK_POLL_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ZkUnavailableException("interrupted while waiting for cluster set-up", e);
        }
    }
}

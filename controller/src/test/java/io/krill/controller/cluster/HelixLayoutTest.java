package io.krill.controller.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.controller.metadata.BrokerInfo;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.helix.InstanceType;
import org.apache.helix.manager.zk.ZKHelixAdmin;
import org.apache.helix.manager.zk.ZKHelixDataAccessor;
import org.apache.helix.manager.zk.ZKUtil;
import org.apache.helix.manager.zk.ZkBaseDataAccessor;
import org.apache.helix.model.BuiltInStateModelDefinitions;
import org.apache.helix.model.InstanceConfig;
import org.apache.helix.zookeeper.api.client.HelixZkClient;
import org.apache.helix.zookeeper.datamodel.ZNRecord;
import org.apache.helix.zookeeper.datamodel.serializer.ZNRecordSerializer;
import org.apache.helix.zookeeper.impl.factory.SharedZkClientFactory;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link HelixLayout} makes, in one transaction, the same nodes with the same content as Helix's own
 * admin API makes node by node (and a Helix controller adds at its first connect); a Helix upgrade
 * that changes the layout fails here.
 */
class HelixLayoutTest {
    private static final String BY_HELIX = "layout-by-helix";
    private static final String BY_KRILL = "layout-by-krill";

    @TempDir
    Path dir;

    private EmbeddedZooKeeper zk;
    private ZooKeeper client;

    @BeforeEach
    void start() throws Exception {
        zk = EmbeddedZooKeeper.start(dir.resolve("zk"), 0);
        CountDownLatch connected = new CountDownLatch(1);
        client = new ZooKeeper(zk.connectString(), 10_000, event -> {
            if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        assertTrue(connected.await(10, TimeUnit.SECONDS));
    }

    @AfterEach
    void stop() throws Exception {
        if (client != null) {
            client.close();
        }
        if (zk != null) {
            zk.close();
        }
    }

    @Test
    void clusterAndInstanceMatchHelixAdmin() throws Exception {
        BrokerInfo broker = new BrokerInfo(7, null,
                Map.of("PLAINTEXT", new BrokerInfo.Endpoint("PLAINTEXT", "127.0.0.1", 9092)));

        ZKHelixAdmin admin = new ZKHelixAdmin.Builder().setZkAddress(zk.connectString()).build();
        HelixZkClient zkClient = SharedZkClientFactory.getInstance()
                .buildZkClient(new HelixZkClient.ZkConnectionConfig(zk.connectString()));
        try {
            assertTrue(admin.addCluster(BY_HELIX, true));
            zkClient.setZkSerializer(new ZNRecordSerializer());
            ZKHelixDataAccessor accessor = new ZKHelixDataAccessor(BY_HELIX, new ZkBaseDataAccessor<>(zkClient));
            for (BuiltInStateModelDefinitions builtIn : BuiltInStateModelDefinitions.values()) {
                accessor.createStateModelDef(builtIn.getStateModelDefinition()); // as a controller's first connect
            }
            admin.addInstance(BY_HELIX, MetadataRecords.instanceConfig(broker));
        } finally {
            admin.close();
            zkClient.close();
        }

        client.multi(HelixLayout.cluster(BY_KRILL, List.of()));
        client.multi(HelixLayout.instance(BY_KRILL, MetadataRecords.instanceConfig(broker)));

        Map<String, String> byHelix = tree("/" + BY_HELIX, BY_HELIX);
        Map<String, String> byKrill = tree("/" + BY_KRILL, BY_KRILL);
        assertEquals(byHelix.keySet(), byKrill.keySet(), "the same nodes");
        assertEquals(byHelix, byKrill, "the same content");

        HelixZkClient check = SharedZkClientFactory.getInstance()
                .buildZkClient(new HelixZkClient.ZkConnectionConfig(zk.connectString()));
        try {
            assertTrue(ZKUtil.isClusterSetup(BY_KRILL, check));
            assertTrue(ZKUtil.isInstanceSetup(check, BY_KRILL, ZkPaths.instanceName(7), InstanceType.PARTICIPANT));
        } finally {
            check.close();
        }
    }

    @Test
    void anInstanceConfigFoundMissingIsRemadeBesideTheRest() throws Exception {
        ZkSession session = new ZkSession(zk.connectString(), 10_000, 5_000, new QuietZkListener());
        try {
            session.awaitConnected(5_000);
            ZkPaths paths = new ZkPaths(BY_KRILL);
            HelixCluster.ensure(session, paths, "layout-test-cluster", 5_000);
            BrokerInfo broker = new BrokerInfo(3, null, Map.of("PLAINTEXT",
                    new BrokerInfo.Endpoint("PLAINTEXT", "127.0.0.1", 9093)));
            HelixCluster.registerInstance(session, paths, broker);
            String config = paths.instanceConfig(ZkPaths.instanceName(3));
            client.delete(config, -1);

            HelixCluster.registerInstance(session, paths, broker);

            InstanceConfig read = new InstanceConfig(MetadataRecords.deserialize(client.getData(config, false, null)));
            assertEquals(broker, MetadataRecords.readBroker(read.getRecord()));
        } finally {
            session.close();
        }
    }

    /** Every node under {@code root}: its path below root and its content (the cluster's name blanked in both). */
    private Map<String, String> tree(String root, String cluster) throws KeeperException, InterruptedException {
        Map<String, String> nodes = new TreeMap<>();
        walk(root, root, cluster, nodes);
        return nodes;
    }

    private void walk(String root, String path, String cluster, Map<String, String> nodes)
            throws KeeperException, InterruptedException {
        byte[] data = client.getData(path, false, null);
        String content = data == null ? "<null>" : new String(data, StandardCharsets.UTF_8);
        if (data != null && data.length > 0) {
            ZNRecord record = MetadataRecords.deserialize(data);
            content = new String(new ZNRecordSerializer().serialize(record), StandardCharsets.UTF_8)
                    .replace("\"" + cluster + "\"", "\"<cluster>\"");
        }
        String below = path.substring(root.length()).replace("/" + cluster, "/<cluster>");
        nodes.put(below.isEmpty() ? "/" : below, content);
        for (String child : client.getChildren(path, false)) {
            walk(root, path + "/" + child, cluster, nodes);
        }
    }
}

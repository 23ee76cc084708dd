package io.krill.controller.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Large Helix status update records go, small ones and everything else under the cluster stay. */
class StatusUpdatePrunerTest {
    private static final String ROOT = "/c/CONTROLLER/STATUSUPDATES";

    @TempDir
    Path dir;

    @Test
    void deletesOnlyRecordsOverTheLimit() throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(dir, 0);
             ZkSession session = new ZkSession(zk.connectString(), 10_000, 10_000, new QuietZkListener())) {
            session.awaitConnected(10_000);
            session.createPath(ROOT + "/orders");
            create(session, ROOT + "/orders/orders_0", StatusUpdatePruner.MAX_BYTES + 1);
            create(session, ROOT + "/orders/orders_1", 1024);
            create(session, "/c/CONTROLLER/HISTORY", StatusUpdatePruner.MAX_BYTES + 1);

            assertEquals(1, new StatusUpdatePruner(session, ROOT).prune());

            assertNull(session.readOrNull(ROOT + "/orders/orders_0", null));
            assertNotNull(session.readOrNull(ROOT + "/orders/orders_1", null));
            assertNotNull(session.readOrNull("/c/CONTROLLER/HISTORY", null), "only status updates are pruned");
            assertEquals(0, new StatusUpdatePruner(session, ROOT).prune());
        }
    }

    @Test
    void nothingToPruneWithoutStatusUpdates() throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(dir, 0);
             ZkSession session = new ZkSession(zk.connectString(), 10_000, 10_000, new QuietZkListener())) {
            session.awaitConnected(10_000);
            assertEquals(0, new StatusUpdatePruner(session, ROOT).prune());
        }
    }

    private static void create(ZkSession session, String path, int bytes) throws Exception {
        session.call(zk -> zk.create(path, new byte[bytes], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
    }
}

package io.krill.controller.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The embedded server forgets the previous run's sessions at start, so their ephemeral nodes do not linger. */
class EmbeddedZooKeeperTest {
    private static final int LONG_SESSION_MS = 30_000;

    @TempDir
    Path dir;

    @Test
    void aRestartClosesThePreviousRunsSessionsAndTheirEphemeralNodes() throws Exception {
        crashWithAnEphemeralNode();
        try (EmbeddedZooKeeper restarted = EmbeddedZooKeeper.start(dir, 0)) {
            assertEquals(1, restarted.closedStaleSessions());
            ZooKeeper client = connect(restarted.connectString());
            try {
                assertNull(client.exists("/live", false), "gone at once, not after the 30 s session timeout");
            } finally {
                client.close();
            }
        }
    }

    @Test
    void keptSessionsKeepTheirEphemeralNodesUntilTheyExpire() throws Exception {
        crashWithAnEphemeralNode();
        try (EmbeddedZooKeeper restarted = EmbeddedZooKeeper.start(dir, 0, EmbeddedZooKeeper.DEFAULT_TICK_MS, false)) {
            assertEquals(0, restarted.closedStaleSessions());
            ZooKeeper client = connect(restarted.connectString());
            try {
                assertNotNull(client.exists("/live", false));
            } finally {
                client.close();
            }
        }
    }

    @Test
    void withoutFsyncWritesStillSurviveAnOrderlyRestartAndTheJvmSettingIsLeftAlone() throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(dir, 0, EmbeddedZooKeeper.DEFAULT_TICK_MS, true, false)) {
            ZooKeeper client = connect(zk.connectString());
            try {
                client.create("/kept", new byte[] {7}, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            } finally {
                client.close();
            }
        }
        assertNull(System.getProperty("zookeeper.forceSync"), "set only while the transaction log is made");
        try (EmbeddedZooKeeper restarted = EmbeddedZooKeeper.start(dir, 0)) {
            ZooKeeper client = connect(restarted.connectString());
            try {
                assertEquals(7, client.getData("/kept", false, null)[0]);
            } finally {
                client.close();
            }
        }
    }

    /** A process that dies with its ZooKeeper: the session it had is only on disk. */
    private void crashWithAnEphemeralNode() throws Exception {
        EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(dir, 0);
        ZooKeeper owner = connect(zk.connectString());
        owner.create("/live", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
        zk.close();
        owner.close(100);
    }

    private static ZooKeeper connect(String connectString) throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper client = new ZooKeeper(connectString, LONG_SESSION_MS, event -> {
            if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        if (!connected.await(10, TimeUnit.SECONDS)) {
            client.close();
            throw new IllegalStateException("no connection to " + connectString);
        }
        return client;
    }
}

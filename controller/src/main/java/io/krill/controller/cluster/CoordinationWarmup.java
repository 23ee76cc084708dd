package io.krill.controller.cluster;

import java.lang.management.ManagementFactory;
import org.apache.helix.zookeeper.datamodel.ZNRecord;
import org.apache.helix.zookeeper.datamodel.serializer.ZNRecordSerializer;
import org.apache.zookeeper.client.ZKClientConfig;

/**
 * Initialises, ahead of need, the classes whose first use makes a ZooKeeper-backed broker's start
 * wait: the ZooKeeper client's configuration (its static TLS defaults build the JDK's default
 * {@code SSLContext} and parse the trust store, about 90 ms, even for plain connections), the
 * platform MBean server (ZooKeeper and Helix register beans) and Helix's Jackson serializer.
 *
 * <p>Meant for a second thread at process start, while the main thread configures and starts the
 * embedded ZooKeeper. Each step goes through the same entry point the main thread later uses, so the
 * two threads can only wait for each other's class initialisation, never deadlock on it. Stateless.
 */
public final class CoordinationWarmup {
    private CoordinationWarmup() {
    }

    /** Runs every step; a failure here only means the main thread pays for that step itself later. */
    public static void run() {
        new ZKClientConfig();
        ManagementFactory.getPlatformMBeanServer();
        ZNRecordSerializer serializer = new ZNRecordSerializer();
        serializer.deserialize(serializer.serialize(new ZNRecord("warmup")));
    }
}

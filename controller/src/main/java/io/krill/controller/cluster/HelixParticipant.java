package io.krill.controller.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import java.util.Set;
import org.apache.helix.HelixCloudProperty;
import org.apache.helix.HelixManagerProperty;
import org.apache.helix.model.CloudConfig;
import org.apache.helix.PreConnectCallback;
import org.apache.helix.controller.pipeline.Pipeline;
import org.apache.helix.SystemPropertyKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This broker in Helix: a participant (its ephemeral live instance is the broker's liveness) and a
 * controller candidate (one broker of the cluster wins Helix's election through the ephemeral
 * {@code CONTROLLER/LEADER} node and then runs {@link LeaderController}); one ZooKeeper session for
 * both, so that losing it loses both roles at once. Krill gives Helix no resources: partitions do
 * not go through Helix's per-replica state transitions (docs/coordination.md says why).
 *
 * <p>Thread-safe: set up once by {@link #join}, then used from any thread.
 */
final class HelixParticipant implements AutoCloseable {
    /** Helix reads its session timeout from a JVM-wide property, in its manager's constructor only. */
    private static final Object SESSION_TIMEOUT_PROPERTY = new Object();

    private static final Logger LOG = LoggerFactory.getLogger(HelixParticipant.class);
    /** How long a shutdown waits for Helix to disconnect. */
    private static final long DISCONNECT_WAIT_MS = 10_000;

    private static final String HELIX_PROPERTIES = SystemPropertyKeys.HELIX_MANAGER_PROPERTIES;

    private final FencingHelixManager manager;

    HelixParticipant(String zkConnect, ZkPaths paths, int nodeId, int sessionTimeoutMs, SessionFence fence) {
        String cluster = paths.cluster();
        synchronized (SESSION_TIMEOUT_PROPERTY) {
            String previous = System.getProperty(SystemPropertyKeys.ZK_SESSION_TIMEOUT);
            System.setProperty(SystemPropertyKeys.ZK_SESSION_TIMEOUT, Integer.toString(sessionTimeoutMs));
            try {
                manager = new FencingHelixManager(cluster, ZkPaths.instanceName(nodeId), zkConnect, fence,
                        managerProperty());
            } finally {
                if (previous == null) {
                    System.clearProperty(SystemPropertyKeys.ZK_SESSION_TIMEOUT);
                } else {
                    System.setProperty(SystemPropertyKeys.ZK_SESSION_TIMEOUT, previous);
                }
            }
        }
    }

    /**
     * Helix's manager settings, made here rather than by Helix's own factory: that one opens a throw-away
     * ZooKeeper session to read the cluster's cloud config (Krill sets none), and the manager's
     * constructor opens a second one for the same read; one is enough (about 100 ms of start-up each).
     * The version and health-report latency come from Helix's own {@code helix-manager.properties}.
     */
    private static HelixManagerProperty managerProperty() {
        Properties properties = new Properties();
        try (InputStream in = HelixManagerProperty.class.getClassLoader().getResourceAsStream(HELIX_PROPERTIES)) {
            if (in == null) {
                throw new IllegalStateException(HELIX_PROPERTIES + " is missing from Helix's jar");
            }
            properties.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + HELIX_PROPERTIES, e);
        }
        return new HelixManagerProperty.Builder()
                .setVersion(properties.getProperty(SystemPropertyKeys.HELIX_MANAGER_VERSION))
                .setHelixCloudProperty(new HelixCloudProperty(new CloudConfig()))
                .setHealthReportLatency(Long.parseLong(
                        properties.getProperty(SystemPropertyKeys.PARTICIPANT_HEALTH_REPORT_LATENCY)))
                .build();
    }

    /**
     * Connects: {@code beforeLive} runs on every new session before the live-instance node is created
     * (so before the controller can give this broker any role), then the manager joins as participant
     * and controller candidate.
     */
    void join(PreConnectCallback beforeLive) throws Exception {
        // Krill runs no Helix tasks: only the resource pipeline, half the controller's work per event.
        manager.setEnabledControlPipelineTypes(Set.of(Pipeline.Type.DEFAULT));
        manager.addPreConnectCallback(beforeLive);
        manager.connect();
    }

    String sessionId() {
        return manager.getSessionId();
    }

    /**
     * Disconnects, waiting at most {@link #DISCONNECT_WAIT_MS}: Helix's event thread can hold the
     * manager's lock while it retries a write until ZooKeeper comes back (a status update of a
     * transition caught by a ZooKeeper crash), and disconnect needs that lock. A shutdown must finish
     * anyway: the session then expires on the server like a crashed broker's.
     */
    @Override
    public void close() {
        Thread disconnecting = new Thread(manager::disconnect, "helix-disconnect-" + manager.getInstanceName());
        disconnecting.setDaemon(true);
        disconnecting.start();
        try {
            disconnecting.join(DISCONNECT_WAIT_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (disconnecting.isAlive()) {
            LOG.warn("Helix participant {} did not disconnect within {} ms (ZooKeeper unreachable?); leaving it behind",
                    manager.getInstanceName(), DISCONNECT_WAIT_MS);
        }
    }
}

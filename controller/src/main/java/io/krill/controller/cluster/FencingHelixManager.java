package io.krill.controller.cluster;

import org.apache.helix.HelixManagerProperty;
import org.apache.helix.InstanceType;
import org.apache.helix.manager.zk.ZKHelixManager;
import org.apache.zookeeper.Watcher.Event.KeeperState;

/**
 * Helix's ZooKeeper manager, as both participant and controller candidate on one session, reporting
 * that session's state to the {@link SessionFence}: which session finished its set-up (Helix's
 * new-session handling, which runs the participant's pre-connect resignation, has returned), and the
 * connection state as Helix's event thread sees it. Helix offers no other hook for this.
 *
 * <p>Thread-safe as Helix's manager is; the overrides run on Helix's ZooKeeper event thread.
 */
final class FencingHelixManager extends ZKHelixManager {
    private final SessionFence fence;

    FencingHelixManager(String cluster, String instanceName, String zkAddress, SessionFence fence,
                        HelixManagerProperty property) {
        super(cluster, instanceName, InstanceType.CONTROLLER_PARTICIPANT, zkAddress, null, property);
        this.fence = fence;
    }

    @Override
    public void handleStateChanged(KeeperState state) {
        switch (state) {
            case SyncConnected -> fence.helixConnected(true);
            case Expired -> {
                fence.helixSessionStarting();
                fence.helixConnected(false);
            }
            default -> fence.helixConnected(false);
        }
        super.handleStateChanged(state);
    }

    @Override
    public void handleNewSession(String sessionId) throws Exception {
        fence.helixSessionStarting();
        super.handleNewSession(sessionId);
        String established = sessionId != null ? sessionId : getSessionId();
        fence.helixSessionReady(Long.parseUnsignedLong(established, 16));
    }
}

package io.krill.controller.cluster;

import org.apache.zookeeper.WatchedEvent;

/** A {@link ZkSession.Listener} for tests that only need the session: it ignores every event. Stateless. */
final class QuietZkListener implements ZkSession.Listener {
    @Override
    public void onConnected(boolean newSession) {
    }

    @Override
    public void onDisconnected() {
    }

    @Override
    public void onExpired() {
    }

    @Override
    public void onNodeEvent(WatchedEvent event) {
    }
}

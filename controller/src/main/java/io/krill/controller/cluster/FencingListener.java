package io.krill.controller.cluster;

/**
 * Told when this broker becomes fenced (it lost a ZooKeeper session it relies on, so another broker
 * may already lead its partitions) and when it is unfenced again. Called on the store's notification
 * thread, in order with metadata images; must be quick.
 */
@FunctionalInterface
public interface FencingListener {
    void onFencingChanged(boolean fenced);
}

package io.krill.controller.metadata;

/**
 * Told of every new {@link MetadataImage}, in order, on the store's notification thread. Implementations
 * must be quick (flip partition roles, start or stop fetchers) and must not call back into the store
 * synchronously.
 */
@FunctionalInterface
public interface MetadataListener {
    void onChange(MetadataImage previous, MetadataImage current);
}

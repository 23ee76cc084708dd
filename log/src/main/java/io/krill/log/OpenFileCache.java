package io.krill.log;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

/**
 * Bounds the file channels and index mappings kept open for <em>inactive</em> segments of all partitions
 * (active segments pin theirs and are not counted). Each cached resource holds one reference owned by the
 * cache; eviction (size-bounded, W-TinyLFU) or invalidation releases it, so a resource closes once the
 * cache and every in-flight reader have let go: a reader never sees a channel closed or an index unmapped
 * under it. Re-opening after eviction is transparent to callers. Thread-safe.
 */
public final class OpenFileCache {
    private final Cache<Object, RefCounted> cache;

    /** @param maxOpen how many inactive-segment resources (channels plus index mappings) stay open */
    public OpenFileCache(long maxOpen) {
        cache = Caffeine.newBuilder()
                .maximumSize(maxOpen)
                .executor(Runnable::run)
                .<Object, RefCounted>removalListener((k, v, cause) -> {
                    if (v != null) {
                        v.release();
                    }
                })
                .build();
    }

    /**
     * Makes the cache hold a reference to {@code resource}, the current open resource of {@code owner}
     * (the caller holds its own reference), and records the access.
     */
    void register(Object owner, RefCounted resource) {
        RefCounted existing = cache.getIfPresent(owner);
        if (existing != resource) {
            cache.asMap().compute(owner, (k, old) -> {
                if (old == resource) {
                    return old;
                }
                resource.retain();
                return resource;
            });
        }
    }

    /** Drops the cache's reference to {@code owner}'s resource, if it holds one. */
    void invalidate(Object owner) {
        cache.invalidate(owner);
    }

    /** Approximate number of open cached resources. */
    public long size() {
        cache.cleanUp();
        return cache.estimatedSize();
    }

    /** Releases every cached resource (shutdown). */
    public void invalidateAll() {
        cache.invalidateAll();
        cache.cleanUp();
    }
}

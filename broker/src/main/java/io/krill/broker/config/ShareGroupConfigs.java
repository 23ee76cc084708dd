package io.krill.broker.config;

/**
 * Looks up the effective {@link ShareGroupConfig} of a share group from the latest metadata image.
 * Implementations are thread-safe and cheap to call per request.
 */
@FunctionalInterface
public interface ShareGroupConfigs {
    ShareGroupConfig of(String groupId);

    /** Every group on the given settings (tests). */
    static ShareGroupConfigs fixed(ShareGroupConfig config) {
        return groupId -> config;
    }
}

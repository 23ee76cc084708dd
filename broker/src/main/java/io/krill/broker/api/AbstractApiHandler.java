package io.krill.broker.api;

import io.krill.wire.message.ApiKeys;

/**
 * A handler's API key and the versions it advertises and serves, given once to the constructor rather
 * than as three methods in every handler. Immutable; subclasses state their own thread-safety.
 */
public abstract class AbstractApiHandler implements ApiHandler {
    private final ApiKeys apiKey;
    private final short minVersion;
    private final short maxVersion;

    protected AbstractApiHandler(ApiKeys apiKey, int minVersion, int maxVersion) {
        if (minVersion < 0 || minVersion > maxVersion || maxVersion > Short.MAX_VALUE) {
            throw new IllegalArgumentException(apiKey + ": bad version range " + minVersion + "-" + maxVersion);
        }
        this.apiKey = apiKey;
        this.minVersion = (short) minVersion;
        this.maxVersion = (short) maxVersion;
    }

    @Override
    public final ApiKeys apiKey() {
        return apiKey;
    }

    @Override
    public final short minVersion() {
        return minVersion;
    }

    @Override
    public final short maxVersion() {
        return maxVersion;
    }
}

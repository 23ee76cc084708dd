package io.krill.compat.differential;

import io.krill.compat.support.BrokerApis;
import io.krill.wire.message.ApiKeys;
import java.util.EnumMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The version of each API the comparison sends: the one the stock 4.4 Java client would send to each
 * broker ({@code min(client's latest, broker's highest)}), taken as the lower of the two brokers' so that
 * both receive the very same bytes. Computed once from both brokers' ApiVersions; an API either broker
 * does not advertise fails the test that asks for it.
 *
 * <p>Immutable; thread-safe.
 */
final class RequestVersions {
    private final Map<ApiKeys, Short> versions;

    private RequestVersions(Map<ApiKeys, Short> versions) {
        this.versions = versions;
    }

    static RequestVersions negotiate(BrokerApis kafka, BrokerApis krill) {
        Map<ApiKeys, Short> versions = new EnumMap<>(ApiKeys.class);
        for (ApiKeys api : ApiKeys.values()) {
            if (api.isRemoved() || !org.apache.kafka.common.protocol.ApiKeys.hasId(api.id())) {
                continue;
            }
            org.apache.kafka.common.protocol.ApiKeys judge = org.apache.kafka.common.protocol.ApiKeys.forId(api.id());
            short[] onKafka = kafka.versions().get(judge);
            short[] onKrill = krill.versions().get(judge);
            if (onKafka == null || onKrill == null) {
                continue;
            }
            short version = (short) Math.min(judge.latestVersion(), Math.min(onKafka[1], onKrill[1]));
            if (version >= Math.max(onKafka[0], onKrill[0])) {
                versions.put(api, version);
            }
        }
        return new RequestVersions(versions);
    }

    /** The version to send {@code api} at; fails if one of the brokers does not serve it. */
    short of(ApiKeys api) {
        Short version = versions.get(api);
        if (version == null) {
            throw new AssertionError(api.apiName() + " is not served by both brokers at a common version");
        }
        return version;
    }

    @Override
    public String toString() {
        return versions.entrySet().stream().map(e -> e.getKey().apiName() + " v" + e.getValue())
                .collect(Collectors.joining(", "));
    }
}

package io.krill.compat.differential;

import io.krill.compat.support.BrokerApis;
import io.krill.wire.message.ApiKeys;
import java.util.EnumMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The versions of each API the comparison sends: from the lowest that the stock 4.4 Java client knows and
 * both brokers serve, up to the one the 4.4 client would send to each broker ({@code min(client's latest,
 * broker's highest)}), taken as the lower of the two brokers' so that both receive the very same bytes.
 * Computed once from both brokers' ApiVersions; an API either broker does not advertise fails the test
 * that asks for it.
 *
 * <p>Immutable; thread-safe.
 */
final class RequestVersions {
    /** The versions of one API both brokers serve and the 4.4 client knows, both ends included. */
    record Range(short lowest, short highest) {
        @Override
        public String toString() {
            return lowest == highest ? "v" + highest : "v" + lowest + "-" + highest;
        }
    }

    private final Map<ApiKeys, Range> versions;

    private RequestVersions(Map<ApiKeys, Range> versions) {
        this.versions = versions;
    }

    static RequestVersions negotiate(BrokerApis kafka, BrokerApis krill) {
        Map<ApiKeys, Range> versions = new EnumMap<>(ApiKeys.class);
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
            short highest = (short) Math.min(judge.latestVersion(), Math.min(onKafka[1], onKrill[1]));
            short lowest = (short) Math.max(judge.oldestVersion(), Math.max(onKafka[0], onKrill[0]));
            if (highest >= lowest) {
                versions.put(api, new Range(lowest, highest));
            }
        }
        return new RequestVersions(versions);
    }

    /** The version a 4.4 client sends {@code api} at; fails if one of the brokers does not serve it. */
    short of(ApiKeys api) {
        return range(api).highest();
    }

    /** The versions of {@code api} compared; fails if one of the brokers does not serve it. */
    Range range(ApiKeys api) {
        Range range = versions.get(api);
        if (range == null) {
            throw new AssertionError(api.apiName() + " is not served by both brokers at a common version");
        }
        return range;
    }

    @Override
    public String toString() {
        return versions.entrySet().stream().map(e -> e.getKey().apiName() + " " + e.getValue())
                .collect(Collectors.joining(", "));
    }
}

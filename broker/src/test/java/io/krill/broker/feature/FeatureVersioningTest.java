package io.krill.broker.feature;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.testing.RawClient;
import io.krill.broker.testing.TestBroker;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.ApiVersionsRequest;
import io.krill.wire.message.ApiVersionsResponse;
import io.krill.wire.message.ConsumerGroupHeartbeatRequest;
import io.krill.wire.message.ConsumerGroupHeartbeatResponse;
import io.krill.wire.message.UpdateFeaturesRequest;
import io.krill.wire.message.UpdateFeaturesResponse;
import io.krill.wire.protocol.ApiMessage;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Feature versioning over a raw socket (KIP-584): ApiVersions' supported and finalized features per
 * version, UpdateFeatures' checks and versions, the epoch that moves with every change, and
 * {@code group.version} 0 turning the consumer group protocol off as Kafka does.
 */
class FeatureVersioningTest {
    private static TestBroker broker;
    private static RawClient client;

    @BeforeAll
    static void start() throws Exception {
        broker = TestBroker.start(Map.of());
        client = new RawClient(broker.port());
    }

    @AfterAll
    static void stop() throws Exception {
        client.close();
        broker.close();
    }

    private static <T extends ApiMessage> T call(ApiKeys api, short version, ApiMessage request) throws Exception {
        return client.call(api, version, request);
    }

    private static ApiVersionsResponse apiVersions(short version) throws Exception {
        return call(ApiKeys.API_VERSIONS, version, new ApiVersionsRequest().setClientSoftwareName("test")
                .setClientSoftwareVersion("1"));
    }

    private static Map<String, Short> finalized(ApiVersionsResponse response) {
        Map<String, Short> levels = new HashMap<>();
        response.finalizedFeatures().forEach(f -> levels.put(f.name(), f.maxVersionLevel()));
        return levels;
    }

    private static UpdateFeaturesResponse update(short version, String feature, int level, byte type, boolean validateOnly)
            throws Exception {
        UpdateFeaturesRequest.FeatureUpdateKey key = new UpdateFeaturesRequest.FeatureUpdateKey().setFeature(feature)
                .setMaxVersionLevel((short) level);
        if (version == 0) {
            key.setAllowDowngrade(type != FeatureLevelChange.UPGRADE);
        } else {
            key.setUpgradeType(type);
        }
        UpdateFeaturesRequest request = new UpdateFeaturesRequest().setTimeoutMs(10_000).setFeatureUpdates(List.of(key));
        if (version >= 1) {
            request.setValidateOnly(validateOnly);
        }
        return call(ApiKeys.UPDATE_FEATURES, version, request);
    }

    @Test
    void apiVersionsReportsFeaturesAndUpdateFeaturesChangesThemWithKafkasChecks() throws Exception {
        ApiVersionsResponse v4 = apiVersions((short) 4);
        assertEquals(Map.of("transaction.version", (short) 2, "group.version", (short) 1,
                "eligible.leader.replicas.version", (short) 1, "share.version", (short) 2), finalized(v4));
        assertTrue(v4.supportedFeatures().stream().anyMatch(f -> f.name().equals("transaction.version")
                && f.minVersion() == 0 && f.maxVersion() == 2));
        assertTrue(apiVersions((short) 3).supportedFeatures().isEmpty(), "v3 omits features whose minimum is 0");
        assertTrue(apiVersions((short) 2).finalizedFeatures().isEmpty(), "no features before v3");
        long epoch = v4.finalizedFeaturesEpoch();

        UpdateFeaturesResponse unsupported = update((short) 1, "transaction.version", 3, FeatureLevelChange.UPGRADE, false);
        assertEquals(Errors.INVALID_UPDATE_VERSION.code(), unsupported.errorCode());
        assertTrue(unsupported.errorMessage().contains("only supports versions [0-2]"), unsupported.errorMessage());
        assertEquals(Errors.INVALID_UPDATE_VERSION.code(), unsupported.results().get(0).errorCode(), "v1 repeats it");
        assertEquals(Errors.INVALID_UPDATE_VERSION.code(),
                update((short) 2, "no.such.feature", 1, FeatureLevelChange.UPGRADE, false).errorCode());
        UpdateFeaturesResponse lowerAsUpgrade = update((short) 2, "transaction.version", 1, FeatureLevelChange.UPGRADE,
                false);
        assertTrue(lowerAsUpgrade.errorMessage().contains("without setting the upgrade type"), lowerAsUpgrade.errorMessage());
        assertTrue(lowerAsUpgrade.results().isEmpty(), "v2 has no per-feature results");
        assertEquals(Errors.INVALID_UPDATE_VERSION.code(),
                update((short) 2, "transaction.version", 2, (byte) 9, false).errorCode(), "an unknown upgrade type");

        assertEquals(Errors.NONE.code(),
                update((short) 1, "transaction.version", 1, FeatureLevelChange.SAFE_DOWNGRADE, true).errorCode());
        assertEquals((short) 2, finalized(apiVersions((short) 4)).get("transaction.version"), "validate_only changes nothing");

        assertEquals(Errors.NONE.code(),
                update((short) 0, "transaction.version", 1, FeatureLevelChange.SAFE_DOWNGRADE, false).errorCode());
        ApiVersionsResponse downgraded = apiVersions((short) 4);
        assertEquals((short) 1, finalized(downgraded).get("transaction.version"));
        assertTrue(downgraded.finalizedFeaturesEpoch() > epoch, "every change moves the epoch clients compare");
        assertEquals(Errors.INVALID_UPDATE_VERSION.code(),
                update((short) 2, "transaction.version", 2, FeatureLevelChange.SAFE_DOWNGRADE, false).errorCode(),
                "a downgrade type cannot raise a level");
        assertEquals(Errors.NONE.code(),
                update((short) 2, "transaction.version", 2, FeatureLevelChange.UPGRADE, false).errorCode());
        assertEquals((short) 2, finalized(apiVersions((short) 4)).get("transaction.version"));
    }

    @Test
    void groupVersionZeroTurnsTheConsumerProtocolOff() throws Exception {
        ConsumerGroupHeartbeatRequest join = new ConsumerGroupHeartbeatRequest().setGroupId("gv").setMemberId("m-1")
                .setMemberEpoch(0).setRebalanceTimeoutMs(30_000).setSubscribedTopicNames(List.of("gv-topic"))
                .setTopicPartitions(List.of());
        try {
            assertEquals(Errors.NONE.code(), update((short) 2, "group.version", 0, FeatureLevelChange.SAFE_DOWNGRADE,
                    false).errorCode());
            assertNull(finalized(apiVersions((short) 4)).get("group.version"), "a level of 0 is not listed");
            ConsumerGroupHeartbeatResponse refused = call(ApiKeys.CONSUMER_GROUP_HEARTBEAT, (short) 0, join);
            assertEquals(Errors.UNSUPPORTED_VERSION.code(), refused.errorCode());
        } finally {
            assertEquals(Errors.NONE.code(), update((short) 2, "group.version", 1, FeatureLevelChange.UPGRADE,
                    false).errorCode());
        }
        ConsumerGroupHeartbeatResponse joined = call(ApiKeys.CONSUMER_GROUP_HEARTBEAT, (short) 0, join);
        assertTrue(joined.errorCode() != Errors.UNSUPPORTED_VERSION.code(), "served again at group.version 1");
    }
}

package io.krill.compat.differential;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.wire.message.ApiKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * ApiVersions error paths, SASL on a PLAINTEXT listener, and the ACL APIs on brokers without an
 * authorizer (both nodes of this pair have none): what a client that assumes security gets from a broker
 * that has none.
 */
class VersionsAndSecurityConformanceTest extends DifferentialTest {

    /**
     * A version beyond any broker's: the header says v127, the body is the highest layout both write
     * (brokers do not read it). Kafka answers v0, UNSUPPORTED_VERSION, with its ApiVersions range, which
     * kafka-clients parses by falling back to v0; the JSON is therefore written at v0.
     */
    @Test
    void apiVersionsAtAnUnsupportedVersion() {
        sequence("ApiVersions v127", ApiKeys.API_VERSIONS).exactly(127, highest(ApiKeys.API_VERSIONS), 0)
                .request((side, version) -> ClientRequests.apiVersions())
                .expect("/errorCode", Errors.UNSUPPORTED_VERSION)
                .run();
    }

    /**
     * Kafka 4.4's APIs that Krill does not serve yet, and the APIs Krill serves below Kafka's highest
     * version (Krill's highest given), each with the issue or reason. The table is otherwise compared
     * whole: every other API must have Kafka's range exactly, so a handler dropped, a version added past
     * the codec, or an API added without this list being updated fails the test.
     */
    private static final Map<Integer, String> NOT_SERVED = Map.ofEntries(
            Map.entry(34, "AlterReplicaLogDirs: one log dir per broker in the tests; JBOD moves not built"),
            Map.entry(38, "CreateDelegationToken: delegation tokens not supported (docs/compatibility.md)"),
            Map.entry(39, "RenewDelegationToken: delegation tokens not supported"),
            Map.entry(40, "ExpireDelegationToken: delegation tokens not supported"),
            Map.entry(41, "DescribeDelegationToken: delegation tokens not supported"),
            Map.entry(55, "DescribeQuorum: KRaft only; Krill's metadata quorum is ZooKeeper"),
            Map.entry(64, "UnregisterBroker: KRaft only"),
            Map.entry(80, "AddRaftVoter: KRaft only"),
            Map.entry(81, "RemoveRaftVoter: KRaft only"),
            Map.entry(88, "StreamsGroupHeartbeat (KIP-1071): streams groups, not planned yet"),
            Map.entry(89, "StreamsGroupDescribe (KIP-1071): not planned yet"),
            Map.entry(93, "StreamsGroupTopologyDescriptionUpdate: streams groups, not planned yet"),
            Map.entry(94, "UnregisterController: KRaft only"));

    private static final Map<Integer, Integer> LOWER_MAXIMUM = Map.of(
            1, 17,   // Fetch v18: not yet
            2, 10,   // ListOffsets v11: not yet
            8, 9,    // OffsetCommit v10: not yet
            9, 9,    // OffsetFetch v10: not yet
            28, 5,   // TxnOffsetCommit v6: topic ids instead of names (KIP-1319), not yet
            42, 2);  // DeleteGroups v3: not yet

    /**
     * The API table both brokers answer to ApiVersions: equal, apart from the declared lists above (the
     * features are compared by {@link #apiVersionsFeaturesAreKafkasMinusTheDeclaredGaps}).
     */
    @Test
    void apiVersionsTableIsKafkasMinusTheDeclaredGaps() {
        Map<Integer, short[]> onKafka = table(kafka());
        Map<Integer, short[]> onKrill = table(krill());
        List<String> problems = new ArrayList<>();
        for (Map.Entry<Integer, short[]> api : onKafka.entrySet()) {
            int key = api.getKey();
            short[] kafkaRange = api.getValue();
            short[] krillRange = onKrill.get(key);
            String name = "API " + key + " (Kafka v" + kafkaRange[0] + "-" + kafkaRange[1] + ")";
            if (NOT_SERVED.containsKey(key)) {
                if (krillRange != null) {
                    problems.add(name + " is served now (v" + krillRange[0] + "-" + krillRange[1]
                            + "): remove it from NOT_SERVED and compare it");
                }
            } else if (krillRange == null) {
                problems.add(name + " is not served by Krill");
            } else {
                int wantedMax = LOWER_MAXIMUM.getOrDefault(key, (int) kafkaRange[1]);
                if (krillRange[0] != kafkaRange[0] || krillRange[1] != wantedMax) {
                    problems.add(name + ": Krill serves v" + krillRange[0] + "-" + krillRange[1] + ", expected v"
                            + kafkaRange[0] + "-" + wantedMax
                            + (LOWER_MAXIMUM.containsKey(key) ? " (declared in LOWER_MAXIMUM)" : ""));
                }
            }
        }
        for (Map.Entry<Integer, short[]> api : onKrill.entrySet()) {
            if (!onKafka.containsKey(api.getKey())) {
                problems.add("API " + api.getKey() + " is served by Krill, not by Kafka 4.4");
            }
        }
        for (int key : NOT_SERVED.keySet()) {
            if (!onKafka.containsKey(key)) {
                problems.add("API " + key + " is in NOT_SERVED but Kafka 4.4 does not serve it either");
            }
        }
        Coverage.INSTANCE.record("ApiVersions", (short) -1, "the API table, apart from the declared gaps",
                problems.isEmpty() ? "match" : "DIFFERENT: " + problems);
        assertTrue(problems.isEmpty(), "ApiVersions tables:\n  " + String.join("\n  ", problems));
    }

    /**
     * Kafka 4.4's features that Krill does not offer, with the reason; every other feature must have
     * Kafka's supported range and, on a new cluster, Kafka's finalized level.
     */
    private static final Map<String, String> FEATURES_NOT_OFFERED = Map.of(
            "metadata.version", "KRaft's metadata log: Krill keeps metadata in ZooKeeper and Helix",
            "kraft.version", "KRaft only",
            "streams.version", "streams groups (KIP-1071), not planned yet");

    /**
     * Features Krill offers below Kafka 4.4's highest level: Krill's supported range and new-cluster level,
     * with the reason.
     */
    private static final Map<String, String[]> FEATURES_LOWER = Map.of();

    /**
     * ApiVersions' supported and finalized features (v3+, KIP-584): the same ranges and new-cluster levels
     * as Kafka 4.4 for every feature Krill offers, none that Kafka lacks, and a finalized-features epoch.
     */
    @Test
    void apiVersionsFeaturesAreKafkasMinusTheDeclaredGaps() {
        ApiVersionsResponseData kafka = (ApiVersionsResponseData) kafka().send(ApiKeys.API_VERSIONS,
                ClientRequests.apiVersions()).data();
        ApiVersionsResponseData krill = (ApiVersionsResponseData) krill().send(ApiKeys.API_VERSIONS,
                ClientRequests.apiVersions()).data();
        List<String> problems = new ArrayList<>();
        Map<String, String> kafkaSupported = new TreeMap<>();
        kafka.supportedFeatures().forEach(f -> kafkaSupported.put(f.name(), f.minVersion() + "-" + f.maxVersion()));
        Map<String, String> krillSupported = new TreeMap<>();
        krill.supportedFeatures().forEach(f -> krillSupported.put(f.name(), f.minVersion() + "-" + f.maxVersion()));
        Map<String, String> kafkaFinalized = new TreeMap<>();
        kafka.finalizedFeatures().forEach(f -> kafkaFinalized.put(f.name(), f.minVersionLevel() + "-" + f.maxVersionLevel()));
        Map<String, String> krillFinalized = new TreeMap<>();
        krill.finalizedFeatures().forEach(f -> krillFinalized.put(f.name(), f.minVersionLevel() + "-" + f.maxVersionLevel()));
        assertTrue(kafkaSupported.containsKey("transaction.version"), "Kafka reports its features: " + kafkaSupported);
        for (String feature : kafkaSupported.keySet()) {
            if (FEATURES_NOT_OFFERED.containsKey(feature) || feature.startsWith("test.") || feature.startsWith("unit.")) {
                continue;
            }
            if (FEATURES_LOWER.containsKey(feature)) {
                String[] lower = FEATURES_LOWER.get(feature);
                if (!lower[0].equals(krillSupported.get(feature)) || !lower[1].equals(krillFinalized.get(feature))) {
                    problems.add(feature + ": Krill supports " + krillSupported.get(feature) + " finalized "
                            + krillFinalized.get(feature) + ", declared " + lower[0] + " / " + lower[1]);
                }
                continue;
            }
            if (!kafkaSupported.get(feature).equals(krillSupported.get(feature))) {
                problems.add(feature + " supported: Kafka " + kafkaSupported.get(feature) + ", Krill "
                        + krillSupported.get(feature));
            }
            if (!java.util.Objects.equals(kafkaFinalized.get(feature), krillFinalized.get(feature))) {
                problems.add(feature + " finalized: Kafka " + kafkaFinalized.get(feature) + ", Krill "
                        + krillFinalized.get(feature));
            }
        }
        for (String feature : krillSupported.keySet()) {
            if (!kafkaSupported.containsKey(feature)) {
                problems.add(feature + " is supported by Krill, not by Kafka 4.4");
            }
        }
        if (krill.finalizedFeaturesEpoch() < 0) {
            problems.add("Krill's finalized features epoch is " + krill.finalizedFeaturesEpoch());
        }
        Coverage.INSTANCE.record("ApiVersions", (short) -1, "supported and finalized features",
                problems.isEmpty() ? "match" : "DIFFERENT: " + problems);
        assertTrue(problems.isEmpty(), "features (Kafka supported " + kafkaSupported + ", finalized "
                + kafkaFinalized + "; Krill supported " + krillSupported + ", finalized " + krillFinalized + "):\n  "
                + String.join("\n  ", problems));
    }

    private static Map<Integer, short[]> table(BrokerSide side) {
        ApiVersionsResponseData data = (ApiVersionsResponseData) side.send(ApiKeys.API_VERSIONS,
                ClientRequests.apiVersions()).data();
        assertEquals(Errors.NONE.code(), data.errorCode(), side + " answers ApiVersions");
        Map<Integer, short[]> table = new TreeMap<>();
        for (ApiVersionsResponseData.ApiVersion api : data.apiKeys()) {
            table.put((int) api.apiKey(), new short[] {api.minVersion(), api.maxVersion()});
        }
        return table;
    }

    /** KIP-511: a client software name outside {@code [a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?} is refused. */
    @Test
    void apiVersionsWithAnInvalidClientSoftwareName() {
        sequence("ApiVersions with client software name 'bad name!'", ApiKeys.API_VERSIONS).from(3)
                .request((side, version) -> ClientRequests.apiVersions().setClientSoftwareName("bad name!"))
                .expect("/errorCode", Errors.INVALID_REQUEST)
                .run();
    }

    @Test
    void saslHandshakeOnAPlaintextListener() {
        sequence("SaslHandshake PLAIN on a PLAINTEXT listener", ApiKeys.SASL_HANDSHAKE)
                .request((side, version) -> ClientRequests.saslHandshake("PLAIN"))
                .expect("/errorCode", Errors.ILLEGAL_SASL_STATE)
                .run();
    }

    @Test
    void saslAuthenticateOnAPlaintextListener() {
        sequence("SaslAuthenticate on a PLAINTEXT listener", ApiKeys.SASL_AUTHENTICATE)
                .request((side, version) -> ClientRequests.saslPlain("alice", "alice-secret"))
                .expect("/errorCode", Errors.ILLEGAL_SASL_STATE)
                .run();
    }

    @Test
    void describeAclsWithoutAnAuthorizer() {
        sequence("DescribeAcls without an authorizer", ApiKeys.DESCRIBE_ACLS)
                .request((side, version) -> ClientRequests.describeAnyAcl())
                .expect("/errorCode", Errors.SECURITY_DISABLED)
                .run();
    }

    @Test
    void createAclsWithoutAnAuthorizer() {
        sequence("CreateAcls without an authorizer", ApiKeys.CREATE_ACLS)
                .request((side, version) -> ClientRequests.createTopicReadAcl("diff-acl-topic", "User:alice"))
                .expect("/results/0/errorCode", Errors.SECURITY_DISABLED)
                .run();
    }

    @Test
    void deleteAclsWithoutAnAuthorizer() {
        sequence("DeleteAcls without an authorizer", ApiKeys.DELETE_ACLS)
                .request((side, version) -> ClientRequests.deleteTopicAcls("diff-acl-topic"))
                .expect("/filterResults/0/errorCode", Errors.SECURITY_DISABLED)
                .run();
    }
}

package io.krill.compat.differential;

import io.krill.wire.message.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Disabled;
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

    /** The whole table: Krill serves a subset of Kafka 4.4's APIs and versions, by design for now. */
    @Test
    @Disabled("KNOWN DIFFERENCE: ApiVersions v0-5, the API table: Kafka 4.4 serves 27 APIs Krill does not (34"
            + " AlterReplicaLogDirs, 38-41 delegation tokens, 55 DescribeQuorum, 57 UpdateFeatures, 64, 74, 76-81,"
            + " 83-94: client telemetry, share and streams groups), and higher versions of Fetch (18 vs 17),"
            + " ListOffsets (11/10), OffsetCommit (10/9), OffsetFetch (10/9), DescribeGroups (6/5), EndTxn (5/4),"
            + " TxnOffsetCommit (6/4), DeleteGroups (3/2). ApiVersions v3+ also lacks supportedFeatures,"
            + " finalizedFeatures and finalizedFeaturesEpoch (Kafka: transaction.version 2, group.version 1, ...)")
    void apiVersionsTable() {
        sequence("ApiVersions: the table of APIs and versions", ApiKeys.API_VERSIONS)
                .request((side, version) -> ClientRequests.apiVersions())
                .expect("/errorCode", Errors.NONE)
                .run();
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

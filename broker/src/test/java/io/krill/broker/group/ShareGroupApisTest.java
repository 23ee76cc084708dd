package io.krill.broker.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.testing.RawClient;
import io.krill.broker.testing.TestBroker;
import io.krill.controller.metadata.NewTopic;
import io.krill.wire.error.Errors;
import io.krill.wire.message.AlterShareGroupOffsetsRequest;
import io.krill.wire.message.AlterShareGroupOffsetsResponse;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.ApiVersionsRequest;
import io.krill.wire.message.ApiVersionsResponse;
import io.krill.wire.message.DeleteShareGroupOffsetsRequest;
import io.krill.wire.message.DeleteShareGroupOffsetsResponse;
import io.krill.wire.message.DescribeShareGroupOffsetsRequest;
import io.krill.wire.message.DescribeShareGroupOffsetsResponse;
import io.krill.wire.message.FindCoordinatorRequest;
import io.krill.wire.message.FindCoordinatorResponse;
import io.krill.wire.message.ListGroupsRequest;
import io.krill.wire.message.ListGroupsResponse;
import io.krill.wire.message.ShareGroupDescribeRequest;
import io.krill.wire.message.ShareGroupDescribeResponse;
import io.krill.wire.message.ShareGroupHeartbeatRequest;
import io.krill.wire.message.ShareGroupHeartbeatResponse;
import io.krill.wire.protocol.ApiMessage;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The share group APIs of a whole broker over a raw socket: advertised versions, and either the
 * {@code share.version} 0 refusal (UNSUPPORTED_VERSION, as Kafka) or, once the feature is finalized at 1 or
 * more, a member's life in a share group as ShareGroupDescribe and ListGroups see it.
 */
class ShareGroupApisTest {
    private static TestBroker broker;
    private static RawClient client;

    @BeforeAll
    static void start() throws Exception {
        broker = TestBroker.start(Map.of("offsets.topic.num.partitions", "1"));
        broker.broker().metadata().createTopic(NewTopic.of("t", 2, 1));
        client = new RawClient(broker.port());
        AtomicReference<FindCoordinatorResponse> answer = new AtomicReference<>();
        Awaitility.await("the group coordinator").atMost(Duration.ofSeconds(30)).until(() -> {
            answer.set(call(ApiKeys.FIND_COORDINATOR, (short) 3, new FindCoordinatorRequest().setKey("sg")
                    .setKeyType((byte) 0)));
            return answer.get().errorCode() == Errors.NONE.code();
        });
    }

    @AfterAll
    static void stop() throws Exception {
        client.close();
        broker.close();
    }

    private static <T extends ApiMessage> T call(ApiKeys api, short version, ApiMessage request) throws Exception {
        return client.call(api, version, request);
    }

    private static short shareVersion(ApiVersionsResponse versions) {
        return versions.finalizedFeatures().stream().filter(f -> f.name().equals("share.version"))
                .map(f -> f.maxVersionLevel()).findFirst().orElse((short) 0);
    }

    @Test
    void theShareGroupApisAreAdvertisedAndServedAsTheShareVersionSays() throws Exception {
        ApiVersionsResponse versions = call(ApiKeys.API_VERSIONS, (short) 3, new ApiVersionsRequest()
                .setClientSoftwareName("test").setClientSoftwareVersion("1"));
        Map<ApiKeys, short[]> expected = Map.of(ApiKeys.SHARE_GROUP_HEARTBEAT, new short[] {1, 1},
                ApiKeys.SHARE_GROUP_DESCRIBE, new short[] {1, 1},
                ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS, new short[] {0, 1},
                ApiKeys.ALTER_SHARE_GROUP_OFFSETS, new short[] {0, 0},
                ApiKeys.DELETE_SHARE_GROUP_OFFSETS, new short[] {0, 0});
        expected.forEach((api, range) -> {
            var advertised = versions.apiKeys().stream().filter(k -> k.apiKey() == api.id()).findFirst().orElseThrow();
            assertEquals(range[0], advertised.minVersion(), api.toString());
            assertEquals(range[1], advertised.maxVersion(), api.toString());
        });

        ShareGroupHeartbeatRequest join = new ShareGroupHeartbeatRequest().setGroupId("sg").setMemberId("member-1")
                .setMemberEpoch(0).setSubscribedTopicNames(List.of("t"));
        AtomicReference<ShareGroupHeartbeatResponse> joined = new AtomicReference<>();
        Awaitility.await("the group's partition loaded").atMost(Duration.ofSeconds(30)).until(() -> {
            joined.set(call(ApiKeys.SHARE_GROUP_HEARTBEAT, (short) 1, join));
            return joined.get().errorCode() != Errors.COORDINATOR_LOAD_IN_PROGRESS.code();
        });
        ShareGroupDescribeResponse described = call(ApiKeys.SHARE_GROUP_DESCRIBE, (short) 1,
                new ShareGroupDescribeRequest().setGroupIds(List.of("sg", "none")));
        DescribeShareGroupOffsetsResponse offsets = call(ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS, (short) 1,
                new DescribeShareGroupOffsetsRequest().setGroups(List.of(
                        new DescribeShareGroupOffsetsRequest.DescribeShareGroupOffsetsRequestGroup().setGroupId("none"))));
        AlterShareGroupOffsetsResponse altered = call(ApiKeys.ALTER_SHARE_GROUP_OFFSETS, (short) 0,
                new AlterShareGroupOffsetsRequest().setGroupId("sg"));
        DeleteShareGroupOffsetsResponse deleted = call(ApiKeys.DELETE_SHARE_GROUP_OFFSETS, (short) 0,
                new DeleteShareGroupOffsetsRequest().setGroupId("none"));

        if (shareVersion(versions) == 0) {
            assertEquals(Errors.UNSUPPORTED_VERSION.code(), joined.get().errorCode());
            described.groups().forEach(g -> assertEquals(Errors.UNSUPPORTED_VERSION.code(), g.errorCode()));
            assertEquals(Errors.UNSUPPORTED_VERSION.code(), offsets.groups().get(0).errorCode());
            assertEquals(Errors.UNSUPPORTED_VERSION.code(), altered.errorCode());
            assertEquals(Errors.UNSUPPORTED_VERSION.code(), deleted.errorCode());
            return;
        }
        assertEquals(Errors.NONE.code(), joined.get().errorCode(), joined.get().errorMessage());
        assertEquals("member-1", joined.get().memberId());
        ShareGroupDescribeResponse.DescribedGroup sg = described.groups().get(0);
        assertEquals("Stable", sg.groupState());
        assertEquals("simple", sg.assignorName());
        assertEquals("member-1", sg.members().get(0).memberId());
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), described.groups().get(1).errorCode());
        assertEquals(Errors.NONE.code(), offsets.groups().get(0).errorCode(), "as Kafka: nothing asked, nothing checked");
        assertTrue(offsets.groups().get(0).topics().isEmpty());
        assertEquals(Errors.NON_EMPTY_GROUP.code(), altered.errorCode());
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), deleted.errorCode());
        ListGroupsResponse listed = call(ApiKeys.LIST_GROUPS, (short) 5, new ListGroupsRequest()
                .setTypesFilter(List.of("share")));
        assertTrue(listed.groups().stream().anyMatch(g -> g.groupId().equals("sg") && g.groupType().equals("share")));
    }
}

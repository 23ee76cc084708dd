package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ShareGroupDescription;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ResponseHeader;
import org.apache.kafka.common.requests.ShareGroupHeartbeatRequest;
import org.apache.kafka.common.requests.ShareGroupHeartbeatResponse;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Share groups (KIP-932) through the stock Kafka 4.4 Admin client: listGroups by type, describeShareGroups,
 * listShareGroupOffsets and deleteShareGroups, on a group joined with raw ShareGroupHeartbeats (encoded and
 * decoded by kafka-clients; a share consumer would also need ShareFetch). Skipped while the broker's
 * {@code share.version} is 0 (its share group APIs then answer UNSUPPORTED_VERSION).
 */
class ShareGroupAdminTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension();

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private static Admin admin() {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KRILL.bootstrapServers());
        return Admin.create(props);
    }

    /** One ShareGroupHeartbeat v1 on a fresh connection. */
    private static ShareGroupHeartbeatResponseData heartbeat(String group, String memberId, int epoch, List<String> topics) {
        short version = 1;
        RequestHeader header = new RequestHeader(ApiKeys.SHARE_GROUP_HEARTBEAT, version, "share-admin-test", 1);
        ByteBuffer request = new ShareGroupHeartbeatRequest.Builder(new ShareGroupHeartbeatRequestData().setGroupId(group)
                .setMemberId(memberId).setMemberEpoch(epoch).setSubscribedTopicNames(topics))
                .build(version).serializeWithHeader(header);
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", KRILL.port()), 10_000);
            socket.setSoTimeout(10_000);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.writeInt(request.remaining());
            out.write(request.array(), request.arrayOffset() + request.position(), request.remaining());
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte[] response = new byte[in.readInt()];
            in.readFully(response);
            ByteBuffer buffer = ByteBuffer.wrap(response);
            ResponseHeader.parse(buffer, ApiKeys.SHARE_GROUP_HEARTBEAT.responseHeaderVersion(version));
            return ShareGroupHeartbeatResponse.parse(new ByteBufferAccessor(buffer), version).data();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void adminListsDescribesAndDeletesAShareGroup() throws Exception {
        String topic = "share-admin-topic";
        String group = "share-admin-group";
        String memberId = Uuid.randomUuid().toString();
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
            AtomicReference<ShareGroupHeartbeatResponseData> joined = new AtomicReference<>();
            Awaitility.await("the group coordinator").atMost(PATIENCE).until(() -> {
                // Its FindCoordinator creates __consumer_offsets; its answer (no such group yet, or a coordinator
                // not ready) is not the point: the heartbeat's is.
                admin.describeShareGroups(List.of(group)).describedGroups().get(group).toCompletionStage()
                        .toCompletableFuture().exceptionally(e -> null)
                        .get(30, TimeUnit.SECONDS);
                joined.set(heartbeat(group, memberId, 0, List.of(topic)));
                Errors error = Errors.forCode(joined.get().errorCode());
                return error != Errors.COORDINATOR_LOAD_IN_PROGRESS && error != Errors.NOT_COORDINATOR
                        && error != Errors.COORDINATOR_NOT_AVAILABLE;
            });
            Assumptions.assumeTrue(joined.get().errorCode() != Errors.UNSUPPORTED_VERSION.code(),
                    "share.version is 0: share groups are off");
            assertEquals(Errors.NONE.code(), joined.get().errorCode(), joined.get().errorMessage());
            assertEquals(memberId, joined.get().memberId());

            GroupListing listed = admin.listGroups(ListGroupsOptions.forShareGroups()).all().get(30, TimeUnit.SECONDS)
                    .stream().filter(g -> g.groupId().equals(group)).findFirst().orElseThrow();
            assertEquals(GroupType.SHARE, listed.type().orElseThrow());
            assertEquals(GroupState.STABLE, listed.groupState().orElseThrow());
            assertTrue(admin.listGroups(ListGroupsOptions.forConsumerGroups()).all().get(30, TimeUnit.SECONDS).stream()
                    .noneMatch(g -> g.groupId().equals(group)), "not a consumer group");

            ShareGroupDescription described = admin.describeShareGroups(List.of(group)).all().get(30, TimeUnit.SECONDS)
                    .get(group);
            assertEquals(GroupState.STABLE, described.groupState());
            assertEquals(joined.get().memberEpoch(), described.groupEpoch());
            assertEquals(1, described.members().size());
            assertEquals(memberId, described.members().iterator().next().consumerId());

            admin.listShareGroupOffsets(Map.of(group, new ListShareGroupOffsetsSpec())).all().get(30, TimeUnit.SECONDS);

            ExecutionException busy = assertThrows(ExecutionException.class,
                    () -> admin.deleteShareGroups(List.of(group)).all().get(30, TimeUnit.SECONDS));
            assertInstanceOf(GroupNotEmptyException.class, busy.getCause());

            assertEquals(Errors.NONE.code(), heartbeat(group, memberId, -1, null).errorCode());
            assertEquals(GroupState.EMPTY, admin.describeShareGroups(List.of(group)).all().get(30, TimeUnit.SECONDS)
                    .get(group).groupState());
            admin.deleteShareGroups(List.of(group)).all().get(30, TimeUnit.SECONDS);
            ExecutionException gone = assertThrows(ExecutionException.class,
                    () -> admin.describeShareGroups(List.of(group)).all().get(30, TimeUnit.SECONDS));
            assertInstanceOf(GroupIdNotFoundException.class, gone.getCause());
            assertTrue(admin.listGroups(ListGroupsOptions.forShareGroups()).all().get(30, TimeUnit.SECONDS).stream()
                    .noneMatch(g -> g.groupId().equals(group)));
        }
    }
}

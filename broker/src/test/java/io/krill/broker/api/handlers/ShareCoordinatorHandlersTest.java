package io.krill.broker.api.handlers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.krill.broker.security.KafkaPrincipal;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.AclPermissionType;
import io.krill.broker.security.authorizer.PatternType;
import io.krill.broker.security.authorizer.ResourceType;
import io.krill.broker.share.state.ShareCoordinator;
import io.krill.broker.share.state.ShareCoordinatorConfig;
import io.krill.broker.share.state.SharePartitionKey;
import io.krill.wire.error.Errors;
import io.krill.wire.message.CreateAclsRequest;
import io.krill.wire.message.CreateAclsResponse;
import io.krill.wire.message.DeleteShareGroupStateRequest;
import io.krill.wire.message.DeleteShareGroupStateResponse;
import io.krill.wire.message.FindCoordinatorRequest;
import io.krill.wire.message.FindCoordinatorResponse;
import io.krill.wire.message.InitializeShareGroupStateRequest;
import io.krill.wire.message.InitializeShareGroupStateResponse;
import io.krill.wire.message.ReadShareGroupStateRequest;
import io.krill.wire.message.ReadShareGroupStateResponse;
import io.krill.wire.message.ReadShareGroupStateSummaryRequest;
import io.krill.wire.message.ReadShareGroupStateSummaryResponse;
import io.krill.wire.message.WriteShareGroupStateRequest;
import io.krill.wire.message.WriteShareGroupStateResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The share coordinator's inter-broker APIs under the ACL authorizer: without CLUSTER_ACTION on the
 * cluster every share-partition (and every FindCoordinator share key) is CLUSTER_AUTHORIZATION_FAILED;
 * with it the request reaches the coordinator (here NOT_COORDINATOR: it leads nothing).
 */
class ShareCoordinatorHandlersTest {
    private static final KafkaPrincipal ADMIN = KafkaPrincipal.user("admin");
    private static final KafkaPrincipal ALICE = KafkaPrincipal.user("alice");
    private static final UUID TOPIC = UUID.randomUUID();

    @TempDir
    Path dir;
    private HandlerFixture broker;
    private ShareCoordinator coordinator;

    @BeforeEach
    void start() {
        broker = HandlerFixture.start(dir, Map.of("authorizer.class.name",
                "org.apache.kafka.metadata.authorizer.StandardAuthorizer", "super.users", "User:admin"));
        coordinator = ShareCoordinator.forBroker(broker.context, ShareCoordinatorConfig.DEFAULTS);
    }

    @AfterEach
    void stop() {
        try {
            coordinator.close();
        } finally {
            broker.close();
        }
    }

    private Errors[] errors(KafkaPrincipal principal) {
        InitializeShareGroupStateResponse initialized = broker.call(
                new InitializeShareGroupStateHandler(coordinator, broker.context.authorization()), 0,
                new InitializeShareGroupStateRequest().setGroupId("g").setTopics(List.of(
                        new InitializeShareGroupStateRequest.InitializeStateData().setTopicId(TOPIC).setPartitions(List.of(
                                new InitializeShareGroupStateRequest.PartitionData().setPartition(0))))), principal);
        ReadShareGroupStateResponse read = broker.call(
                new ReadShareGroupStateHandler(coordinator, broker.context.authorization()), 0,
                new ReadShareGroupStateRequest().setGroupId("g").setTopics(List.of(
                        new ReadShareGroupStateRequest.ReadStateData().setTopicId(TOPIC).setPartitions(List.of(
                                new ReadShareGroupStateRequest.PartitionData().setPartition(0))))), principal);
        WriteShareGroupStateResponse written = broker.call(
                new WriteShareGroupStateHandler(coordinator, broker.context.authorization()), 1,
                new WriteShareGroupStateRequest().setGroupId("g").setTopics(List.of(
                        new WriteShareGroupStateRequest.WriteStateData().setTopicId(TOPIC).setPartitions(List.of(
                                new WriteShareGroupStateRequest.PartitionData().setPartition(0))))), principal);
        DeleteShareGroupStateResponse deleted = broker.call(
                new DeleteShareGroupStateHandler(coordinator, broker.context.authorization()), 0,
                new DeleteShareGroupStateRequest().setGroupId("g").setTopics(List.of(
                        new DeleteShareGroupStateRequest.DeleteStateData().setTopicId(TOPIC).setPartitions(List.of(
                                new DeleteShareGroupStateRequest.PartitionData().setPartition(0))))), principal);
        ReadShareGroupStateSummaryResponse summary = broker.call(
                new ReadShareGroupStateSummaryHandler(coordinator, broker.context.authorization()), 1,
                new ReadShareGroupStateSummaryRequest().setGroupId("g").setTopics(List.of(
                        new ReadShareGroupStateSummaryRequest.ReadStateSummaryData().setTopicId(TOPIC).setPartitions(
                                List.of(new ReadShareGroupStateSummaryRequest.PartitionData().setPartition(0))))),
                principal);
        return new Errors[] {
                Errors.forCode(initialized.results().get(0).partitions().get(0).errorCode()),
                Errors.forCode(read.results().get(0).partitions().get(0).errorCode()),
                Errors.forCode(written.results().get(0).partitions().get(0).errorCode()),
                Errors.forCode(deleted.results().get(0).partitions().get(0).errorCode()),
                Errors.forCode(summary.results().get(0).partitions().get(0).errorCode())};
    }

    private FindCoordinatorResponse find(KafkaPrincipal principal) {
        return broker.call(new FindCoordinatorHandler(broker.context, null, null, coordinator), 6,
                new FindCoordinatorRequest().setKeyType((byte) 2).setCoordinatorKeys(List.of(
                        new SharePartitionKey("g", TOPIC, 0).coordinatorKey(), "nonsense")), principal);
    }

    @Test
    void theStateApisNeedClusterAction() {
        for (Errors error : errors(ALICE)) {
            assertEquals(Errors.CLUSTER_AUTHORIZATION_FAILED, error);
        }
        for (FindCoordinatorResponse.Coordinator c : find(ALICE).coordinators()) {
            assertEquals(Errors.CLUSTER_AUTHORIZATION_FAILED.code(), c.errorCode(), c.key());
        }

        CreateAclsResponse granted = broker.call(new CreateAclsHandler(broker.context), 3, new CreateAclsRequest()
                .setCreations(List.of(new CreateAclsRequest.AclCreation().setResourceType(ResourceType.CLUSTER.code())
                        .setResourceName("kafka-cluster").setResourcePatternType(PatternType.LITERAL.code())
                        .setPrincipal("User:alice").setHost("*").setOperation(AclOperation.CLUSTER_ACTION.code())
                        .setPermissionType(AclPermissionType.ALLOW.code()))), ADMIN);
        assertEquals(Errors.NONE.code(), granted.results().get(0).errorCode());
        for (Errors error : errors(ALICE)) {
            assertEquals(Errors.NOT_COORDINATOR, error, "past the authorization, to a coordinator leading nothing");
        }
        assertEquals(Errors.INVALID_REQUEST.code(), find(ALICE).coordinators().get(1).errorCode());
    }
}

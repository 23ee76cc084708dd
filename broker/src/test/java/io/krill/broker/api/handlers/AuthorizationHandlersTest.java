package io.krill.broker.api.handlers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.Request;
import io.krill.broker.security.KafkaPrincipal;
import io.krill.broker.security.authorizer.AclAuthorizer;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.AclPermissionType;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.broker.security.authorizer.PatternType;
import io.krill.broker.security.authorizer.ResourceType;
import io.krill.broker.txn.ProducerIdManager;
import io.krill.controller.metadata.MetadataStore;
import io.krill.controller.metadata.NewTopic;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.CreateAclsRequest;
import io.krill.wire.message.CreateAclsResponse;
import io.krill.wire.message.DeleteAclsRequest;
import io.krill.wire.message.DeleteAclsResponse;
import io.krill.wire.message.DescribeAclsRequest;
import io.krill.wire.message.DescribeAclsResponse;
import io.krill.wire.message.DescribeConfigsRequest;
import io.krill.wire.message.DescribeConfigsResponse;
import io.krill.wire.message.FetchRequest;
import io.krill.wire.message.FetchResponse;
import io.krill.wire.message.IncrementalAlterConfigsRequest;
import io.krill.wire.message.IncrementalAlterConfigsResponse;
import io.krill.wire.message.InitProducerIdRequest;
import io.krill.wire.message.InitProducerIdResponse;
import io.krill.wire.message.JoinGroupRequest;
import io.krill.wire.message.JoinGroupResponse;
import io.krill.wire.message.MetadataRequest;
import io.krill.wire.message.MetadataResponse;
import io.krill.wire.message.ProduceRequest;
import io.krill.wire.message.ProduceResponse;
import io.krill.wire.protocol.ApiMessage;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Handlers under the ACL authorizer, with principals set on the request's session: the ACL APIs
 * themselves and a sample of the checks (Metadata, Produce, Fetch, InitProducerId, JoinGroup).
 */
class AuthorizationHandlersTest {
    private static final KafkaPrincipal ADMIN = KafkaPrincipal.user("admin");
    private static final KafkaPrincipal ALICE = KafkaPrincipal.user("alice");
    private static final KafkaPrincipal BOB = KafkaPrincipal.user("bob");

    @TempDir
    Path dir;
    private HandlerFixture broker;

    @BeforeEach
    void start() {
        broker = HandlerFixture.start(dir, Map.of("authorizer.class.name",
                "org.apache.kafka.metadata.authorizer.StandardAuthorizer", "super.users", "User:admin"));
        broker.metadata.createTopic(NewTopic.of("orders", 1, 1));
        broker.metadata.createTopic(NewTopic.of("secret", 1, 1));
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    private static CreateAclsRequest.AclCreation creation(ResourceType type, String name, PatternType pattern,
                                                          String principal, AclOperation operation) {
        return new CreateAclsRequest.AclCreation().setResourceType(type.code()).setResourceName(name)
                .setResourcePatternType(pattern.code()).setPrincipal(principal).setHost("*")
                .setOperation(operation.code()).setPermissionType(AclPermissionType.ALLOW.code());
    }

    private void grant(CreateAclsRequest.AclCreation... creations) {
        CreateAclsResponse response = broker.call(new CreateAclsHandler(broker.context), 3,
                new CreateAclsRequest().setCreations(List.of(creations)), ADMIN);
        for (CreateAclsResponse.AclCreationResult result : response.results()) {
            assertEquals(Errors.NONE.code(), result.errorCode(), result.errorMessage());
        }
    }

    private static DescribeAclsRequest describeAll() {
        return new DescribeAclsRequest().setResourceTypeFilter(ResourceType.ANY.code()).setResourceNameFilter(null)
                .setPrincipalFilter(null).setHostFilter(null).setPatternTypeFilter(PatternType.ANY.code()).setOperation(AclOperation.ANY.code())
                .setPermissionType(AclPermissionType.ANY.code());
    }

    @Test
    void aclApisCreateDescribeAndDeleteWithKafkasValidation() {
        CreateAclsHandler create = new CreateAclsHandler(broker.context);
        CreateAclsResponse created = broker.call(create, 3, new CreateAclsRequest().setCreations(List.of(
                creation(ResourceType.TOPIC, "orders", PatternType.LITERAL, "User:alice", AclOperation.READ),
                creation(ResourceType.TOPIC, "logs-", PatternType.PREFIXED, "User:alice", AclOperation.WRITE),
                creation(ResourceType.TOPIC, "x", PatternType.LITERAL, "alice", AclOperation.READ),
                creation(ResourceType.CLUSTER, "other", PatternType.LITERAL, "User:alice", AclOperation.ALTER),
                creation(ResourceType.TOPIC, "x", PatternType.MATCH, "User:alice", AclOperation.READ),
                creation(ResourceType.ANY, "x", PatternType.LITERAL, "User:alice", AclOperation.READ))), ADMIN);
        assertEquals(List.of(Errors.NONE, Errors.NONE, Errors.INVALID_REQUEST, Errors.INVALID_REQUEST,
                Errors.INVALID_REQUEST, Errors.INVALID_REQUEST), created.results().stream()
                .map(r -> Errors.forCode(r.errorCode())).toList());

        CreateAclsResponse refused = broker.call(create, 3, new CreateAclsRequest().setCreations(List.of(
                creation(ResourceType.TOPIC, "secret", PatternType.LITERAL, "User:alice", AclOperation.ALL))), ALICE);
        assertEquals(Errors.CLUSTER_AUTHORIZATION_FAILED.code(), refused.results().get(0).errorCode());

        DescribeAclsHandler describe = new DescribeAclsHandler(broker.context);
        DescribeAclsResponse described = broker.call(describe, 3, describeAll(), ADMIN);
        assertEquals(Errors.NONE.code(), described.errorCode(), described.errorMessage());
        assertEquals(Map.of("orders", PatternType.LITERAL.code(), "logs-", PatternType.PREFIXED.code()),
                described.resources().stream().collect(Collectors.toMap(
                        DescribeAclsResponse.DescribeAclsResource::resourceName,
                        DescribeAclsResponse.DescribeAclsResource::patternType)));
        assertEquals(Errors.CLUSTER_AUTHORIZATION_FAILED.code(),
                ((DescribeAclsResponse) broker.call(describe, 3, describeAll(), ALICE)).errorCode());
        assertEquals(Errors.INVALID_REQUEST.code(), ((DescribeAclsResponse) broker.call(describe, 3,
                describeAll().setResourceTypeFilter(ResourceType.UNKNOWN.code()), ADMIN)).errorCode());
        DescribeAclsResponse matching = broker.call(describe, 3, describeAll()
                .setResourceTypeFilter(ResourceType.TOPIC.code()).setResourceNameFilter("logs-eu")
                .setPatternTypeFilter(PatternType.MATCH.code()), ADMIN);
        assertEquals(List.of("logs-"), matching.resources().stream()
                .map(DescribeAclsResponse.DescribeAclsResource::resourceName).toList());

        DeleteAclsResponse deleted = broker.call(new DeleteAclsHandler(broker.context), 3, new DeleteAclsRequest()
                .setFilters(List.of(new DeleteAclsRequest.DeleteAclsFilter().setResourceTypeFilter(ResourceType.TOPIC.code())
                        .setResourceNameFilter("orders").setPatternTypeFilter(PatternType.LITERAL.code())
                        .setPrincipalFilter("User:alice").setHostFilter(null).setOperation(AclOperation.ANY.code())
                        .setPermissionType(AclPermissionType.ANY.code()))), ADMIN);
        assertEquals(Errors.NONE.code(), deleted.filterResults().get(0).errorCode());
        assertEquals(List.of("orders"), deleted.filterResults().get(0).matchingAcls().stream()
                .map(DeleteAclsResponse.DeleteAclsMatchingAcl::resourceName).toList());
        assertEquals(1, ((DescribeAclsResponse) broker.call(describe, 3, describeAll(), ADMIN)).resources().size());
    }

    /**
     * CreateAcls and DeleteAcls do not hold the request thread: the authorizer's writes are in flight
     * when the handler returns, and the response goes out once they have completed, each binding or
     * filter with its own outcome.
     */
    @Test
    void aclApisAnswerWhenTheStoresWritesCompleteNotBefore() {
        grant(creation(ResourceType.TOPIC, "orders", PatternType.LITERAL, "User:bob", AclOperation.READ));
        List<HandlerFixture.Held> held = new CopyOnWriteArrayList<>();
        MetadataStore holding = broker.holdingStore(Set.of("updateEntityConfigsAsync"), held);
        BrokerContext context = broker.contextWith(holding,
                new Authorization(new AclAuthorizer(holding, List.of(ADMIN), false)));

        CreateAclsHandler create = new CreateAclsHandler(context);
        AtomicReference<ApiMessage> created = new AtomicReference<>();
        Request creating = broker.request(create, 3, new CreateAclsRequest().setCreations(List.of(
                creation(ResourceType.TOPIC, "orders", PatternType.LITERAL, "User:alice", AclOperation.READ),
                creation(ResourceType.TOPIC, "x", PatternType.LITERAL, "alice", AclOperation.READ),
                creation(ResourceType.TOPIC, "orders", PatternType.LITERAL, "User:alice", AclOperation.WRITE),
                creation(ResourceType.GROUP, "g", PatternType.LITERAL, "User:alice", AclOperation.READ))), ADMIN, created);
        create.handle(creating);
        assertFalse(creating.isAnswered(), "the handler returned without waiting for the store");
        assertEquals(2, held.size(), "one write per pattern, both in flight");
        Map<String, String> added = held.get(0).apply(Map.of("kept", "1"));
        assertEquals(3, added.size(), "alice's READ and WRITE on orders: " + added);
        assertEquals("1", added.get("kept"), "the change adds to what the store holds");
        held.get(1).future().completeExceptionally(new ApiException(Errors.REQUEST_TIMED_OUT, "ZooKeeper unavailable"));
        assertFalse(creating.isAnswered());
        held.get(0).future().complete(Map.of());
        CreateAclsResponse createResponse = broker.decodeResponse(create, 3, created.get());
        assertEquals(List.of(Errors.NONE, Errors.INVALID_REQUEST, Errors.NONE, Errors.REQUEST_TIMED_OUT),
                createResponse.results().stream().map(r -> Errors.forCode(r.errorCode())).toList());

        held.clear();
        DeleteAclsHandler delete = new DeleteAclsHandler(context);
        AtomicReference<ApiMessage> deleted = new AtomicReference<>();
        Request deleting = broker.request(delete, 3, new DeleteAclsRequest().setFilters(List.of(
                new DeleteAclsRequest.DeleteAclsFilter().setResourceTypeFilter(ResourceType.TOPIC.code())
                        .setResourceNameFilter("orders").setPatternTypeFilter(PatternType.LITERAL.code())
                        .setPrincipalFilter("User:bob").setHostFilter(null).setOperation(AclOperation.ANY.code())
                        .setPermissionType(AclPermissionType.ANY.code()))), ADMIN, deleted);
        delete.handle(deleting);
        assertFalse(deleting.isAnswered(), "the handler returned without waiting for the store");
        assertEquals(1, held.size());
        held.get(0).future().complete(Map.of());
        DeleteAclsResponse deleteResponse = broker.decodeResponse(delete, 3, deleted.get());
        assertEquals(Errors.NONE.code(), deleteResponse.filterResults().get(0).errorCode());
        assertEquals(List.of("User:bob"), deleteResponse.filterResults().get(0).matchingAcls().stream()
                .map(DeleteAclsResponse.DeleteAclsMatchingAcl::principal).toList());
    }

    @Test
    void aclApisAnswerSecurityDisabledWithoutAnAuthorizer(@TempDir Path other) {
        try (HandlerFixture open = HandlerFixture.start(other)) {
            CreateAclsResponse created = open.call(new CreateAclsHandler(open.context), 3, new CreateAclsRequest()
                    .setCreations(List.of(creation(ResourceType.TOPIC, "t", PatternType.LITERAL, "User:a",
                            AclOperation.READ))));
            assertEquals(Errors.SECURITY_DISABLED.code(), created.results().get(0).errorCode());
            assertEquals(Errors.SECURITY_DISABLED.code(),
                    ((DescribeAclsResponse) open.call(new DescribeAclsHandler(open.context), 3, describeAll())).errorCode());
            DeleteAclsResponse deleted = open.call(new DeleteAclsHandler(open.context), 3, new DeleteAclsRequest()
                    .setFilters(List.of(new DeleteAclsRequest.DeleteAclsFilter()
                            .setResourceTypeFilter(ResourceType.ANY.code()).setPatternTypeFilter(PatternType.ANY.code())
                            .setOperation(AclOperation.ANY.code()).setPermissionType(AclPermissionType.ANY.code()))));
            assertEquals(Errors.SECURITY_DISABLED.code(), deleted.filterResults().get(0).errorCode());
        }
    }

    @Test
    void metadataHidesTopicsOneMayNotDescribe() {
        grant(creation(ResourceType.TOPIC, "orders", PatternType.LITERAL, "User:alice", AclOperation.READ));
        MetadataHandler metadata = new MetadataHandler(broker.context);
        MetadataResponse all = broker.call(metadata, 12, new MetadataRequest().setTopics(null), ALICE);
        assertEquals(List.of("orders"), all.topics().stream().map(MetadataResponse.MetadataResponseTopic::name).toList());
        MetadataResponse named = broker.call(metadata, 12, new MetadataRequest().setAllowAutoTopicCreation(true)
                .setTopics(List.of(new MetadataRequest.MetadataRequestTopic().setName("secret"),
                        new MetadataRequest.MetadataRequestTopic().setName("new-topic"))), ALICE);
        assertEquals(List.of(Errors.TOPIC_AUTHORIZATION_FAILED.code(), Errors.TOPIC_AUTHORIZATION_FAILED.code()),
                named.topics().stream().map(MetadataResponse.MetadataResponseTopic::errorCode).toList());
        assertTrue(broker.metadata.image().topic("new-topic") == null, "not auto-created without CREATE");
        MetadataResponse admin = broker.call(metadata, 12, new MetadataRequest().setTopics(null), ADMIN);
        assertEquals(2, admin.topics().size());
        MetadataResponse operations = broker.call(metadata, 10, new MetadataRequest().setTopics(null)
                .setIncludeTopicAuthorizedOperations(true).setIncludeClusterAuthorizedOperations(true), ALICE);
        assertEquals((1 << AclOperation.READ.code()) | (1 << AclOperation.DESCRIBE.code()),
                operations.topics().get(0).topicAuthorizedOperations());
        assertEquals(0, operations.clusterAuthorizedOperations(), "no DESCRIBE on the cluster");
    }

    @Test
    void produceNeedsWriteAndFetchNeedsRead() {
        grant(creation(ResourceType.TOPIC, "orders", PatternType.LITERAL, "User:alice", AclOperation.READ));
        ProduceRequest produce = new ProduceRequest().setAcks((short) 1).setTimeoutMs(1000).setTopicData(List.of(
                new ProduceRequest.TopicProduceData().setName("orders").setPartitionData(List.of(
                        new ProduceRequest.PartitionProduceData().setIndex(0)))));
        ProduceResponse produced = broker.call(new ProduceHandler(broker.context), 9, produce, ALICE);
        assertEquals(Errors.TOPIC_AUTHORIZATION_FAILED.code(),
                produced.responses().get(0).partitionResponses().get(0).errorCode());
        ProduceResponse transactional = broker.call(new ProduceHandler(broker.context), 9,
                produce.setTransactionalId("tx"), ALICE);
        assertEquals(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code(),
                transactional.responses().get(0).partitionResponses().get(0).errorCode());

        FetchRequest fetch = new FetchRequest().setReplicaId(-1).setMaxWaitMs(0).setMinBytes(0).setMaxBytes(1 << 20)
                .setTopics(List.of(new FetchRequest.FetchTopic().setTopic("orders").setPartitions(List.of(
                        new FetchRequest.FetchPartition().setPartition(0).setFetchOffset(0)
                                .setPartitionMaxBytes(1 << 16)))));
        FetchResponse allowed = broker.call(new FetchHandler(broker.context), 12, fetch, ALICE);
        assertEquals(Errors.NONE.code(), allowed.responses().get(0).partitions().get(0).errorCode());
        FetchResponse denied = broker.call(new FetchHandler(broker.context), 12, fetch, BOB);
        assertEquals(Errors.TOPIC_AUTHORIZATION_FAILED.code(), denied.responses().get(0).partitions().get(0).errorCode());
        FetchResponse follower = broker.call(new FetchHandler(broker.context), 12, fetch.setReplicaId(2), ALICE);
        assertEquals(Errors.TOPIC_AUTHORIZATION_FAILED.code(), follower.responses().get(0).partitions().get(0).errorCode(),
                "a replica fetch needs CLUSTER_ACTION");
    }

    @Test
    void idempotentProducersNeedIdempotentWriteOrWriteOnSomeTopic() {
        InitProducerIdHandler init = new InitProducerIdHandler(new ProducerIdManager(broker.metadata), null,
                broker.context.authorization());
        InitProducerIdRequest idempotent = new InitProducerIdRequest().setTransactionalId(null)
                .setTransactionTimeoutMs(60000).setProducerId(-1).setProducerEpoch((short) -1);
        assertEquals(Errors.CLUSTER_AUTHORIZATION_FAILED.code(),
                ((InitProducerIdResponse) broker.call(init, 5, idempotent, ALICE)).errorCode());
        grant(creation(ResourceType.TOPIC, "logs-", PatternType.PREFIXED, "User:alice", AclOperation.WRITE));
        // the manager reserves its first block of ids in the background: until then, a retriable error
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> ((InitProducerIdResponse)
                broker.call(init, 5, idempotent, ALICE)).errorCode() != Errors.COORDINATOR_LOAD_IN_PROGRESS.code());
        InitProducerIdResponse granted = broker.call(init, 5, idempotent, ALICE);
        assertEquals(Errors.NONE.code(), granted.errorCode());
        assertTrue(granted.producerId() >= 0);
        assertEquals(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code(), ((InitProducerIdResponse) broker.call(init, 5,
                new InitProducerIdRequest().setTransactionalId("tx").setTransactionTimeoutMs(60000)
                        .setProducerId(-1).setProducerEpoch((short) -1), ALICE)).errorCode());
    }

    @Test
    void groupMembershipNeedsReadOnTheGroup() {
        JoinGroupHandler join = new JoinGroupHandler(null, broker.context.authorization());
        JoinGroupResponse response = broker.call(join, 9, new JoinGroupRequest().setGroupId("g").setMemberId("")
                .setProtocolType("consumer").setSessionTimeoutMs(10000).setRebalanceTimeoutMs(10000)
                .setProtocols(List.of()), ALICE);
        assertEquals(Errors.GROUP_AUTHORIZATION_FAILED.code(), response.errorCode());
    }

    @Test
    void groupConfigsNeedDescribeConfigsAndAlterConfigsOnTheGroup() {
        DescribeConfigsRequest describe = new DescribeConfigsRequest().setResources(List.of(
                new DescribeConfigsRequest.DescribeConfigsResource().setResourceType(ConfigResourceType.GROUP.id())
                        .setResourceName("shared")));
        IncrementalAlterConfigsRequest alter = new IncrementalAlterConfigsRequest().setResources(List.of(
                new IncrementalAlterConfigsRequest.AlterConfigsResource().setResourceType(ConfigResourceType.GROUP.id())
                        .setResourceName("shared").setConfigs(List.of(new IncrementalAlterConfigsRequest.AlterableConfig()
                                .setName("share.auto.offset.reset").setConfigOperation((byte) 0).setValue("earliest")))));
        DescribeConfigsHandler describer = new DescribeConfigsHandler(broker.context);
        IncrementalAlterConfigsHandler alterer = new IncrementalAlterConfigsHandler(broker.context);
        assertEquals(Errors.GROUP_AUTHORIZATION_FAILED.code(), ((DescribeConfigsResponse) broker.call(describer, 4,
                describe, ALICE)).results().get(0).errorCode());
        assertEquals(Errors.GROUP_AUTHORIZATION_FAILED.code(), ((IncrementalAlterConfigsResponse) broker.call(alterer,
                1, alter, ALICE)).responses().get(0).errorCode());

        grant(creation(ResourceType.GROUP, "shared", PatternType.LITERAL, "User:alice", AclOperation.DESCRIBE_CONFIGS));
        assertEquals(Errors.NONE.code(), ((DescribeConfigsResponse) broker.call(describer, 4, describe, ALICE))
                .results().get(0).errorCode());
        assertEquals(Errors.GROUP_AUTHORIZATION_FAILED.code(), ((IncrementalAlterConfigsResponse) broker.call(alterer,
                1, alter, ALICE)).responses().get(0).errorCode(), "describing is not altering");
        grant(creation(ResourceType.GROUP, "shared", PatternType.LITERAL, "User:alice", AclOperation.ALTER_CONFIGS));
        assertEquals(Errors.NONE.code(), ((IncrementalAlterConfigsResponse) broker.call(alterer, 1, alter, ALICE))
                .responses().get(0).errorCode());
    }
}

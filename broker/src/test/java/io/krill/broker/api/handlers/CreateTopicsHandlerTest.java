package io.krill.broker.api.handlers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.api.Request;
import io.krill.broker.security.KafkaPrincipal;
import io.krill.controller.metadata.ApiError;
import io.krill.controller.metadata.MetadataStore;
import io.krill.controller.metadata.NewTopic;
import io.krill.controller.metadata.TopicCreation;
import io.krill.wire.error.Errors;
import io.krill.wire.message.CreateTopicsRequest;
import io.krill.wire.message.CreateTopicsResponse;
import io.krill.wire.protocol.ApiMessage;
import io.krill.wire.protocol.ByteBufCodec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CreateTopicsHandlerTest {
    @TempDir
    Path dir;
    private HandlerFixture broker;
    private CreateTopicsHandler handler;

    @BeforeEach
    void start() {
        broker = HandlerFixture.start(dir, Map.of("num.partitions", "2"));
        handler = new CreateTopicsHandler(broker.context);
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    private static CreateTopicsRequest.CreatableTopic topic(String name, int partitions, int replicationFactor) {
        return new CreateTopicsRequest.CreatableTopic().setName(name).setNumPartitions(partitions)
                .setReplicationFactor((short) replicationFactor);
    }

    private static CreateTopicsRequest.CreatableReplicaAssignment assignment(int partition, Integer... brokers) {
        return new CreateTopicsRequest.CreatableReplicaAssignment().setPartitionIndex(partition)
                .setBrokerIds(new ArrayList<>(List.of(brokers)));
    }

    private CreateTopicsResponse create(int version, boolean validateOnly, CreateTopicsRequest.CreatableTopic... topics) {
        return broker.call(handler, version, new CreateTopicsRequest().setTopics(new ArrayList<>(List.of(topics)))
                .setValidateOnly(validateOnly));
    }

    private static Map<String, CreateTopicsResponse.CreatableTopicResult> byName(CreateTopicsResponse response) {
        Map<String, CreateTopicsResponse.CreatableTopicResult> results = new HashMap<>();
        response.topics().forEach(r -> results.put(r.name(), r));
        return results;
    }

    @Test
    void answersEveryVersionWithWhatItCanCarry() {
        for (int version = handler.minVersion(); version <= handler.maxVersion(); version++) {
            CreateTopicsResponse.CreatableTopicResult result = create(version, false, topic("t" + version, -1, -1))
                    .topics().get(0);
            assertEquals(Errors.NONE.code(), result.errorCode(), "v" + version);
            assertNull(result.errorMessage());
            assertEquals(2, broker.metadata.image().topic("t" + version).partitionCount(), "num.partitions");
            if (version >= 5) {
                assertEquals(2, result.numPartitions());
                assertEquals(1, result.replicationFactor());
                assertTrue(result.configs().stream().anyMatch(c -> c.name().equals("retention.ms")));
            } else {
                assertEquals(-1, result.numPartitions());
                assertTrue(result.configs().isEmpty());
            }
            assertEquals(version >= 7 ? broker.metadata.image().topic("t" + version).id() : ByteBufCodec.ZERO_UUID,
                    result.topicId());
        }
    }

    @Test
    void validateOnlyChecksEverythingAndCreatesNothing() {
        CreateTopicsResponse response = create(7, true, topic("checked", 4, 1), topic("bad rf", 1, 3));
        Map<String, CreateTopicsResponse.CreatableTopicResult> results = byName(response);
        assertEquals(Errors.NONE.code(), results.get("checked").errorCode());
        assertEquals(4, results.get("checked").numPartitions());
        assertEquals(ByteBufCodec.ZERO_UUID, results.get("checked").topicId());
        assertEquals(Errors.INVALID_TOPIC_EXCEPTION.code(), results.get("bad rf").errorCode(), "names first");
        assertNull(broker.metadata.image().topic("checked"));
        assertEquals(Errors.INVALID_REPLICATION_FACTOR.code(),
                create(7, true, topic("three", 1, 3)).topics().get(0).errorCode());
    }

    @Test
    void aNameGivenTwiceIsAnInvalidRequestForThatNameOnly() {
        CreateTopicsResponse response = create(7, false, topic("twice", 1, 1), topic("once", 1, 1), topic("twice", 2, 1));
        assertEquals(2, response.topics().size());
        Map<String, CreateTopicsResponse.CreatableTopicResult> results = byName(response);
        assertEquals(Errors.INVALID_REQUEST.code(), results.get("twice").errorCode());
        assertEquals("Duplicate topic name.", results.get("twice").errorMessage());
        assertEquals(Errors.NONE.code(), results.get("once").errorCode());
        assertNull(broker.metadata.image().topic("twice"));
    }

    @Test
    void errorsComeInKafkasOrder() {
        create(7, false, topic("exists", 1, 1));
        CreateTopicsRequest.CreatableTopic existsWithBadConfig = topic("exists", 0, 7);
        existsWithBadConfig.configs().add(new CreateTopicsRequest.CreatableTopicConfig().setName("retention.ms").setValue("x"));
        CreateTopicsRequest.CreatableTopic badConfigAndPartitions = topic("bad-config", 0, 1);
        badConfigAndPartitions.configs().add(new CreateTopicsRequest.CreatableTopicConfig().setName("retention.ms")
                .setValue("x"));
        CreateTopicsRequest.CreatableTopic nullConfig = topic("null-config", 1, 1);
        nullConfig.configs().add(new CreateTopicsRequest.CreatableTopicConfig().setName("retention.ms").setValue(null));
        Map<String, CreateTopicsResponse.CreatableTopicResult> results = byName(create(7, false, existsWithBadConfig,
                badConfigAndPartitions, nullConfig, topic("collides.x", 1, 1), topic("zero", 0, 1), topic("rf0", 1, 0)));
        assertEquals(Errors.TOPIC_ALREADY_EXISTS.code(), results.get("exists").errorCode());
        assertEquals("Topic 'exists' already exists.", results.get("exists").errorMessage());
        assertEquals(Errors.INVALID_CONFIG.code(), results.get("bad-config").errorCode());
        assertEquals("Invalid value x for configuration retention.ms: Not a number of type LONG",
                results.get("bad-config").errorMessage());
        assertEquals(Errors.INVALID_CONFIG.code(), results.get("null-config").errorCode());
        assertEquals(Errors.NONE.code(), results.get("collides.x").errorCode());
        assertEquals(Errors.INVALID_PARTITIONS.code(), results.get("zero").errorCode());
        assertEquals(Errors.INVALID_REPLICATION_FACTOR.code(), results.get("rf0").errorCode());
        assertEquals(Errors.INVALID_TOPIC_EXCEPTION.code(), create(7, false, topic("collides_x", 1, 1)).topics().get(0)
                .errorCode());
    }

    @Test
    void manualAssignmentsFollowKafkasRules() {
        CreateTopicsRequest.CreatableTopic ok = topic("manual", -1, -1);
        ok.assignments().add(assignment(1, 1));
        ok.assignments().add(assignment(0, 1));
        CreateTopicsRequest.CreatableTopic withCount = topic("with-count", 2, -1);
        withCount.assignments().add(assignment(0, 1));
        CreateTopicsRequest.CreatableTopic gap = topic("gap", -1, -1);
        gap.assignments().add(assignment(0, 1));
        gap.assignments().add(assignment(2, 1));
        CreateTopicsRequest.CreatableTopic repeated = topic("repeated", -1, -1);
        repeated.assignments().add(assignment(0, 1));
        repeated.assignments().add(assignment(0, 1));
        CreateTopicsRequest.CreatableTopic elsewhere = topic("elsewhere", -1, -1);
        elsewhere.assignments().add(assignment(0, 2));
        CreateTopicsRequest.CreatableTopic twiceOnOne = topic("twice-on-one", -1, -1);
        twiceOnOne.assignments().add(assignment(0, 1, 1));
        Map<String, CreateTopicsResponse.CreatableTopicResult> results = byName(create(7, false, ok, withCount, gap,
                repeated, elsewhere, twiceOnOne));
        assertEquals(Errors.NONE.code(), results.get("manual").errorCode());
        assertEquals(2, results.get("manual").numPartitions());
        assertEquals(1, results.get("manual").replicationFactor());
        assertEquals(Errors.INVALID_REQUEST.code(), results.get("with-count").errorCode());
        assertEquals("partitions should be a consecutive 0-based integer sequence", results.get("gap").errorMessage());
        assertEquals(Errors.INVALID_REPLICA_ASSIGNMENT.code(), results.get("repeated").errorCode());
        assertEquals("The manual partition assignment includes broker 2, but no such broker is registered.",
                results.get("elsewhere").errorMessage());
        assertEquals("The manual partition assignment includes the broker 1 more than once.",
                results.get("twice-on-one").errorMessage());
    }

    @Test
    void createdTopicsReportTheirEffectiveConfigs() {
        CreateTopicsRequest.CreatableTopic withConfig = topic("configured", 1, 1);
        withConfig.configs().add(new CreateTopicsRequest.CreatableTopicConfig().setName("retention.ms").setValue("1000"));
        CreateTopicsResponse.CreatableTopicResult result = create(7, false, withConfig).topics().get(0);
        assertNotEquals(ByteBufCodec.ZERO_UUID, result.topicId());
        CreateTopicsResponse.CreatableTopicConfigs retention = result.configs().stream()
                .filter(c -> c.name().equals("retention.ms")).findFirst().orElseThrow();
        assertEquals("1000", retention.value());
        assertEquals(1, retention.configSource(), "DYNAMIC_TOPIC_CONFIG");
        CreateTopicsResponse.CreatableTopicConfigs segment = result.configs().stream()
                .filter(c -> c.name().equals("segment.bytes")).findFirst().orElseThrow();
        assertEquals(5, segment.configSource(), "DEFAULT_CONFIG");
        assertNotNull(broker.partitions.partition("configured", 0), "log created");
        assertEquals(Map.of("retention.ms", "1000"), broker.metadata.image().topic("configured").configs());
    }

    @Test
    void tooManyPartitionsInOneRequestIsAPolicyViolation() {
        CreateTopicsResponse response = create(7, false, topic("big-1", 6000, 1), topic("big-2", 6000, 1));
        response.topics().forEach(r -> assertEquals(Errors.POLICY_VIOLATION.code(), r.errorCode()));
        assertNull(broker.metadata.image().topic("big-1"));
    }

    @Test
    void answersWhenTheStoreHasCreatedEveryTopicWithoutBlockingTheRequestThread() {
        AtomicInteger batches = new AtomicInteger();
        CompletableFuture<List<TopicCreation>> pending = new CompletableFuture<>();
        AtomicReference<List<NewTopic>> asked = new AtomicReference<>();
        MetadataStore store = broker.batchCreatingStore(batches, asked, pending);
        CreateTopicsHandler async = new CreateTopicsHandler(broker.contextWith(store));
        AtomicReference<ApiMessage> answer = new AtomicReference<>();
        Request request = broker.request(async, 7, new CreateTopicsRequest().setTopics(new ArrayList<>(List.of(
                topic("a", 1, 1), topic("exists-not", 0, 1), topic("b", 2, 1), topic("c", 1, 1)))), KafkaPrincipal.ANONYMOUS,
                answer);
        async.handle(request);
        assertFalse(request.isAnswered(), "answered only once the store is done; the request thread did not wait");
        assertEquals(1, batches.get());
        assertEquals(List.of("a", "b", "c"), asked.get().stream().map(NewTopic::name).toList());
        // The store decides (here: created by the real store, one topic refused) on its own thread.
        Thread storeThread = new Thread(() -> {
            List<TopicCreation> outcomes = new ArrayList<>(broker.metadata.createTopics(asked.get().subList(0, 2)).join());
            outcomes.add(TopicCreation.failed("c", new ApiError(Errors.INVALID_REPLICATION_FACTOR, "refused (test)")));
            pending.complete(outcomes);
        }, "test-store");
        storeThread.start();
        assertTimeoutPreemptively(java.time.Duration.ofSeconds(30), () -> storeThread.join());
        assertTrue(request.isAnswered());
        CreateTopicsResponse response = broker.decodeResponse(async, 7, answer.get());
        assertEquals(List.of("a", "exists-not", "b", "c"), response.topics().stream().map(r -> r.name()).toList(),
                "request order");
        assertEquals(Errors.NONE.code(), response.topics().get(0).errorCode());
        assertEquals(broker.metadata.image().topic("a").id(), response.topics().get(0).topicId());
        assertEquals(Errors.INVALID_PARTITIONS.code(), response.topics().get(1).errorCode());
        assertEquals(2, response.topics().get(2).numPartitions());
        assertTrue(response.topics().get(2).configs().stream().anyMatch(c -> c.name().equals("retention.ms")));
        assertEquals(Errors.INVALID_REPLICATION_FACTOR.code(), response.topics().get(3).errorCode());
        assertEquals("refused (test)", response.topics().get(3).errorMessage());
    }

    @Test
    void aFailedStoreFutureIsStillAnswered() {
        MetadataStore store = broker.interceptedStore((method, args) -> method.getName().equals("createTopics")
                ? CompletableFuture.failedFuture(new IllegalStateException("store broke (test)")) : null);
        CreateTopicsHandler failing = new CreateTopicsHandler(broker.contextWith(store));
        CreateTopicsResponse response = broker.call(failing, 7, new CreateTopicsRequest().setTopics(new ArrayList<>(
                List.of(topic("x", 1, 1), topic("y", 1, 1), topic("bad", 0, 1)))));
        Map<String, CreateTopicsResponse.CreatableTopicResult> results = byName(response);
        assertEquals(Errors.UNKNOWN_SERVER_ERROR.code(), results.get("x").errorCode());
        assertEquals(Errors.UNKNOWN_SERVER_ERROR.code(), results.get("y").errorCode());
        assertEquals(Errors.INVALID_PARTITIONS.code(), results.get("bad").errorCode(), "decided before the store");
        MetadataStore throwing = broker.interceptedStore((method, args) -> {
            if (method.getName().equals("createTopics")) {
                throw new IllegalStateException("store threw (test)");
            }
            return null;
        });
        response = broker.call(new CreateTopicsHandler(broker.contextWith(throwing)), 7, new CreateTopicsRequest()
                .setTopics(new ArrayList<>(List.of(topic("z", 1, 1)))));
        assertEquals(Errors.UNKNOWN_SERVER_ERROR.code(), response.topics().get(0).errorCode());
        assertNull(broker.metadata.image().topic("x"));
    }
}

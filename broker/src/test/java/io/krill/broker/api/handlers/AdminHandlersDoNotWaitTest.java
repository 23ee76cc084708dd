package io.krill.broker.api.handlers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.api.ApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.security.KafkaPrincipal;
import io.krill.controller.metadata.ApiError;
import io.krill.controller.metadata.NewTopic;
import io.krill.controller.metadata.TopicPartitionKey;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.AlterPartitionReassignmentsRequest;
import io.krill.wire.message.AlterPartitionReassignmentsResponse;
import io.krill.wire.message.CreatePartitionsRequest;
import io.krill.wire.message.CreatePartitionsResponse;
import io.krill.wire.message.DeleteTopicsRequest;
import io.krill.wire.message.DeleteTopicsResponse;
import io.krill.wire.message.ElectLeadersRequest;
import io.krill.wire.message.ElectLeadersResponse;
import io.krill.wire.protocol.ApiMessage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DeleteTopics, CreatePartitions, ElectLeaders and AlterPartitionReassignments return without waiting
 * for the metadata store (a cluster store blocks on ZooKeeper round trips for them): each hands its
 * change to the store's asynchronous method and answers once the store's future completes, with the
 * store's outcome, a failure included.
 */
class AdminHandlersDoNotWaitTest {
    @TempDir
    Path dir;
    private HandlerFixture broker;
    private final List<HandlerFixture.Held> held = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() {
        broker = HandlerFixture.start(dir);
        broker.metadata.createTopic(NewTopic.of("a", 1, 1));
        broker.metadata.createTopic(NewTopic.of("b", 1, 1));
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    private <H extends ApiHandler> Request pending(H handler, int version, ApiMessage body, AtomicReference<ApiMessage> answer) {
        Request request = broker.request(handler, version, body, KafkaPrincipal.ANONYMOUS, answer);
        handler.handle(request);
        assertFalse(request.isAnswered(), "the handler returned without waiting for the store");
        return request;
    }

    private io.krill.broker.BrokerContext holding(String... methods) {
        return broker.contextWith(broker.holdingStore(Set.of(methods), held));
    }

    @Test
    void deleteTopicsAnswersWhenEveryDeletionIsDone() {
        DeleteTopicsHandler handler = new DeleteTopicsHandler(holding("deleteTopicAsync"));
        AtomicReference<ApiMessage> answer = new AtomicReference<>();
        Request request = pending(handler, 6, new DeleteTopicsRequest().setTopics(new ArrayList<>(List.of(
                new DeleteTopicsRequest.DeleteTopicState().setName("a"),
                new DeleteTopicsRequest.DeleteTopicState().setName("b")))), answer);
        assertEquals(List.of("a", "b"), held.stream().map(h -> (String) h.args()[0]).toList(), "both in flight");
        held.get(1).future().complete(null);
        assertFalse(request.isAnswered(), "one deletion still in flight");
        held.get(0).future().completeExceptionally(new ApiException(Errors.REQUEST_TIMED_OUT, "ZooKeeper unavailable"));
        assertTrue(request.isAnswered());
        DeleteTopicsResponse response = broker.decodeResponse(handler, 6, answer.get());
        Map<String, Short> errors = new LinkedHashMap<>();
        response.responses().forEach(r -> errors.put(r.name(), r.errorCode()));
        assertEquals(Map.of("a", Errors.REQUEST_TIMED_OUT.code(), "b", Errors.NONE.code()), errors);
    }

    @Test
    void createPartitionsAnswersWhenTheStoreHasGrownTheTopic() {
        CreatePartitionsHandler handler = new CreatePartitionsHandler(holding("createPartitionsAsync"));
        AtomicReference<ApiMessage> answer = new AtomicReference<>();
        Request request = pending(handler, 3, new CreatePartitionsRequest().setTopics(new ArrayList<>(List.of(
                new CreatePartitionsRequest.CreatePartitionsTopic().setName("a").setCount(3).setAssignments(null),
                new CreatePartitionsRequest.CreatePartitionsTopic().setName("b").setCount(1).setAssignments(null)))),
                answer);
        assertEquals(List.of("a", "b"), held.stream().map(h -> (String) h.args()[0]).toList(), "both in flight");
        held.get(0).future().completeExceptionally(new ApiException(Errors.INVALID_REPLICA_ASSIGNMENT, "no room"));
        assertFalse(request.isAnswered(), "b still in flight");
        held.get(1).future().completeExceptionally(new ApiException(Errors.INVALID_PARTITIONS, "no increase"));
        CreatePartitionsResponse response = broker.decodeResponse(handler, 3, answer.get());
        assertTrue(request.isAnswered());
        assertEquals(List.of(Errors.INVALID_REPLICA_ASSIGNMENT.code(), Errors.INVALID_PARTITIONS.code()),
                response.results().stream().map(CreatePartitionsResponse.CreatePartitionsTopicResult::errorCode).toList());
        assertEquals("no room", response.results().get(0).errorMessage());
    }

    @Test
    void electLeadersAnswersFromTheStoresResultsOrItsFailure() {
        ElectLeadersHandler handler = new ElectLeadersHandler(holding("electLeadersAsync"));
        ElectLeadersRequest body = new ElectLeadersRequest().setElectionType((byte) 0).setTopicPartitions(new ArrayList<>(
                List.of(new ElectLeadersRequest.TopicPartitions().setTopic("a").setPartitions(new ArrayList<>(List.of(0))))));
        AtomicReference<ApiMessage> answer = new AtomicReference<>();
        Request request = pending(handler, 2, body, answer);
        held.get(0).future().complete(Map.of(new TopicPartitionKey("a", 0), ApiError.NONE));
        assertTrue(request.isAnswered());
        ElectLeadersResponse done = broker.decodeResponse(handler, 2, answer.get());
        assertEquals(Errors.NONE.code(), done.replicaElectionResults().get(0).partitionResult().get(0).errorCode());

        AtomicReference<ApiMessage> failedAnswer = new AtomicReference<>();
        pending(handler, 2, body, failedAnswer);
        held.get(1).future().completeExceptionally(new ApiException(Errors.REQUEST_TIMED_OUT, "ZooKeeper unavailable"));
        ElectLeadersResponse failed = broker.decodeResponse(handler, 2, failedAnswer.get());
        assertEquals(Errors.REQUEST_TIMED_OUT.code(), failed.errorCode());
        assertEquals(Errors.REQUEST_TIMED_OUT.code(), failed.replicaElectionResults().get(0).partitionResult().get(0)
                .errorCode());
    }

    @Test
    void alterPartitionReassignmentsAnswersFromTheStoresResults() {
        AlterPartitionReassignmentsHandler handler = new AlterPartitionReassignmentsHandler(
                holding("alterPartitionReassignmentsAsync"));
        AtomicReference<ApiMessage> answer = new AtomicReference<>();
        Request request = pending(handler, 1, new AlterPartitionReassignmentsRequest().setTopics(new ArrayList<>(List.of(
                new AlterPartitionReassignmentsRequest.ReassignableTopic().setName("a").setPartitions(new ArrayList<>(
                        List.of(new AlterPartitionReassignmentsRequest.ReassignablePartition().setPartitionIndex(0)
                                .setReplicas(null))))))), answer);
        held.get(0).future().complete(Map.of(new TopicPartitionKey("a", 0),
                new ApiError(Errors.NO_REASSIGNMENT_IN_PROGRESS, "none")));
        assertTrue(request.isAnswered());
        AlterPartitionReassignmentsResponse response = broker.decodeResponse(handler, 1, answer.get());
        assertEquals(Errors.NO_REASSIGNMENT_IN_PROGRESS.code(), response.responses().get(0).partitions().get(0).errorCode());
        assertEquals("none", response.responses().get(0).partitions().get(0).errorMessage());
    }
}

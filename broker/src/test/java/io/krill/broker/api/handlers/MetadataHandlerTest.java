package io.krill.broker.api.handlers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.api.Request;
import io.krill.broker.security.KafkaPrincipal;
import io.krill.controller.metadata.MetadataStore;
import io.krill.controller.metadata.NewTopic;
import io.krill.controller.metadata.TopicCreation;
import io.krill.wire.error.Errors;
import io.krill.wire.message.MetadataRequest;
import io.krill.wire.message.MetadataResponse;
import io.krill.wire.protocol.ApiMessage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Metadata's auto-creation: every missing topic of a request in one store call, answered when it completes. */
class MetadataHandlerTest {
    @TempDir
    Path dir;
    private HandlerFixture broker;

    @BeforeEach
    void start() {
        broker = HandlerFixture.start(dir, Map.of("num.partitions", "2", "auto.create.topics.enable", "true"));
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    private static MetadataRequest.MetadataRequestTopic named(String name) {
        return new MetadataRequest.MetadataRequestTopic().setName(name);
    }

    @Test
    void missingTopicsAreCreatedInOneCallAndAnsweredWhenItCompletes() {
        broker.metadata.createTopic(NewTopic.of("existing", 1, 1));
        AtomicInteger batches = new AtomicInteger();
        CompletableFuture<List<TopicCreation>> pending = new CompletableFuture<>();
        AtomicReference<List<NewTopic>> asked = new AtomicReference<>();
        MetadataStore store = broker.batchCreatingStore(batches, asked, pending);
        MetadataHandler handler = new MetadataHandler(broker.contextWith(store));
        AtomicReference<ApiMessage> answer = new AtomicReference<>();
        Request request = broker.request(handler, 12, new MetadataRequest().setAllowAutoTopicCreation(true)
                .setTopics(new ArrayList<>(List.of(named("new-1"), named("existing"), named("new-2"), named("new-1"),
                        named("bad name")))), KafkaPrincipal.ANONYMOUS, answer);
        handler.handle(request);
        assertFalse(request.isAnswered(), "answered once the store is done");
        assertEquals(1, batches.get());
        assertEquals(List.of("new-1", "new-2"), asked.get().stream().map(NewTopic::name).toList());
        pending.complete(broker.metadata.createTopics(asked.get()).join());
        assertTrue(request.isAnswered());
        MetadataResponse response = broker.decodeResponse(handler, 12, answer.get());
        assertEquals(List.of("new-1", "existing", "new-2", "new-1", "bad name"),
                response.topics().stream().map(MetadataResponse.MetadataResponseTopic::name).toList());
        // Created topics are answered as Kafka answers them: LEADER_NOT_AVAILABLE, described on the next ask.
        short created = Errors.LEADER_NOT_AVAILABLE.code();
        assertEquals(List.of(created, Errors.NONE.code(), created, created, Errors.INVALID_TOPIC_EXCEPTION.code()),
                response.topics().stream().map(MetadataResponse.MetadataResponseTopic::errorCode).toList());
        assertEquals(1, response.brokers().size());
        MetadataResponse again = broker.call(new MetadataHandler(broker.context), 12, new MetadataRequest()
                .setAllowAutoTopicCreation(true).setTopics(new ArrayList<>(List.of(named("new-1"), named("new-2")))));
        assertEquals(List.of(Errors.NONE.code(), Errors.NONE.code()),
                again.topics().stream().map(MetadataResponse.MetadataResponseTopic::errorCode).toList());
        assertEquals(2, again.topics().get(0).partitions().size(), "num.partitions");
        assertEquals(broker.metadata.image().topic("new-2").id(), again.topics().get(1).topicId());
    }

    @Test
    void aFailedCreationIsAnsweredAsAnErrorOfThoseTopics() {
        MetadataStore store = broker.interceptedStore((method, args) -> method.getName().equals("createTopics")
                ? CompletableFuture.failedFuture(new IllegalStateException("store broke (test)")) : null);
        MetadataResponse response = broker.call(new MetadataHandler(broker.contextWith(store)), 12,
                new MetadataRequest().setAllowAutoTopicCreation(true).setTopics(new ArrayList<>(List.of(named("lost")))));
        assertEquals(Errors.UNKNOWN_SERVER_ERROR.code(), response.topics().get(0).errorCode());
    }

    @Test
    void withoutMissingTopicsNothingIsCreated() {
        broker.metadata.createTopic(NewTopic.of("existing", 1, 1));
        MetadataStore store = broker.interceptedStore((method, args) -> {
            if (method.getName().startsWith("createTopic")) {
                throw new AssertionError("nothing to create");
            }
            return null;
        });
        MetadataResponse response = broker.call(new MetadataHandler(broker.contextWith(store)), 12,
                new MetadataRequest().setAllowAutoTopicCreation(false).setTopics(new ArrayList<>(List.of(named("existing"),
                        named("absent")))));
        assertEquals(List.of(Errors.NONE.code(), Errors.UNKNOWN_TOPIC_OR_PARTITION.code()),
                response.topics().stream().map(MetadataResponse.MetadataResponseTopic::errorCode).toList());
    }
}

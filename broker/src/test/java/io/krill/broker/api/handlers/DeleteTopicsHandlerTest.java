package io.krill.broker.api.handlers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.krill.controller.metadata.NewTopic;
import io.krill.wire.error.Errors;
import io.krill.wire.message.DeleteTopicsRequest;
import io.krill.wire.message.DeleteTopicsResponse;
import io.krill.wire.protocol.ByteBufCodec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeleteTopicsHandlerTest {
    @TempDir
    Path dir;

    private static DeleteTopicsRequest byName(String... names) {
        return new DeleteTopicsRequest().setTopicNames(new ArrayList<>(List.of(names))).setTimeoutMs(1000);
    }

    private static DeleteTopicsRequest.DeleteTopicState state(String name, UUID id) {
        return new DeleteTopicsRequest.DeleteTopicState().setName(name).setTopicId(id);
    }

    private static Map<Object, DeleteTopicsResponse.DeletableTopicResult> results(DeleteTopicsResponse response) {
        Map<Object, DeleteTopicsResponse.DeletableTopicResult> results = new HashMap<>();
        for (DeleteTopicsResponse.DeletableTopicResult r : response.responses()) {
            results.put(r.name() != null ? r.name() : r.topicId(), r);
        }
        return results;
    }

    @Test
    void deletesByNameAtEveryVersionAndTheLogsGo() {
        try (HandlerFixture broker = HandlerFixture.start(dir)) {
            DeleteTopicsHandler handler = new DeleteTopicsHandler(broker.context);
            for (int version = handler.minVersion(); version <= handler.maxVersion(); version++) {
                String name = "gone-" + version;
                broker.metadata.createTopic(NewTopic.of(name, 2, 1));
                assertNotNull(broker.partitions.partition(name, 1));
                DeleteTopicsRequest request = version >= 6
                        ? new DeleteTopicsRequest().setTopics(new ArrayList<>(List.of(state(name, ByteBufCodec.ZERO_UUID),
                                state("never-" + version, ByteBufCodec.ZERO_UUID))))
                        : byName(name, "never-" + version);
                Map<Object, DeleteTopicsResponse.DeletableTopicResult> results = results(broker.call(handler, version, request));
                assertEquals(Errors.NONE.code(), results.get(name).errorCode(), "v" + version);
                assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), results.get("never-" + version).errorCode());
                assertNull(broker.metadata.image().topic(name));
                assertNull(broker.partitions.partition(name, 1));
                assertEquals(0, broker.logManager.allLogs().size());
            }
        }
    }

    @Test
    void v6DeletesByIdAndRefusesAmbiguity() {
        try (HandlerFixture broker = HandlerFixture.start(dir)) {
            DeleteTopicsHandler handler = new DeleteTopicsHandler(broker.context);
            UUID a = broker.metadata.createTopic(NewTopic.of("a", 1, 1)).id();
            UUID b = broker.metadata.createTopic(NewTopic.of("b", 1, 1)).id();
            UUID c = broker.metadata.createTopic(NewTopic.of("c", 1, 1)).id();
            UUID unknown = UUID.randomUUID();
            DeleteTopicsResponse response = broker.call(handler, 6, new DeleteTopicsRequest().setTopics(new ArrayList<>(List.of(
                    state(null, a), state(null, unknown), state("b", b), state(null, c), state("c", ByteBufCodec.ZERO_UUID),
                    state("dup", ByteBufCodec.ZERO_UUID), state("dup", ByteBufCodec.ZERO_UUID)))));
            Map<Object, DeleteTopicsResponse.DeletableTopicResult> results = results(response);
            assertEquals(Errors.NONE.code(), results.get("a").errorCode());
            assertEquals(a, results.get("a").topicId());
            assertEquals(Errors.UNKNOWN_TOPIC_ID.code(), results.get(unknown).errorCode());
            assertEquals("You may not specify both topic name and topic id.", results.get("b").errorMessage());
            assertEquals("The provided topic name maps to an ID that was already supplied.", results.get("c").errorMessage());
            assertEquals("Duplicate topic name.", results.get("dup").errorMessage());
            assertNull(broker.metadata.image().topic("a"));
            assertNotNull(broker.metadata.image().topic("b"));
            assertNotNull(broker.metadata.image().topic("c"));
        }
    }

    @Test
    void internalTopicsAreKept() {
        try (HandlerFixture broker = HandlerFixture.start(dir)) {
            broker.metadata.createTopic(new NewTopic("__consumer_offsets", 1, 1, Map.of(), Map.of(), true));
            DeleteTopicsResponse response = broker.call(new DeleteTopicsHandler(broker.context), 5, byName("__consumer_offsets"));
            assertEquals(Errors.INVALID_TOPIC_EXCEPTION.code(), response.responses().get(0).errorCode());
            assertNotNull(broker.metadata.image().topic("__consumer_offsets"));
        }
    }

    @Test
    void disabledDeletionFailsEveryTopic() {
        try (HandlerFixture broker = HandlerFixture.start(dir, Map.of("delete.topic.enable", "false"))) {
            broker.metadata.createTopic(NewTopic.of("kept", 1, 1));
            DeleteTopicsHandler handler = new DeleteTopicsHandler(broker.context);
            assertEquals(Errors.INVALID_REQUEST.code(), ((DeleteTopicsResponse) broker.call(handler, 2, byName("kept")))
                    .responses().get(0).errorCode());
            DeleteTopicsResponse v6 = broker.call(handler, 6, new DeleteTopicsRequest().setTopics(new ArrayList<>(List.of(
                    state("kept", ByteBufCodec.ZERO_UUID)))));
            assertEquals(Errors.TOPIC_DELETION_DISABLED.code(), v6.responses().get(0).errorCode());
            assertEquals("kept", v6.responses().get(0).name());
            assertNotNull(broker.metadata.image().topic("kept"));
        }
    }
}

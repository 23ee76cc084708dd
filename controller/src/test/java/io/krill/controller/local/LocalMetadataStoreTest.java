package io.krill.controller.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.controller.metadata.ApiError;
import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.ElectionType;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.NewTopic;
import io.krill.controller.metadata.TopicImage;
import io.krill.controller.metadata.TopicPartitionKey;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalMetadataStoreTest {
    private static final BrokerInfo SELF = new BrokerInfo(1, null,
            Map.of("PLAINTEXT", new BrokerInfo.Endpoint("PLAINTEXT", "localhost", 9092)));

    @TempDir
    Path dir;

    private static Errors errorOf(Runnable action) {
        return assertThrows(ApiException.class, action::run).error();
    }

    @Test
    void topicsSurviveARestartWithTheirIdsAndConfigs() {
        TopicImage created;
        String clusterId;
        try (LocalMetadataStore store = new LocalMetadataStore(dir, SELF, null)) {
            created = store.createTopic(new NewTopic("orders", 3, 1, Map.of(), Map.of("retention.ms", "1000 0"), false));
            store.createPartitions("orders", 5, List.of());
            clusterId = store.image().clusterId();
            assertEquals(22, clusterId.length());
            store.updateEntityConfigsAsync("", current -> Map.of("log.retention.ms", "5 5")).join();
            store.updateEntityConfigsAsync("1", current -> Map.of("log.segment.bytes", "2000000")).join();
            store.updateEntityConfigsAsync("1", current -> Map.of()).join();
            assertEquals(Map.of(), store.image().entityConfigs("1"), "an empty layer removes the entity");
        }
        try (LocalMetadataStore store = new LocalMetadataStore(dir, SELF, null)) {
            TopicImage topic = store.image().topic("orders");
            assertEquals(created.id(), topic.id());
            assertEquals(5, topic.partitionCount());
            assertEquals("1000 0", topic.configs().get("retention.ms"));
            assertEquals(1, topic.partition(4).leader());
            assertEquals(List.of(1), topic.partition(4).isr());
            assertEquals(clusterId, store.image().clusterId());
            assertEquals(topic, store.image().topic(created.id()));
            assertEquals(Map.of("log.retention.ms", "5 5"), store.image().entityConfigs(""));
        }
    }

    @Test
    void refusesWhatKafkaRefuses() {
        try (LocalMetadataStore store = new LocalMetadataStore(dir, SELF, "abc")) {
            store.createTopic(NewTopic.of("a.b", 1, 1));
            assertEquals(Errors.TOPIC_ALREADY_EXISTS, errorOf(() -> store.createTopic(NewTopic.of("a.b", 1, 1))));
            assertEquals(Errors.INVALID_TOPIC_EXCEPTION, errorOf(() -> store.createTopic(NewTopic.of("a_b", 1, 1))));
            assertEquals(Errors.INVALID_TOPIC_EXCEPTION, errorOf(() -> store.createTopic(NewTopic.of("bad name", 1, 1))));
            assertEquals(Errors.INVALID_TOPIC_EXCEPTION, errorOf(() -> store.createTopic(NewTopic.of("x".repeat(250), 1, 1))));
            assertEquals(Errors.INVALID_PARTITIONS, errorOf(() -> store.createTopic(NewTopic.of("p", 0, 1))));
            assertEquals(Errors.INVALID_REPLICATION_FACTOR, errorOf(() -> store.createTopic(NewTopic.of("r", 1, 3))));
            assertEquals(Errors.INVALID_REPLICA_ASSIGNMENT, errorOf(() -> store.createTopic(
                    new NewTopic("m", -1, -1, Map.of(0, List.of(2)), Map.of(), false))));
            assertEquals(Errors.INVALID_PARTITIONS, errorOf(() -> store.createPartitions("a.b", 1, List.of())));
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, errorOf(() -> store.deleteTopic("nope")));
        }
    }

    @Test
    void checksChangeNothing() {
        try (LocalMetadataStore store = new LocalMetadataStore(dir, SELF, null)) {
            List<MetadataImage> seen = new ArrayList<>();
            store.addListener((previous, current) -> seen.add(current));
            store.checkCreateTopic(NewTopic.of("checked", 2, 1));
            store.checkCreateTopic(new NewTopic("manual", -1, -1, Map.of(0, List.of(1), 1, List.of(1)), Map.of(), false));
            assertEquals(Errors.INVALID_REPLICA_ASSIGNMENT, errorOf(() -> store.checkCreateTopic(
                    new NewTopic("gap", -1, -1, Map.of(0, List.of(1), 2, List.of(1)), Map.of(), false))));
            assertEquals(Errors.INVALID_REPLICA_ASSIGNMENT, errorOf(() -> store.checkCreateTopic(
                    new NewTopic("twice", -1, -1, Map.of(0, List.of(1, 1)), Map.of(), false))));
            assertNull(store.image().topic("checked"));
            store.createTopic(NewTopic.of("grown", 1, 1));
            store.checkCreatePartitions("grown", 3, List.of());
            store.checkCreatePartitions("grown", 2, List.of(List.of(1)));
            assertEquals(Errors.INVALID_PARTITIONS, errorOf(() -> store.checkCreatePartitions("grown", 1, List.of())));
            assertEquals(Errors.INVALID_REPLICA_ASSIGNMENT, errorOf(() -> store.checkCreatePartitions("grown", 3,
                    List.of(List.of(1)))));
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, errorOf(() -> store.checkCreatePartitions("nope", 3, List.of())));
            assertEquals(1, store.image().topic("grown").partitionCount());
            assertEquals(1, seen.size(), "only the real creation was published");
        }
    }

    @Test
    void oneNodeNeedsNoElectionAndHasNothingToReassign() {
        try (LocalMetadataStore store = new LocalMetadataStore(dir, SELF, null)) {
            store.createTopic(NewTopic.of("t", 2, 1));
            TopicPartitionKey p0 = new TopicPartitionKey("t", 0);
            TopicPartitionKey missing = new TopicPartitionKey("t", 2);
            for (ElectionType type : ElectionType.values()) {
                Map<TopicPartitionKey, ApiError> results = store.electLeaders(type, List.of(p0, missing));
                assertEquals(List.of(p0, missing), List.copyOf(results.keySet()));
                assertEquals(Errors.ELECTION_NOT_NEEDED, results.get(p0).error());
                assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, results.get(missing).error());
            }
            Map<TopicPartitionKey, Optional<List<Integer>>> targets = new LinkedHashMap<>();
            targets.put(p0, Optional.of(List.of(1)));
            targets.put(new TopicPartitionKey("t", 1), Optional.empty());
            targets.put(missing, Optional.of(List.of(1)));
            targets.put(new TopicPartitionKey("u", 0), Optional.of(List.of(2)));
            Map<TopicPartitionKey, ApiError> results = store.alterPartitionReassignments(targets, false);
            assertEquals(ApiError.NONE, results.get(p0), "already in place");
            assertEquals(Errors.NO_REASSIGNMENT_IN_PROGRESS, results.get(new TopicPartitionKey("t", 1)).error());
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, results.get(missing).error());
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, results.get(new TopicPartitionKey("u", 0)).error());
            assertEquals(Errors.INVALID_REPLICA_ASSIGNMENT,
                    store.alterPartitionReassignments(Map.of(p0, Optional.of(List.of(1, 2)))).get(p0).error());
            assertEquals(Map.of(), store.listPartitionReassignments(Optional.empty()));
            assertEquals(Map.of(), store.listPartitionReassignments(Optional.of(Set.of(p0, missing))));
        }
    }

    @Test
    void configChangesAnswerWithCompletedFuturesAndFailThroughThem() {
        try (LocalMetadataStore store = new LocalMetadataStore(dir, SELF, null)) {
            store.createTopic(NewTopic.of("t", 1, 1));
            CompletableFuture<TopicImage> altered = store.alterTopicConfigsAsync("t", current -> {
                Map<String, String> next = new HashMap<>(current);
                next.put("retention.ms", "7");
                return next;
            });
            assertTrue(altered.isDone(), "applied on the calling thread");
            assertEquals(Map.of("retention.ms", "7"), altered.join().configs());
            CompletableFuture<TopicImage> missing = store.alterTopicConfigsAsync("missing", current -> current);
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, failure(missing).error(), "failed, not thrown");
            CompletableFuture<Map<String, String>> refused = store.updateEntityConfigsAsync("users/a", current -> {
                throw new ApiException(Errors.INVALID_REQUEST, "refused by the change");
            });
            assertEquals(Errors.INVALID_REQUEST, failure(refused).error());
            assertEquals(Map.of(), store.image().entityConfigs("users/a"), "nothing written");
            assertEquals(Map.of("k", "v"), store.updateEntityConfigsAsync("users/a", current -> Map.of("k", "v")).join());
            assertEquals(Map.of("k", "v"), store.image().entityConfigs("users/a"));
        }
    }

    private static ApiException failure(CompletableFuture<?> future) {
        assertTrue(future.isCompletedExceptionally());
        CompletionException thrown = assertThrows(CompletionException.class, future::join);
        return assertInstanceOf(ApiException.class, thrown.getCause());
    }

    @Test
    void listenersSeeEveryChangeInOrder() {
        try (LocalMetadataStore store = new LocalMetadataStore(dir, SELF, null)) {
            List<MetadataImage> seen = new ArrayList<>();
            store.addListener((previous, current) -> seen.add(current));
            store.createTopic(NewTopic.of("t", 1, -1));
            store.alterTopicConfigsAsync("t", current -> Map.of("cleanup.policy", "compact")).join();
            store.alterTopicConfigsAsync("t", current -> current).join(); // nothing changes: no new image
            store.deleteTopic("t");
            assertEquals(3, seen.size());
            assertNotNull(seen.get(0).topic("t"));
            assertEquals("compact", seen.get(1).topic("t").configs().get("cleanup.policy"));
            assertNull(seen.get(2).topic("t"));
        }
    }

    @Test
    void aStaleTempFileIsIgnored() throws Exception {
        try (LocalMetadataStore store = new LocalMetadataStore(dir, SELF, null)) {
            store.createTopic(NewTopic.of("kept", 2, 1));
        }
        Files.writeString(dir.resolve(MetadataFile.NAME + ".tmp"), "garbage from a crash");
        try (LocalMetadataStore store = new LocalMetadataStore(dir, SELF, null)) {
            assertEquals(2, store.image().topic("kept").partitionCount());
        }
    }
}

package io.krill.broker.share.state;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.testing.TestBroker;
import io.krill.controller.cluster.EmbeddedZooKeeper;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.NewTopic;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The broker's {@link ShareStatePersister} on two brokers sharing one ZooKeeper: the first call creates
 * {@code __share_group_state} and waits for its coordinators to load; each broker's persister serves keys
 * coordinated by itself (locally) and by the other broker (over the state RPCs), and both see the same
 * state; errors of the coordinator come back as they are.
 */
class ShareCoordinatorPersisterTest {
    private static final String TOPIC = "persisted";
    private static Path dir;
    private static EmbeddedZooKeeper zooKeeper;
    private static final Map<Integer, TestBroker> brokers = new LinkedHashMap<>();
    private static UUID topicId;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("krill-share-persister");
        zooKeeper = EmbeddedZooKeeper.start(dir.resolve("zookeeper"), 0);
        for (int id = 1; id <= 2; id++) {
            brokers.put(id, TestBroker.start(Map.of("node.id", Integer.toString(id),
                    "zookeeper.connect", zooKeeper.connectString() + "/krill-share-persister",
                    "zookeeper.session.timeout.ms", "4000",
                    "share.coordinator.state.topic.num.partitions", "4",
                    "share.coordinator.state.topic.replication.factor", "1",
                    "share.coordinator.state.topic.min.isr", "1")));
        }
        await("two brokers").atMost(Duration.ofSeconds(30)).until(() ->
                brokers.get(1).broker().metadata().image().brokers().size() == 2);
        brokers.get(1).broker().metadata().createTopics(List.of(new NewTopic(TOPIC, 8, 1, Map.of(), Map.of(), false)))
                .get(30, TimeUnit.SECONDS);
        await("the topic everywhere").atMost(Duration.ofSeconds(30)).until(() -> brokers.values().stream()
                .allMatch(b -> b.broker().metadata().image().topic(TOPIC) != null));
        topicId = brokers.get(1).broker().metadata().image().topic(TOPIC).id();
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            for (TestBroker broker : brokers.values()) {
                broker.close();
            }
            zooKeeper.close();
        } finally {
            try (Stream<Path> paths = Files.walk(dir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private static ShareStatePersister persister(int broker) {
        return brokers.get(broker).broker().shareStatePersister();
    }

    private static <T> T get(CompletableFuture<T> future) throws Exception {
        return future.get(60, TimeUnit.SECONDS);
    }

    private static Errors error(CompletableFuture<?> future) throws Exception {
        try {
            future.get(60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            return ((ApiException) e.getCause()).error();
        }
        throw new AssertionError("expected an error");
    }

    /** The broker coordinating {@code key}, by the metadata. */
    private static int coordinatorOf(SharePartitionKey key) {
        MetadataImage image = brokers.get(1).broker().metadata().image();
        var topic = image.topic(ShareGroupStateTopic.NAME);
        return topic.partition(ShareGroupStateTopic.partitionFor(key, topic.partitionCount())).leader();
    }

    @Test
    void eachBrokerServesLocalAndRemoteKeysAlike() throws Exception {
        // The first call creates __share_group_state and is retried until its coordinator has loaded.
        SharePartitionKey first = new SharePartitionKey("persisted-group", topicId, 0);
        assertEquals(null, get(persister(1).initialize(first, 1, 0)));
        List<SharePartitionKey> keys = new ArrayList<>();
        for (int partition = 0; partition < 8; partition++) {
            keys.add(new SharePartitionKey("persisted-group", topicId, partition));
        }
        await("__share_group_state led by both").atMost(Duration.ofSeconds(30)).until(() ->
                keys.stream().map(ShareCoordinatorPersisterTest::coordinatorOf).distinct().count() == 2);

        for (SharePartitionKey key : keys) {
            int via = 1 + key.partition() % 2;
            int other = 3 - via;
            assertEquals(null, get(persister(via).initialize(key, 2, 10)));
            ShareState read = get(persister(other).read(key, 4));
            assertEquals(new ShareState(2, 10, 4, List.of()), read, key + " read through broker " + other);
            assertEquals(null, get(persister(via).write(key, 2, 4, 12, List.of(
                    new StateBatch(12, 15, StateBatch.ACKNOWLEDGED, (short) 1),
                    new StateBatch(16, 20, StateBatch.AVAILABLE, (short) 2)))));
            assertEquals(new ShareState(2, 12, 4, List.of(new StateBatch(12, 15, StateBatch.ACKNOWLEDGED, (short) 1),
                    new StateBatch(16, 20, StateBatch.AVAILABLE, (short) 2))), get(persister(other).read(key, 4)));
            assertEquals(new ShareStateSummary(2, 12, 4, 4), get(persister(other).readSummary(key, 4)));
            assertEquals(Errors.FENCED_LEADER_EPOCH, error(persister(via).write(key, 2, 3, 12, List.of())),
                    "the coordinator's errors come back as they are, for " + key);
            assertEquals(null, get(persister(other).delete(key)));
            assertEquals(ShareState.UNINITIALIZED, get(persister(via).read(key, 4)).startOffset());
        }
        SharePartitionKey unknown = new SharePartitionKey("persisted-group", UUID.randomUUID(), 0);
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, error(persister(coordinatorOf(unknown) == 1 ? 2 : 1)
                .initialize(unknown, 1, 0)), "over the RPC too");
        assertEquals(Errors.INVALID_REQUEST, error(persister(1).read(new SharePartitionKey("", topicId, 0), 0)));
        assertTrue(brokers.get(1).broker().metadata().image().topic(ShareGroupStateTopic.NAME).internal());
    }
}

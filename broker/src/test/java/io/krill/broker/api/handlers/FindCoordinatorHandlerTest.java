package io.krill.broker.api.handlers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.krill.broker.coordinator.CoordinatorLog;
import io.krill.broker.coordinator.MockCoordinatorTimer;
import io.krill.broker.group.GroupConfig;
import io.krill.broker.group.GroupCoordinator;
import io.krill.broker.security.KafkaPrincipal;
import io.krill.controller.metadata.NewTopic;
import io.krill.controller.metadata.TopicCreation;
import io.krill.wire.error.Errors;
import io.krill.wire.message.FindCoordinatorRequest;
import io.krill.wire.message.FindCoordinatorResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * FindCoordinator creates {@code __consumer_offsets} on first use without the request thread waiting for
 * the store: while the creation is in flight the answer is COORDINATOR_NOT_AVAILABLE (retriable, as Kafka
 * answers while it auto-creates the topic), further requests do not start another creation, and once the
 * store has created it the coordinator is found. A store that creates at once answers at once.
 */
class FindCoordinatorHandlerTest {
    @TempDir
    Path dir;
    private HandlerFixture broker;
    private GroupCoordinator groups;

    /** The group log is not used by FindCoordinator: nothing to append or replay. */
    private static final CoordinatorLog NO_LOG = new CoordinatorLog() {
        @Override
        public CompletableFuture<Void> append(int partition, List<Entry> entries) {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletableFuture<Void> appendTransactional(int partition, long producerId, short producerEpoch,
                                                           List<Entry> entries) {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public void replay(int partition, Replayer replayer) {
        }
    };

    @BeforeEach
    void start() {
        broker = HandlerFixture.start(dir, java.util.Map.of("offsets.topic.replication.factor", "1",
                "offsets.topic.num.partitions", "2"));
        groups = new GroupCoordinator(1, GroupConfig.from(broker.config.group()), NO_LOG, new MockCoordinatorTimer());
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    private static FindCoordinatorRequest group(String id) {
        return new FindCoordinatorRequest().setKeyType((byte) 0).setCoordinatorKeys(new ArrayList<>(List.of(id)));
    }

    private FindCoordinatorResponse.Coordinator find(FindCoordinatorHandler handler, String id) {
        FindCoordinatorResponse response = broker.call(handler, 4, group(id));
        return response.coordinators().get(0);
    }

    @Test
    void theOffsetsTopicIsCreatedOnFirstUseWithoutWaitingForTheStore() {
        List<HandlerFixture.Held> held = new CopyOnWriteArrayList<>();
        FindCoordinatorHandler handler = new FindCoordinatorHandler(
                broker.contextWith(broker.holdingStore(Set.of("createTopics"), held)), groups, null);
        FindCoordinatorResponse.Coordinator first = find(handler, "g");
        assertEquals(Errors.COORDINATOR_NOT_AVAILABLE.code(), first.errorCode(), "answered while it is created");
        assertEquals(1, held.size());
        @SuppressWarnings("unchecked")
        List<NewTopic> asked = (List<NewTopic>) held.get(0).args()[0];
        assertEquals("__consumer_offsets", asked.get(0).name());
        assertEquals(Errors.COORDINATOR_NOT_AVAILABLE.code(), find(handler, "g").errorCode());
        assertEquals(1, held.size(), "one creation in flight, however many ask");

        List<TopicCreation> created = broker.metadata.createTopics(asked).join();
        held.get(0).future().complete(created);
        FindCoordinatorResponse.Coordinator found = find(handler, "g");
        assertEquals(Errors.NONE.code(), found.errorCode());
        assertEquals(1, found.nodeId());
        assertEquals(1, held.size(), "the topic exists: nothing more to create");
    }

    @Test
    void aStoreThatCreatesAtOnceIsAnsweredAtOnce() {
        FindCoordinatorHandler handler = new FindCoordinatorHandler(broker.context, groups, null);
        FindCoordinatorResponse.Coordinator found = find(handler, "g");
        assertEquals(Errors.NONE.code(), found.errorCode());
        assertNotNull(broker.metadata.image().topic("__consumer_offsets"));
    }

    @Test
    void aFailedCreationIsRetriableAndTriedAgain() {
        List<HandlerFixture.Held> held = new CopyOnWriteArrayList<>();
        FindCoordinatorHandler handler = new FindCoordinatorHandler(
                broker.contextWith(broker.holdingStore(Set.of("createTopics"), held)), groups, null);
        find(handler, "g");
        held.get(0).future().completeExceptionally(new IllegalStateException("ZooKeeper gone (test)"));
        assertEquals(Errors.COORDINATOR_NOT_AVAILABLE.code(), find(handler, "g").errorCode());
        assertEquals(2, held.size(), "a new creation after the failed one");
    }
}

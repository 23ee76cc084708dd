package io.krill.broker.api.handlers;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.BrokerContext;
import io.krill.broker.fetch.FetchContext;
import io.krill.broker.fetch.FetchSessionCache;
import io.krill.broker.purgatory.DelayedOperationPurgatory;
import io.krill.broker.quota.ClientQuotas;
import io.krill.broker.security.KafkaPrincipal;
import io.krill.controller.metadata.NewTopic;
import io.krill.log.TopicPartition;
import io.krill.wire.error.Errors;
import io.krill.wire.message.FetchRequest;
import io.krill.wire.message.FetchResponse;
import io.krill.wire.protocol.ApiMessage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Incremental fetch sessions (KIP-227) as Kafka's brokers serve them: a full fetch of epoch 0 opens a
 * session; an incremental one names only changed partitions and is answered only with partitions that
 * have something new; a wrong epoch or an unknown session is refused as a whole; forgotten partitions
 * leave; epoch -1 closes. Requests and responses go through the wire format.
 */
@Timeout(60)
class FetchSessionsTest {
    private static final String TOPIC = "sessions";
    private static final int PARTITIONS = 4;
    private static final int VERSION = 12;

    @TempDir
    Path dir;

    private HandlerFixture broker;
    private DelayedOperationPurgatory<TopicPartition> fetches;
    private FetchSessionCache sessions;
    private FetchHandler handler;

    @BeforeEach
    void start() {
        broker = HandlerFixture.start(dir);
        broker.metadata.createTopic(NewTopic.of(TOPIC, PARTITIONS, 1));
        sessions = new FetchSessionCache(10, broker.metadata::image);
        // as the broker wires it: every event on a partition also goes to the fetch sessions
        fetches = new DelayedOperationPurgatory<>("fetch-test", sessions::partitionChanged);
        BrokerContext base = broker.context;
        BrokerContext context = new BrokerContext(base.configs(), base.metadata(), base.partitions(),
                base.producePurgatory(), fetches, base.metrics(), base.isrChanger(), base.authorization());
        handler = new FetchHandler(context, ClientQuotas.DISABLED, sessions);
    }

    @AfterEach
    void stop() {
        fetches.close();
        broker.close();
    }

    /** Appends {@code count} records and announces it, as a leader append does. */
    private void append(int partition, int count) {
        broker.append(TOPIC, partition, count);
        fetches.checkAndComplete(new TopicPartition(TOPIC, partition));
    }

    private static FetchRequest request(int sessionId, int epoch, Map<Integer, Long> offsets, int... forgotten) {
        List<FetchRequest.FetchPartition> wanted = new ArrayList<>();
        offsets.forEach((p, offset) -> wanted.add(new FetchRequest.FetchPartition().setPartition(p)
                .setFetchOffset(offset).setPartitionMaxBytes(1 << 16)));
        List<Integer> gone = new ArrayList<>();
        for (int p : forgotten) {
            gone.add(p);
        }
        return new FetchRequest().setReplicaId(-1).setMaxWaitMs(0).setMinBytes(0).setMaxBytes(1 << 20)
                .setSessionId(sessionId).setSessionEpoch(epoch)
                .setTopics(wanted.isEmpty() ? List.of() : List.of(new FetchRequest.FetchTopic().setTopic(TOPIC)
                        .setPartitions(wanted)))
                .setForgottenTopicsData(gone.isEmpty() ? List.of() : List.of(new FetchRequest.ForgottenTopic()
                        .setTopic(TOPIC).setPartitions(gone)));
    }

    private static Map<Integer, Long> allFrom(long offset) {
        Map<Integer, Long> offsets = new TreeMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            offsets.put(p, offset);
        }
        return offsets;
    }

    private FetchResponse call(FetchRequest body) {
        return broker.call(handler, VERSION, body);
    }

    /** The partitions answered, by index, with the bytes of records each carries. */
    private static Map<Integer, Integer> answered(FetchResponse response) {
        Map<Integer, Integer> out = new TreeMap<>();
        for (FetchResponse.FetchableTopicResponse topic : response.responses()) {
            for (FetchResponse.PartitionData data : topic.partitions()) {
                out.put(data.partitionIndex(), data.records() == null ? -1 : data.records().sizeInBytes());
            }
        }
        return out;
    }

    @Test
    void anIncrementalFetchIsAnsweredWithOnlyThePartitionsThatChanged() {
        FetchResponse full = call(request(0, 0, allFrom(0)));
        assertEquals(Errors.NONE.code(), full.errorCode());
        int id = full.sessionId();
        assertNotEquals(0, id, "a full fetch of epoch 0 opens a session");
        assertEquals(PARTITIONS, answered(full).size(), "the full fetch answers every partition");

        FetchResponse idle = call(request(id, 1, Map.of()));
        assertEquals(id, idle.sessionId());
        assertEquals(Map.of(), answered(idle), "nothing moved: no partition in the answer");

        append(2, 3);
        FetchResponse news = call(request(id, 2, Map.of()));
        assertEquals(List.of(2), List.copyOf(answered(news).keySet()), "only the partition written to");
        FetchResponse.PartitionData data = news.responses().get(0).partitions().get(0);
        assertEquals(3, data.highWatermark());
        assertTrue(data.records().sizeInBytes() > 0, "its records, read from the offset the session keeps");

        // the client moves its offset for partition 2 past the records: nothing new any more
        assertEquals(Map.of(), answered(call(request(id, 3, Map.of(2, 3L)))));
        append(0, 1);
        append(2, 1);
        FetchResponse two = call(request(id, 4, Map.of()));
        assertEquals(List.of(0, 2), List.copyOf(answered(two).keySet()));
        assertEquals(4, sessions.partitions());
    }

    @Test
    void aWrongEpochOrAnUnknownSessionIsRefusedAsAWhole() {
        int id = call(request(0, 0, allFrom(0))).sessionId();
        assertEquals(Errors.NONE.code(), call(request(id, 1, Map.of())).errorCode());

        FetchResponse replayed = call(request(id, 1, Map.of()));
        assertEquals(Errors.INVALID_FETCH_SESSION_EPOCH.code(), replayed.errorCode(), "epoch 1 again");
        assertEquals(List.of(), replayed.responses());
        assertEquals(Errors.INVALID_FETCH_SESSION_EPOCH.code(), call(request(id, 5, Map.of())).errorCode());
        assertEquals(Errors.NONE.code(), call(request(id, 2, Map.of())).errorCode(), "the session is intact");

        FetchResponse unknown = call(request(id + 1, 1, Map.of()));
        assertEquals(Errors.FETCH_SESSION_ID_NOT_FOUND.code(), unknown.errorCode());
        assertEquals(0, unknown.sessionId());
    }

    @Test
    void forgottenPartitionsLeaveAndNewOnesAreAnsweredAtOnce() {
        int id = call(request(0, 0, Map.of(0, 0L, 1, 0L))).sessionId();
        FetchResponse changed = call(request(id, 1, Map.of(3, 0L), 1));
        assertEquals(List.of(3), List.copyOf(answered(changed).keySet()), "a partition new to the session is answered");
        append(1, 2);
        append(0, 2);
        assertEquals(List.of(0), List.copyOf(answered(call(request(id, 2, Map.of()))).keySet()),
                "partition 1 was forgotten");
        assertEquals(2, sessions.partitions());
    }

    @Test
    void epochMinusOneClosesTheSessionAndIsAnsweredInFull() {
        int id = call(request(0, 0, allFrom(0))).sessionId();
        FetchResponse closing = call(request(id, -1, allFrom(0)));
        assertEquals(0, closing.sessionId());
        assertEquals(PARTITIONS, answered(closing).size());
        assertEquals(0, sessions.size());
        assertEquals(Errors.FETCH_SESSION_ID_NOT_FOUND.code(), call(request(id, 1, Map.of())).errorCode());

        int next = call(request(0, 0, allFrom(0))).sessionId();
        int replaced = call(request(next, 0, allFrom(0))).sessionId();
        assertNotEquals(0, replaced);
        assertEquals(1, sessions.size(), "epoch 0 naming a session closes it and opens another");
    }

    @Test
    void aSessionOpenedWithTopicIdsCannotGoOnWithNames() {
        UUID topicId = broker.metadata.image().topic(TOPIC).id();
        FetchRequest byId = request(0, 0, allFrom(0));
        byId.topics().get(0).setTopic("").setTopicId(topicId);
        FetchResponse opened = broker.call(handler, 13, byId);
        assertEquals(PARTITIONS, answered(opened).size());
        FetchResponse byName = call(request(opened.sessionId(), 1, Map.of()));
        assertEquals(Errors.FETCH_SESSION_TOPIC_ID_ERROR.code(), byName.errorCode());

        FetchRequest next = request(opened.sessionId(), 1, Map.of(1, 5L));
        next.topics().get(0).setTopic("").setTopicId(topicId);
        FetchResponse incremental = broker.call(handler, 13, next);
        assertEquals(Errors.NONE.code(), incremental.errorCode());
        assertEquals(Errors.OFFSET_OUT_OF_RANGE.code(), incremental.responses().get(0).partitions().get(0).errorCode(),
                "the partition whose offset moved past the end is answered with its error");
        assertEquals(topicId, incremental.responses().get(0).topicId());
    }

    @Test
    void aWaitingIncrementalFetchAnswersWithThePartitionThatGotRecords() {
        int id = call(request(0, 0, allFrom(0))).sessionId();
        FetchRequest waiting = request(id, 1, Map.of()).setMaxWaitMs(30_000).setMinBytes(1);
        AtomicReference<ApiMessage> answer = new AtomicReference<>();
        handler.handle(broker.request(handler, VERSION, waiting, KafkaPrincipal.ANONYMOUS, answer));
        assertNull(answer.get(), "nothing new in the session: it waits");
        append(3, 2);
        await().atMost(Duration.ofSeconds(10)).until(() -> answer.get() != null);
        FetchResponse response = broker.decodeResponse(handler, VERSION, answer.get());
        assertEquals(List.of(3), List.copyOf(answered(response).keySet()));
        assertEquals(id, response.sessionId());
    }

    @Test
    void aFullCacheMakesRoomOnlyForASessionWorthMore() {
        FetchSessionCache one = new FetchSessionCache(1, broker.metadata::image);
        FetchHandler small = new FetchHandler(broker.context, ClientQuotas.DISABLED, one);
        int first = ((FetchResponse) broker.call(small, VERSION, request(0, 0, allFrom(0)))).sessionId();
        assertNotEquals(0, first);
        FetchResponse fewer = broker.call(small, VERSION, request(0, 0, Map.of(0, 0L)));
        assertEquals(0, fewer.sessionId(), "fewer partitions: no room, answered sessionless");
        assertEquals(1, answered(fewer).size());
        assertEquals(Errors.NONE.code(), ((FetchResponse) broker.call(small, VERSION, request(first, 1, Map.of())))
                .errorCode(), "the first session stays");

        FetchResponse follower = broker.call(small, VERSION, request(0, 0, Map.of(0, 0L)).setReplicaId(2));
        assertNotEquals(0, follower.sessionId(), "a follower's session is worth more than a consumer's");
        assertEquals(1, one.evictions());
        assertEquals(Errors.FETCH_SESSION_ID_NOT_FOUND.code(),
                ((FetchResponse) broker.call(small, VERSION, request(first, 2, Map.of()))).errorCode());
    }

    /**
     * A consumer's incremental fetch reads only the partitions that changed since a read found nothing
     * new in them (Kafka reads every partition of the session on every fetch).
     */
    @Test
    void aConsumersIncrementalFetchReadsOnlyChangedPartitions() {
        int id = call(request(0, 0, allFrom(0))).sessionId();
        assertEquals(List.of(), targets(request(id, 1, Map.of())), "nothing changed: nothing to read");
        append(1, 2);
        assertEquals(List.of(1), targets(request(id, 2, Map.of())), "the partition written to");
        assertEquals(List.of(1), answered(call(request(id, 3, Map.of(1, 2L)))).keySet().stream().toList(),
                "its new high watermark is told");
        assertEquals(List.of(1), targets(request(id, 4, Map.of())), "one more look once it was told");
        assertEquals(Map.of(), answered(call(request(id, 5, Map.of()))));
        assertEquals(List.of(), targets(request(id, 6, Map.of())), "found with nothing new: off the list");
        assertEquals(List.of(3), targets(request(id, 7, Map.of(3, 0L))), "a partition the request names is read");
    }

    /** The partitions an incremental request would read, by index; the request is applied to its session. */
    private List<Integer> targets(FetchRequest body) {
        List<Integer> out = new ArrayList<>();
        sessions.contextFor(body, (short) VERSION, false, System.currentTimeMillis()).targets()
                .forEach(t -> out.add(t.asked().partition()));
        return out;
    }

    @Test
    void versionsBeforeSevenHaveNoSessions() {
        // what a v6 request's session fields would say if the version were not looked at: open a session
        FetchContext old = sessions.contextFor(request(0, 0, allFrom(0)), (short) 6, false, System.currentTimeMillis());
        assertTrue(old instanceof FetchContext.Sessionless, "v6: sessionless, whatever the fields say: " + old);
        FetchResponse answered = broker.call(handler, 6, request(0, 0, allFrom(0)).setSessionEpoch(-1));
        assertEquals(PARTITIONS, answered(answered).size());
        assertEquals(0, sessions.size());
    }
}

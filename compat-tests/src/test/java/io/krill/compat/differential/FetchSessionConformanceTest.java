package io.krill.compat.differential;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.FetchRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * Incremental fetch sessions (KIP-227) compared with Kafka 4.4 at every Fetch version that has them (v7+):
 * a session is opened by a full fetch of epoch 0 in each side's set-up, then the incremental request is
 * compared: which partitions are answered (only those with news), forgotten partitions, and the errors of
 * a wrong epoch and of an unknown session. Session ids are random on both sides (allowed to differ); the
 * sequences check they are set.
 */
class FetchSessionConformanceTest extends DifferentialTest {
    private static final int PARTITIONS = 3;

    private static String perVersion(String topic, short version) {
        return topic + "-v" + version;
    }

    /** A consumer's fetch of {@code offsets} (partition to offset) in session {@code id} at {@code epoch}. */
    private static FetchRequest fetch(BrokerSide side, String topic, int id, int epoch, Map<Integer, Long> offsets,
                                      List<Integer> forgotten) {
        List<FetchRequest.FetchPartition> partitions = new ArrayList<>();
        offsets.forEach((p, offset) -> partitions.add(new FetchRequest.FetchPartition().setPartition(p)
                .setCurrentLeaderEpoch(side.leaderEpoch(topic, p)).setFetchOffset(offset).setLogStartOffset(-1L)
                .setPartitionMaxBytes(1_048_576)));
        FetchRequest request = new FetchRequest().setMaxWaitMs(500).setMinBytes(1).setMaxBytes(52_428_800)
                .setIsolationLevel((byte) 0).setSessionId(id).setSessionEpoch(epoch).setRackId("");
        if (!partitions.isEmpty()) {
            request.setTopics(List.of(new FetchRequest.FetchTopic().setTopic(topic).setTopicId(side.topicId(topic))
                    .setPartitions(partitions)));
        }
        if (!forgotten.isEmpty()) {
            request.setForgottenTopicsData(List.of(new FetchRequest.ForgottenTopic().setTopic(topic)
                    .setTopicId(side.topicId(topic)).setPartitions(forgotten)));
        }
        return request;
    }

    /**
     * Creates {@code topic} with one record in each partition and opens a session fetching all of them
     * from offset 1 (their end), remembered as {@code topic}.
     */
    private static void openSession(BrokerSide side, String topic, short version) {
        side.createTopic(topic, PARTITIONS);
        for (int p = 0; p < PARTITIONS; p++) {
            side.produce(topic, p, 1);
        }
        FetchRequest full = fetch(side, topic, 0, 0, Map.of(0, 1L, 1, 1L, 2, 1L), List.of()).setMaxWaitMs(0);
        FetchResponseData opened = (FetchResponseData) side.send(ApiKeys.FETCH, version, version, full).data();
        assertEquals(Errors.NONE.code(), opened.errorCode(), side + ": the full fetch");
        assertNotEquals(0, opened.sessionId(), side + ": a full fetch of epoch 0 opens a session");
        side.remember(topic, Integer.toString(opened.sessionId()));
    }

    private static int session(BrokerSide side, String topic) {
        return Integer.parseInt(side.remembered(topic));
    }

    /** The partition indexes answered, in order. */
    private static List<Integer> answered(JsonNode answer) {
        List<Integer> out = new ArrayList<>();
        for (JsonNode topic : answer.at("/responses")) {
            for (JsonNode partition : topic.at("/partitions")) {
                out.add(partition.at("/partitionIndex").asInt());
            }
        }
        return out;
    }

    @Test
    void anIncrementalFetchAnswersOnlyThePartitionWrittenSince() {
        sequence("Incremental Fetch after a write to one of three partitions", ApiKeys.FETCH).from(7)
                .setUp((side, version) -> {
                    openSession(side, perVersion("diff-fs-news", version), version);
                    side.produce(perVersion("diff-fs-news", version), 1, 2);
                })
                .request((side, version) -> fetch(side, perVersion("diff-fs-news", version),
                        session(side, perVersion("diff-fs-news", version)), 1, Map.of(), List.of()))
                .expect("/errorCode", Errors.NONE)
                .expect("/responses/0/partitions/0/errorCode", Errors.NONE)
                .check(answers -> answers.both().forEach(answer -> {
                    assertEquals(List.of(1), answered(answer), "only partition 1 has news: " + answer);
                    assertNotEquals(0, answer.at("/sessionId").asInt(), "the session's id");
                }))
                .run();
    }

    @Test
    void anIncrementalFetchMovesAnOffsetAndForgetsAPartition() {
        sequence("Incremental Fetch that moves partition 0 back to offset 0 and forgets partition 2, just written",
                ApiKeys.FETCH).from(7)
                .setUp((side, version) -> {
                    openSession(side, perVersion("diff-fs-forget", version), version);
                    side.produce(perVersion("diff-fs-forget", version), 2, 1);
                })
                .request((side, version) -> fetch(side, perVersion("diff-fs-forget", version),
                        session(side, perVersion("diff-fs-forget", version)), 1, Map.of(0, 0L), List.of(2)))
                .expect("/errorCode", Errors.NONE)
                .check(answers -> answers.both().forEach(answer ->
                        assertEquals(List.of(0), answered(answer), "partition 0 read again, 2 forgotten: " + answer)))
                .run();
    }

    @Test
    void anIncrementalFetchAtTheWrongEpochIsRefused() {
        sequence("Incremental Fetch at epoch 2 of a session that expects 1", ApiKeys.FETCH).from(7)
                .setUp((side, version) -> openSession(side, perVersion("diff-fs-epoch", version), version))
                .request((side, version) -> fetch(side, perVersion("diff-fs-epoch", version),
                        session(side, perVersion("diff-fs-epoch", version)), 2, Map.of(), List.of()))
                .expect("/errorCode", Errors.INVALID_FETCH_SESSION_EPOCH)
                .run();
    }

    @Test
    void anIncrementalFetchOfAnUnknownSessionIsRefused() {
        both(side -> side.createTopic("diff-fs-unknown", 1));
        sequence("Incremental Fetch of a session the broker does not have", ApiKeys.FETCH).from(7)
                .request((side, version) -> fetch(side, "diff-fs-unknown", 2_112_223_334, 1, Map.of(0, 0L), List.of()))
                .expect("/errorCode", Errors.FETCH_SESSION_ID_NOT_FOUND)
                .run();
    }
}

package io.krill.broker.api.handlers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.krill.broker.security.KafkaPrincipal;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import io.krill.controller.metadata.NewTopic;
import io.krill.wire.error.Errors;
import io.krill.wire.message.FetchRequest;
import io.krill.wire.message.FetchResponse;
import io.krill.wire.protocol.ApiMessage;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A partition answered with an error carries an empty record set, as Kafka's does, never a null one:
 * librdkafka rejects a whole Fetch response that holds a null one ("invalid MessageSetSize -1") and
 * retries it forever, so its consumer never resets after OFFSET_OUT_OF_RANGE.
 */
@Timeout(60)
class FetchErrorsTest {
    private static final String TOPIC = "fetched";

    @TempDir
    Path dir;

    private HandlerFixture broker;
    private FetchHandler handler;

    @BeforeEach
    void start() {
        broker = HandlerFixture.start(dir);
        broker.metadata.createTopic(NewTopic.of(TOPIC, 1, 1));
        broker.append(TOPIC, 0, 5);
        handler = new FetchHandler(broker.context);
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    private FetchResponse fetch(int version, int partition, long offset) {
        return fetch(version, partition, offset, -1);
    }

    private FetchResponse fetch(int version, int partition, long offset, int currentLeaderEpoch) {
        FetchRequest body = new FetchRequest().setReplicaId(-1).setMaxWaitMs(0).setMinBytes(0).setMaxBytes(1 << 20)
                .setTopics(List.of(new FetchRequest.FetchTopic().setTopic(TOPIC).setTopicId(
                        broker.metadata.image().topic(TOPIC).id()).setPartitions(List.of(
                        new FetchRequest.FetchPartition().setPartition(partition).setFetchOffset(offset)
                                .setPartitionMaxBytes(1 << 16).setCurrentLeaderEpoch(currentLeaderEpoch)))));
        AtomicReference<ApiMessage> answer = new AtomicReference<>();
        handler.handle(broker.request(handler, version, body, KafkaPrincipal.ANONYMOUS, answer));
        assertNotNull(answer.get(), "a fetch with max.wait 0 is answered at once");
        return (FetchResponse) answer.get();
    }

    /**
     * The size of the partition's record set as a client decodes the response (the response is encoded
     * and read back); fails if the record set is null on the wire.
     */
    private static int recordSetOnTheWire(FetchResponse response, short version) {
        ByteBuf buf = Unpooled.buffer();
        try {
            response.write(buf, version);
            FetchResponse decoded = new FetchResponse();
            decoded.read(buf, version);
            FetchResponse.PartitionData data = decoded.responses().get(0).partitions().get(0);
            assertNotNull(data.records(), "v" + version + ": the record set of a partition answered with error "
                    + data.errorCode() + " is null on the wire");
            return data.records().sizeInBytes();
        } finally {
            buf.release();
        }
    }

    @Test
    void anOffsetPastTheEndIsOutOfRangeWithAnEmptyRecordSet() {
        for (int version : new int[] {4, 11, 12, 16}) {
            FetchResponse response = fetch(version, 0, 1_000);
            FetchResponse.PartitionData data = response.responses().get(0).partitions().get(0);
            assertEquals(Errors.OFFSET_OUT_OF_RANGE.code(), data.errorCode(), "v" + version);
            assertEquals(0, recordSetOnTheWire(response, (short) version), "v" + version);
        }
    }

    @Test
    void anUnknownPartitionHasAnEmptyRecordSet() {
        FetchResponse response = fetch(12, 7, 0);
        FetchResponse.PartitionData data = response.responses().get(0).partitions().get(0);
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), data.errorCode());
        assertEquals(0, recordSetOnTheWire(response, (short) 12));
    }

    @Test
    void aFetchWithinTheLogStillGetsItsRecords() {
        FetchResponse response = fetch(12, 0, 0);
        FetchResponse.PartitionData data = response.responses().get(0).partitions().get(0);
        assertEquals(Errors.NONE.code(), data.errorCode());
        assertEquals(5, data.highWatermark());
        assertEquals(true, data.records().sizeInBytes() > 0, "records read");
    }
    /**
     * KIP-951 from v16, as Kafka: a consumer told NOT_LEADER_OR_FOLLOWER learns the current leader, its
     * epoch and its endpoint; below v16 the answer names neither.
     */
    @Test
    void notLeaderNamesTheCurrentLeaderFromV16() {
        broker.partitions.stopLeading();
        FetchResponse response = fetch(16, 0, 0);
        FetchResponse.PartitionData data = response.responses().get(0).partitions().get(0);
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER.code(), data.errorCode());
        assertEquals(1, data.currentLeader().leaderId());
        assertEquals(0, data.currentLeader().leaderEpoch());
        assertEquals(1, response.nodeEndpoints().size());
        FetchResponse.NodeEndpoint leader = response.nodeEndpoints().get(0);
        assertEquals(List.of(1, "127.0.0.1", 9092), List.of(leader.nodeId(), leader.host(), leader.port()));

        FetchResponse older = fetch(15, 0, 0);
        assertEquals(-1, older.responses().get(0).partitions().get(0).currentLeader().leaderId());
        assertEquals(List.of(), older.nodeEndpoints());
    }

    /** A consumer whose current leader epoch is stale (FENCED_LEADER_EPOCH) learns the leader's epoch from v16. */
    @Test
    void aStaleLeaderEpochIsFencedAndNamesTheCurrentEpoch() {
        MetadataImage before = broker.metadata.image();
        TopicImage topic = before.topic(TOPIC);
        PartitionState first = topic.partition(0);
        PartitionState second = first.withLeader(first.leader(), first.isr());
        broker.partitions.onChange(before, before.withTopic(new TopicImage(TOPIC, topic.id(), List.of(second),
                topic.configs(), topic.internal())));

        FetchResponse response = fetch(16, 0, 0, first.leaderEpoch());
        FetchResponse.PartitionData data = response.responses().get(0).partitions().get(0);
        assertEquals(Errors.FENCED_LEADER_EPOCH.code(), data.errorCode());
        assertEquals(1, data.currentLeader().leaderId());
        assertEquals(second.leaderEpoch(), data.currentLeader().leaderEpoch());
        assertEquals(1, response.nodeEndpoints().size());
    }
}

package io.krill.broker.api.handlers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.krill.controller.metadata.NewTopic;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ProduceRequest;
import io.krill.wire.message.ProduceResponse;
import io.krill.wire.protocol.ByteBufRecords;
import io.krill.wire.record.RecordBatchBuilder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * KIP-951 on Produce, as Kafka answers from v10: a producer told NOT_LEADER_OR_FOLLOWER learns the
 * partition's current leader, its epoch and the leader's endpoint, and resends there without waiting for
 * a Metadata refresh; below v10 the fields are not on the wire.
 */
@Timeout(60)
class ProduceLeaderHintTest {
    private static final String TOPIC = "produced";

    @TempDir
    Path dir;

    private HandlerFixture broker;
    private ProduceHandler handler;

    @BeforeEach
    void start() {
        broker = HandlerFixture.start(dir);
        broker.metadata.createTopic(NewTopic.of(TOPIC, 1, 1));
        handler = new ProduceHandler(broker.context);
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    private ProduceResponse produce(int version, short acks) {
        try (RecordBatchBuilder batch = new RecordBatchBuilder(UnpooledByteBufAllocator.DEFAULT)) {
            ByteBuf records = batch.append(1000L, "k".getBytes(StandardCharsets.UTF_8),
                    "v".getBytes(StandardCharsets.UTF_8)).build();
            try {
                ProduceRequest body = new ProduceRequest().setAcks(acks).setTimeoutMs(5_000).setTopicData(List.of(
                        new ProduceRequest.TopicProduceData().setName(TOPIC)
                                .setTopicId(broker.metadata.image().topic(TOPIC).id())
                                .setPartitionData(List.of(new ProduceRequest.PartitionProduceData().setIndex(0)
                                        .setRecords(ByteBufRecords.of(records))))));
                return broker.call(handler, version, body);
            } finally {
                records.release();
            }
        }
    }

    @Test
    void notLeaderNamesTheCurrentLeaderFromV10() {
        broker.partitions.stopLeading();
        for (short acks : new short[] {1, -1}) {
            ProduceResponse response = produce(10, acks);
            ProduceResponse.PartitionProduceResponse partition = response.responses().get(0).partitionResponses().get(0);
            assertEquals(Errors.NOT_LEADER_OR_FOLLOWER.code(), partition.errorCode(), "acks=" + acks);
            assertEquals(1, partition.currentLeader().leaderId(), "acks=" + acks);
            assertEquals(0, partition.currentLeader().leaderEpoch(), "acks=" + acks);
            assertEquals(1, response.nodeEndpoints().size(), "acks=" + acks);
            ProduceResponse.NodeEndpoint leader = response.nodeEndpoints().get(0);
            assertEquals(List.of(1, "127.0.0.1", 9092), List.of(leader.nodeId(), leader.host(), leader.port()));
        }

        ProduceResponse older = produce(9, (short) 1);
        assertEquals(-1, older.responses().get(0).partitionResponses().get(0).currentLeader().leaderId());
        assertEquals(List.of(), older.nodeEndpoints());
    }

    @Test
    void anAcceptedProduceNamesNoLeader() {
        ProduceResponse response = produce(11, (short) 1);
        ProduceResponse.PartitionProduceResponse partition = response.responses().get(0).partitionResponses().get(0);
        assertEquals(Errors.NONE.code(), partition.errorCode());
        assertEquals(-1, partition.currentLeader().leaderId());
        assertEquals(List.of(), response.nodeEndpoints());
    }
}

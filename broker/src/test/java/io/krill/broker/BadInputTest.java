package io.krill.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.testing.RawClient;
import io.krill.broker.testing.TestBroker;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.ApiVersionsRequest;
import io.krill.wire.message.ApiVersionsResponse;
import io.krill.wire.message.FetchRequest;
import io.krill.wire.message.FetchResponse;
import io.krill.wire.message.MetadataRequest;
import io.krill.wire.message.MetadataResponse;
import io.krill.wire.message.ProduceRequest;
import io.krill.wire.message.ProduceResponse;
import io.krill.wire.protocol.ByteBufRecords;
import io.krill.wire.record.RecordBatch;
import io.krill.wire.record.RecordBatchBuilder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What a broken or hostile client can send, over a raw socket: each gets the error code a Kafka
 * broker gives, or a closed connection where Kafka closes it, and afterwards the broker still serves
 * a well-behaved client with every earlier record intact.
 */
class BadInputTest {
    private static final short PRODUCE_V = 9;
    private static TestBroker broker;

    @BeforeAll
    static void start() throws Exception {
        broker = TestBroker.start(Map.of("auto.create.topics.enable", "false", "message.max.bytes", "10000"));
        broker.broker().metadata().createTopic(io.krill.controller.metadata.NewTopic.of("bad-input", 1, 1));
    }

    @AfterAll
    static void stop() {
        broker.close();
    }

    private static ByteBuf batch(int valueSize) {
        try (RecordBatchBuilder builder = new RecordBatchBuilder()) {
            byte[] value = new byte[valueSize];
            return builder.append(System.currentTimeMillis(), "k".getBytes(StandardCharsets.UTF_8), value).build();
        }
    }

    private static ProduceRequest produce(String topic, ByteBuf records) {
        ProduceRequest.PartitionProduceData data = new ProduceRequest.PartitionProduceData().setIndex(0)
                .setRecords(ByteBufRecords.of(records));
        return new ProduceRequest().setAcks((short) -1).setTimeoutMs(5000).setTopicData(List.of(
                new ProduceRequest.TopicProduceData().setName(topic).setPartitionData(List.of(data))));
    }

    private static ProduceResponse.PartitionProduceResponse produceOnce(String topic, ByteBuf records) throws Exception {
        try (RawClient client = new RawClient(broker.port())) {
            int id = client.send(ApiKeys.PRODUCE, PRODUCE_V, produce(topic, records));
            ProduceResponse response = client.receive(ApiKeys.PRODUCE, PRODUCE_V, id);
            return response.responses().get(0).partitionResponses().get(0);
        } finally {
            records.release();
        }
    }

    private static boolean closesAfter(byte[] bytes) throws Exception {
        try (RawClient client = new RawClient(broker.port())) {
            client.sendBytes(bytes);
            return client.isClosedByPeer();
        }
    }

    private static byte[] frame(int size, byte[] body) {
        ByteBuf buf = Unpooled.buffer().writeInt(size).writeBytes(body);
        return ByteBufUtil.getBytes(buf);
    }

    @Test
    void hugeAndNegativeLengthsCloseTheConnection() throws Exception {
        assertTrue(closesAfter(frame(Integer.MAX_VALUE, new byte[16])));
        assertTrue(closesAfter(frame(-1, new byte[16])));
        assertTrue(closesAfter(frame(104857601, new byte[16])));
    }

    @Test
    void truncatedHeaderAndUnknownKeyCloseTheConnection() throws Exception {
        assertTrue(closesAfter(frame(3, new byte[] {0, 18, 0})), "3-byte header");
        byte[] unknownKey = ByteBufUtil.getBytes(Unpooled.buffer().writeShort(9999).writeShort(0).writeInt(1).writeShort(-1));
        assertTrue(closesAfter(frame(unknownKey.length, unknownKey)), "unknown API key");
        byte[] garbageBody = ByteBufUtil.getBytes(Unpooled.buffer().writeShort(3).writeShort(12).writeInt(1)
                .writeShort(-1).writeByte(0).writeInt(-7));
        assertTrue(closesAfter(frame(garbageBody.length, garbageBody)), "Metadata v12 with a garbage body");
    }

    @Test
    void unsupportedApiVersionsVersionIsAnsweredWithV0AndItsOwnRange() throws Exception {
        try (RawClient client = new RawClient(broker.port())) {
            // A future ApiVersions v99 (flexible, header v2, empty tagged body) that no broker knows.
            byte[] request = ByteBufUtil.getBytes(Unpooled.buffer().writeShort(18).writeShort(99).writeInt(7)
                    .writeShort(-1).writeByte(0).writeByte(0).writeByte(0).writeByte(0));
            client.sendBytes(frame(request.length, request));
            ApiVersionsResponse response = client.receive(ApiKeys.API_VERSIONS, (short) 0, 7);
            assertEquals(Errors.UNSUPPORTED_VERSION.code(), response.errorCode());
            // As Kafka: only ApiVersions' own range, within which the client asks again.
            assertEquals(1, response.apiKeys().size(), response.toString());
            assertEquals(ApiKeys.API_VERSIONS.id(), response.apiKeys().get(0).apiKey());
            assertTrue(response.apiKeys().get(0).maxVersion() >= 3);
            int id = client.send(ApiKeys.API_VERSIONS, (short) 3, new ApiVersionsRequest()
                    .setClientSoftwareName("raw").setClientSoftwareVersion("1"));
            ApiVersionsResponse retried = client.receive(ApiKeys.API_VERSIONS, (short) 3, id);
            assertEquals(Errors.NONE.code(), retried.errorCode());
        }
    }

    @Test
    void unsupportedVersionOfAnotherApiClosesTheConnection() throws Exception {
        try (RawClient client = new RawClient(broker.port())) {
            client.send(ApiKeys.FETCH, (short) 3, new FetchRequest());
        } catch (RuntimeException expected) {
            // Fetch v3 is not in the schema: the client cannot even encode it; send bytes by hand instead.
        }
        byte[] fetchV2 = ByteBufUtil.getBytes(Unpooled.buffer().writeShort(1).writeShort(2).writeInt(1).writeShort(-1)
                .writeInt(-1).writeInt(500).writeInt(1).writeInt(0));
        assertTrue(closesAfter(frame(fetchV2.length, fetchV2)));
    }

    @Test
    void produceErrorsAreKafkasCodesAndNothingIsAppended() throws Exception {
        ByteBuf corrupt = batch(10);
        corrupt.setByte(RecordBatch.RECORDS_OFFSET + 2, corrupt.getByte(RecordBatch.RECORDS_OFFSET + 2) ^ 0x5A);
        assertEquals(Errors.CORRUPT_MESSAGE.code(), produceOnce("bad-input", corrupt).errorCode());

        assertEquals(Errors.MESSAGE_TOO_LARGE.code(), produceOnce("bad-input", batch(20_000)).errorCode());
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), produceOnce("no-such-topic", batch(10)).errorCode());

        ByteBuf two = Unpooled.wrappedBuffer(batch(10), batch(10));
        assertEquals(Errors.INVALID_RECORD.code(), produceOnce("bad-input", two).errorCode());

        ProduceResponse.PartitionProduceResponse ok = produceOnce("bad-input", batch(10));
        assertEquals(Errors.NONE.code(), ok.errorCode());
        assertEquals(broker.broker().partitions().partition("bad-input", 0).logEndOffset() - 1, ok.baseOffset(),
                "only the good batch was appended");
    }

    @Test
    void theBrokerKeepsServingAndKeepsEarlierData() throws Exception {
        ProduceResponse.PartitionProduceResponse first = produceOnce("bad-input", batch(100));
        assertEquals(Errors.NONE.code(), first.errorCode());
        for (int i = 0; i < 20; i++) {
            closesAfter(frame(Integer.MAX_VALUE, new byte[8]));
            closesAfter(frame(5, new byte[] {1, 2, 3, 4, 5}));
        }
        try (RawClient client = new RawClient(broker.port())) {
            int id = client.send(ApiKeys.METADATA, (short) 12, new MetadataRequest().setTopics(null));
            MetadataResponse metadata = client.receive(ApiKeys.METADATA, (short) 12, id);
            assertTrue(metadata.topics().stream().anyMatch(t -> t.name().equals("bad-input")));
            FetchRequest fetch = new FetchRequest().setMaxWaitMs(0).setMinBytes(1).setMaxBytes(1 << 20)
                    .setReplicaId(-1).setSessionEpoch(-1)
                    .setTopics(List.of(new FetchRequest.FetchTopic().setTopic("bad-input").setPartitions(List.of(
                            new FetchRequest.FetchPartition().setPartition(0).setFetchOffset(first.baseOffset())
                                    .setPartitionMaxBytes(1 << 20)))));
            id = client.send(ApiKeys.FETCH, (short) 11, fetch);
            FetchResponse response = client.receive(ApiKeys.FETCH, (short) 11, id);
            FetchResponse.PartitionData data = response.responses().get(0).partitions().get(0);
            assertEquals(Errors.NONE.code(), data.errorCode());
            ByteBuf records = data.records().buffer();
            RecordBatch read = new RecordBatch().wrap(records, records.readerIndex());
            assertEquals(first.baseOffset(), read.baseOffset());
            read.validate(records.readableBytes());
            assertFalse(client.isClosedByPeer(300), "a good client stays connected");
        }
    }
}

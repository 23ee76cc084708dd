package io.krill.broker.share;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.testing.RawClient;
import io.krill.broker.testing.TestBroker;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.CreateTopicsRequest;
import io.krill.wire.message.IncrementalAlterConfigsRequest;
import io.krill.wire.message.MetadataRequest;
import io.krill.wire.message.MetadataResponse;
import io.krill.wire.message.ProduceRequest;
import io.krill.wire.message.ProduceResponse;
import io.krill.wire.message.ShareAcknowledgeRequest;
import io.krill.wire.message.ShareAcknowledgeResponse;
import io.krill.wire.message.ShareFetchRequest;
import io.krill.wire.message.ShareFetchResponse;
import io.krill.wire.protocol.ByteBufRecords;
import io.krill.wire.record.RecordBatchBuilder;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One member's share session on one connection, over a raw socket: the epochs ShareFetch and
 * ShareAcknowledge must carry, acquisitions and their delivery counts, acknowledgements of records the
 * member does not hold, and what closing the session (epoch -1) gives back.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ShareFetchSessionTest {
    private static final String TOPIC = "share-session";
    private static final String GROUP = "share-session-group";
    private static final String MEMBER = "c2hhcmUtc2Vzc2lvbi1tZW1i";
    private static TestBroker broker;
    private static RawClient client;
    private static UUID topicId;

    @BeforeAll
    static void start() throws Exception {
        broker = TestBroker.start(Map.of());
        client = new RawClient(broker.port());
        client.call(ApiKeys.CREATE_TOPICS, (short) 7, new CreateTopicsRequest().setTimeoutMs(10_000).setTopics(List.of(
                new CreateTopicsRequest.CreatableTopic().setName(TOPIC).setNumPartitions(1).setReplicationFactor((short) 1))));
        client.call(ApiKeys.INCREMENTAL_ALTER_CONFIGS, (short) 1, new IncrementalAlterConfigsRequest().setResources(
                List.of(new IncrementalAlterConfigsRequest.AlterConfigsResource().setResourceType((byte) 32)
                        .setResourceName(GROUP).setConfigs(List.of(new IncrementalAlterConfigsRequest.AlterableConfig()
                                .setName("share.auto.offset.reset").setValue("earliest").setConfigOperation((byte) 0))))));
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
            MetadataResponse metadata = client.call(ApiKeys.METADATA, (short) 12, new MetadataRequest().setTopics(List.of(
                    new MetadataRequest.MetadataRequestTopic().setName(TOPIC))));
            topicId = metadata.topics().get(0).topicId();
            return metadata.topics().get(0).errorCode() == 0 && !metadata.topics().get(0).partitions().isEmpty();
        });
        ByteBuf batch;
        try (RecordBatchBuilder builder = new RecordBatchBuilder()) {
            for (int i = 0; i < 10; i++) {
                builder.append(System.currentTimeMillis(), null, ("v" + i).getBytes(StandardCharsets.UTF_8));
            }
            batch = builder.build();
        }
        try {
            ProduceResponse produced = client.call(ApiKeys.PRODUCE, (short) 11, new ProduceRequest().setAcks((short) -1)
                    .setTimeoutMs(5000).setTopicData(List.of(new ProduceRequest.TopicProduceData().setName(TOPIC)
                            .setPartitionData(List.of(new ProduceRequest.PartitionProduceData().setIndex(0)
                                    .setRecords(ByteBufRecords.of(batch)))))));
            assertEquals(0, produced.responses().get(0).partitionResponses().get(0).errorCode());
        } finally {
            batch.release();
        }
    }

    @AfterAll
    static void stop() throws Exception {
        client.close();
        broker.close();
    }

    private static ShareFetchResponse fetch(int epoch, int maxWaitMs, List<ShareFetchRequest.AcknowledgementBatch> acks)
            throws Exception {
        return client.call(ApiKeys.SHARE_FETCH, (short) 2, new ShareFetchRequest().setGroupId(GROUP).setMemberId(MEMBER)
                .setShareSessionEpoch(epoch).setMaxWaitMs(maxWaitMs).setMinBytes(1).setMaxBytes(1 << 20)
                .setMaxRecords(100).setBatchSize(100).setTopics(List.of(new ShareFetchRequest.FetchTopic()
                        .setTopicId(topicId).setPartitions(List.of(new ShareFetchRequest.FetchPartition()
                                .setPartitionIndex(0).setAcknowledgementBatches(acks))))));
    }

    private static ShareAcknowledgeResponse acknowledge(int epoch, long first, long last, List<Byte> types)
            throws Exception {
        ShareAcknowledgeRequest request = new ShareAcknowledgeRequest().setGroupId(GROUP).setMemberId(MEMBER)
                .setShareSessionEpoch(epoch);
        if (types != null) {
            request.setTopics(List.of(new ShareAcknowledgeRequest.AcknowledgeTopic().setTopicId(topicId)
                    .setPartitions(List.of(new ShareAcknowledgeRequest.AcknowledgePartition().setPartitionIndex(0)
                            .setAcknowledgementBatches(List.of(new ShareAcknowledgeRequest.AcknowledgementBatch()
                                    .setFirstOffset(first).setLastOffset(last).setAcknowledgeTypes(types)))))));
        }
        return client.call(ApiKeys.SHARE_ACKNOWLEDGE, (short) 2, request);
    }

    private static List<ShareFetchResponse.AcquiredRecords> acquired(ShareFetchResponse response) {
        assertEquals(0, response.errorCode(), "top-level error " + response.errorCode());
        return response.responses().isEmpty() ? List.of()
                : response.responses().get(0).partitions().get(0).acquiredRecords();
    }

    private static ShareFetchResponse.AcquiredRecords range(long first, long last, int count) {
        return new ShareFetchResponse.AcquiredRecords().setFirstOffset(first).setLastOffset(last)
                .setDeliveryCount((short) count);
    }

    @Test
    void aMembersSessionFromOpeningToClosing() throws Exception {
        List<ShareFetchResponse.AcquiredRecords> first = acquired(fetch(0, 10_000, List.of()));
        assertEquals(List.of(range(0, 9, 1)), first, "the session's first fetch waits for the share-partition to load");

        assertEquals(Errors.INVALID_SHARE_SESSION_EPOCH.code(), fetch(3, 0, List.of()).errorCode());
        ShareAcknowledgeResponse acked = acknowledge(1, 0, 9, List.of((byte) 1, (byte) 1, (byte) 1, (byte) 1,
                (byte) 1, (byte) 2, (byte) 2, (byte) 2, (byte) 2, (byte) 2));
        assertEquals(0, acked.responses().get(0).partitions().get(0).errorCode());
        assertEquals(30_000, acked.acquisitionLockTimeoutMs());

        assertEquals(List.of(range(5, 9, 2)), acquired(fetch(2, 10_000, List.of())), "only the released records");
        ShareAcknowledgeResponse again = acknowledge(3, 0, 0, List.of((byte) 1));
        assertEquals(Errors.INVALID_RECORD_STATE.code(), again.responses().get(0).partitions().get(0).errorCode(),
                "record 0 is accepted already");
        ShareAcknowledgeResponse badTypes = acknowledge(4, 5, 6, List.of((byte) 1, (byte) 1, (byte) 1));
        assertEquals(Errors.INVALID_REQUEST.code(), badTypes.responses().get(0).partitions().get(0).errorCode(),
                "three types for two offsets");

        assertEquals(0, acknowledge(-1, 0, 0, null).errorCode(), "closing the session releases 5-9");
        assertEquals(Errors.SHARE_SESSION_NOT_FOUND.code(), fetch(6, 0, List.of()).errorCode());
        List<ShareFetchResponse.AcquiredRecords> reopened = acquired(fetch(0, 10_000, List.of()));
        assertEquals(List.of(range(5, 9, 3)), reopened, "delivered a third time in a new session");
        ShareFetchResponse accepting = fetch(1, 0, List.of(new ShareFetchRequest.AcknowledgementBatch()
                .setFirstOffset(5).setLastOffset(9).setAcknowledgeTypes(List.of((byte) 1))));
        assertEquals(0, accepting.responses().get(0).partitions().get(0).acknowledgeErrorCode());
        assertTrue(accepting.responses().get(0).partitions().get(0).acquiredRecords().isEmpty(), "nothing is left");
    }
}

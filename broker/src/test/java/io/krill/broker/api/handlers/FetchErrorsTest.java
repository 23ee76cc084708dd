package io.krill.broker.api.handlers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.krill.broker.security.KafkaPrincipal;
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
        FetchRequest body = new FetchRequest().setReplicaId(-1).setMaxWaitMs(0).setMinBytes(0).setMaxBytes(1 << 20)
                .setTopics(List.of(new FetchRequest.FetchTopic().setTopic(TOPIC).setTopicId(
                        broker.metadata.image().topic(TOPIC).id()).setPartitions(List.of(
                        new FetchRequest.FetchPartition().setPartition(partition).setFetchOffset(offset)
                                .setPartitionMaxBytes(1 << 16).setCurrentLeaderEpoch(-1)))));
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
}

package io.krill.broker.api.handlers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.krill.controller.metadata.NewTopic;
import io.krill.controller.metadata.PartitionState;
import io.krill.wire.error.Errors;
import io.krill.wire.message.DescribeTopicPartitionsRequest;
import io.krill.wire.message.DescribeTopicPartitionsResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DescribeTopicPartitionsHandlerTest {
    @TempDir
    Path dir;
    private HandlerFixture broker;
    private DescribeTopicPartitionsHandler handler;

    @BeforeEach
    void start() {
        broker = HandlerFixture.start(dir);
        handler = new DescribeTopicPartitionsHandler(broker.context);
        broker.metadata.createTopic(NewTopic.of("a", 3, 1));
        broker.metadata.createTopic(NewTopic.of("b", 1, 1));
        broker.metadata.createTopic(NewTopic.of("c", 2, 1));
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    private DescribeTopicPartitionsResponse describe(int limit, DescribeTopicPartitionsRequest.Cursor cursor,
                                                     String... topics) {
        DescribeTopicPartitionsRequest request = new DescribeTopicPartitionsRequest().setResponsePartitionLimit(limit)
                .setCursor(cursor);
        for (String topic : topics) {
            request.topics().add(new DescribeTopicPartitionsRequest.TopicRequest().setName(topic));
        }
        return broker.call(handler, 0, request);
    }

    /** "topic:first-last" per topic, then "-> topic:partition" for the next cursor. */
    private static String shape(DescribeTopicPartitionsResponse response) {
        List<String> parts = new ArrayList<>();
        for (DescribeTopicPartitionsResponse.DescribeTopicPartitionsResponseTopic topic : response.topics()) {
            List<DescribeTopicPartitionsResponse.DescribeTopicPartitionsResponsePartition> ps = topic.partitions();
            parts.add(topic.errorCode() != 0 ? topic.name() + ":" + Errors.forCode(topic.errorCode())
                    : topic.name() + ":" + ps.get(0).partitionIndex() + "-" + ps.get(ps.size() - 1).partitionIndex());
        }
        if (response.nextCursor() != null) {
            parts.add("-> " + response.nextCursor().topicName() + ":" + response.nextCursor().partitionIndex());
        }
        return String.join(" ", parts);
    }

    private static DescribeTopicPartitionsRequest.Cursor cursor(String topic, int partition) {
        return new DescribeTopicPartitionsRequest.Cursor().setTopicName(topic).setPartitionIndex(partition);
    }

    @Test
    void pagesThroughEveryTopicInNameOrder() {
        assertEquals("a:0-2 b:0-0 c:0-1", shape(describe(2000, null)));
        assertEquals("a:0-1 -> a:2", shape(describe(2, null)));
        assertEquals("a:2-2 b:0-0 -> c:0", shape(describe(2, cursor("a", 2))));
        assertEquals("c:0-1", shape(describe(2, cursor("c", 0))));
        assertEquals("a:0-2 -> b:0", shape(describe(3, null)));
    }

    @Test
    void requestedTopicsIncludeUnknownOnesWithAnError() {
        assertEquals("b:0-0 c:0-1 zz:UNKNOWN_TOPIC_OR_PARTITION", shape(describe(10, null, "zz", "c", "b")));
        assertEquals("bad name:INVALID_TOPIC_EXCEPTION", shape(describe(10, null, "bad name")));
        assertEquals("c:1-1", shape(describe(10, cursor("c", 1), "c", "a")), "topics before the cursor are skipped");
    }

    @Test
    void describesPartitionsAsTheClusterKnowsThem() {
        DescribeTopicPartitionsResponse.DescribeTopicPartitionsResponseTopic a = describe(10, null, "a").topics().get(0);
        assertEquals(broker.metadata.image().topic("a").id(), a.topicId());
        assertEquals(AuthorizedOperations.TOPIC, a.topicAuthorizedOperations());
        DescribeTopicPartitionsResponse.DescribeTopicPartitionsResponsePartition p = a.partitions().get(1);
        assertEquals(1, p.leaderId());
        assertEquals(0, p.leaderEpoch());
        assertEquals(List.of(1), p.replicaNodes());
        assertEquals(List.of(1), p.isrNodes());
        assertEquals(List.of(), p.eligibleLeaderReplicas());
        assertEquals(List.of(), p.offlineReplicas());
    }

    @Test
    void eligibleLeaderReplicasAndTheLastKnownOnesAreDescribed() {
        PartitionState withElr = new PartitionState(0, PartitionState.NO_LEADER, 4, List.of(1, 2, 3), List.of(), 9,
                List.of(), List.of(), List.of(2, 3), List.of());
        DescribeTopicPartitionsResponse.DescribeTopicPartitionsResponsePartition p =
                DescribeTopicPartitionsHandler.partition(broker.metadata.image(), withElr, "PLAINTEXT");
        assertEquals(List.of(2, 3), p.eligibleLeaderReplicas());
        assertEquals(List.of(), p.lastKnownElr());
        assertEquals(List.of(), p.isrNodes());
        assertEquals(List.of(2, 3), p.offlineReplicas(), "brokers 2 and 3 do not exist here");

        PartitionState lastKnown = new PartitionState(0, PartitionState.NO_LEADER, 5, List.of(1, 2, 3), List.of(), 10,
                List.of(), List.of(), List.of(), List.of(3));
        assertEquals(List.of(3), DescribeTopicPartitionsHandler.partition(broker.metadata.image(), lastKnown,
                "PLAINTEXT").lastKnownElr());
    }

    @Test
    void aCursorOutsideTheRequestIsInvalid() {
        assertEquals(Errors.INVALID_REQUEST.code(), describe(10, cursor("b", 0), "c").topics().get(0).errorCode());
        assertEquals(Errors.INVALID_REQUEST.code(), describe(10, cursor("a", -1), "a").topics().get(0).errorCode());
        assertNull(describe(10, null, "c").nextCursor());
    }
}

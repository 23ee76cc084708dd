package io.krill.compat.differential;

import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.ShareAcknowledgeRequest;
import io.krill.wire.message.ShareFetchRequest;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * ShareFetch and ShareAcknowledge (KIP-932) as a Kafka 4.4 partition leader answers them, field by field:
 * share sessions (an unknown session, acknowledgements in the request that opens a session, ShareAcknowledge
 * at epoch 0), unknown topic ids. Not compared: what a member's first fetch answers (Kafka 4.4 sometimes
 * lists a partition with nothing acquired, sometimes not, by when it initialized the share-partition), and
 * a session's later epochs: a share session lives as long as its connection on both (Kafka 4.4 drops it
 * when the connection closes, as Krill does) and this harness sends each request on a connection of its
 * own, so they are tested on the broker alone (ShareFetchSessionTest in broker/).
 */
class ShareFetchConformanceTest extends DifferentialTest {

    private static String member(String group) {
        return BrokerSide.clientMemberId(group);
    }

    static ShareFetchRequest fetch(String group, int epoch, UUID topicId, int partition) {
        ShareFetchRequest request = new ShareFetchRequest().setGroupId(group).setMemberId(member(group))
                .setShareSessionEpoch(epoch).setMaxWaitMs(0).setMinBytes(1).setMaxBytes(1 << 20)
                .setMaxRecords(100).setBatchSize(100);
        if (topicId != null) {
            request.topics().add(new ShareFetchRequest.FetchTopic().setTopicId(topicId).setPartitions(List.of(
                    new ShareFetchRequest.FetchPartition().setPartitionIndex(partition))));
        }
        return request;
    }

    static ShareFetchRequest.AcknowledgementBatch ackBatch(long first, long last, List<Byte> types) {
        return new ShareFetchRequest.AcknowledgementBatch().setFirstOffset(first).setLastOffset(last)
                .setAcknowledgeTypes(types);
    }

    static ShareAcknowledgeRequest acknowledge(String group, int epoch, UUID topicId, long first, long last) {
        return new ShareAcknowledgeRequest().setGroupId(group).setMemberId(member(group)).setShareSessionEpoch(epoch)
                .setTopics(List.of(new ShareAcknowledgeRequest.AcknowledgeTopic().setTopicId(topicId).setPartitions(
                        List.of(new ShareAcknowledgeRequest.AcknowledgePartition().setPartitionIndex(0)
                                .setAcknowledgementBatches(List.of(new ShareAcknowledgeRequest.AcknowledgementBatch()
                                        .setFirstOffset(first).setLastOffset(last)
                                        .setAcknowledgeTypes(List.of((byte) 1))))))));
    }

    @Test
    void shareSessions() {
        String topic = "diff-sf-sessions";
        both(side -> side.createTopic(topic, 1));
        sequence("ShareFetch in a share session that does not exist (epoch 3)", ApiKeys.SHARE_FETCH)
                .request((side, version) -> fetch("diff-sf-none", 3, side.topicId(topic), 0))
                .expect("/errorCode", Errors.SHARE_SESSION_NOT_FOUND)
                .run();
        sequence("ShareFetch opening a share session with acknowledgements", ApiKeys.SHARE_FETCH)
                .request((side, version) -> {
                    ShareFetchRequest request = fetch("diff-sf-open-acks", 0, side.topicId(topic), 0);
                    request.topics().get(0).partitions().get(0).acknowledgementBatches()
                            .add(ackBatch(0, 0, List.of((byte) 1)));
                    return request;
                })
                .expect("/errorCode", Errors.INVALID_REQUEST)
                .run();
        sequence("ShareAcknowledge at epoch 0", ApiKeys.SHARE_ACKNOWLEDGE)
                .request((side, version) -> acknowledge("diff-sf-ack0", 0, side.topicId(topic), 0, 0))
                .expect("/errorCode", Errors.INVALID_SHARE_SESSION_EPOCH)
                .run();
        sequence("ShareAcknowledge in a share session that does not exist", ApiKeys.SHARE_ACKNOWLEDGE)
                .request((side, version) -> acknowledge("diff-sf-ack-none", 4, side.topicId(topic), 0, 0))
                .expect("/errorCode", Errors.SHARE_SESSION_NOT_FOUND)
                .run();
    }

    @Test
    void unknownTopicIds() {
        sequence("ShareFetch opening a share session on an unknown topic id", ApiKeys.SHARE_FETCH)
                .request((side, version) -> fetch("diff-sf-unknown", 0,
                        UUID.fromString("00000000-0000-0000-0000-00000000abcd"), 0))
                .run();
    }
}

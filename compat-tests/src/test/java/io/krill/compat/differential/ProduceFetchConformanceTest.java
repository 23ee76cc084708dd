package io.krill.compat.differential;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.CreateTopicsRequest;
import java.util.List;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * Produce, Fetch, ListOffsets and OffsetForLeaderEpoch as the 4.4 producer and consumer send them: the
 * happy path once, then unknown topics and partitions, offsets out of range, invalid acks, and a
 * current leader epoch from the future. (A stale epoch cannot be made on the shared nodes: a new partition's
 * leader epoch is 0 on both brokers and -1 means "none"; {@link LeaderEpochConformanceTest} restarts a pair
 * of its own to raise it.)
 */
class ProduceFetchConformanceTest extends DifferentialTest {

    // ---- Produce

    @Test
    void produceToAnUnknownTopic() {
        sequence("Produce to an unknown topic", ApiKeys.PRODUCE)
                .request((side, version) -> ClientRequests.produce("diff-pr-unknown", UNKNOWN_TOPIC_ID, 0, 1))
                .expect("/responses/0/partitionResponses/0/errorCode",
                        version -> version >= 13 ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION)
                .run();
    }

    @Test
    void produceToAnUnknownPartition() {
        both(side -> side.createTopic("diff-pr-partition", 1));
        sequence("Produce to an unknown partition", ApiKeys.PRODUCE)
                .request((side, version) -> ClientRequests.produce("diff-pr-partition", side.topicId("diff-pr-partition"),
                        7, 1))
                .expect("/responses/0/partitionResponses/0/errorCode", Errors.UNKNOWN_TOPIC_OR_PARTITION)
                .run();
    }

    @Test
    void produceWithInvalidAcks() {
        both(side -> side.createTopic("diff-pr-acks", 1));
        sequence("Produce with acks=2", ApiKeys.PRODUCE)
                .request((side, version) -> ClientRequests.produce("diff-pr-acks", side.topicId("diff-pr-acks"), 0, 1,
                        (short) 2))
                .expect("/responses/0/partitionResponses/0/errorCode", Errors.INVALID_REQUIRED_ACKS)
                .run();
    }

    @Test
    void produceOfKeylessRecordsToACompactedTopic() {
        both(side -> side.createTopic(ClientRequests.topic("diff-pr-compact", 1, 1).setConfigs(List.of(
                new CreateTopicsRequest.CreatableTopicConfig().setName("cleanup.policy").setValue("compact")))));
        sequence("Produce of records without keys to a compacted topic", ApiKeys.PRODUCE)
                .request((side, version) -> ClientRequests.produce("diff-pr-compact", side.topicId("diff-pr-compact"), 0,
                        ClientRequests.keylessBatch(2), (short) -1))
                .expect("/responses/0/partitionResponses/0/errorCode", Errors.INVALID_RECORD)
                .run();
    }

    @Test
    void produceOfABatch() {
        both(side -> side.createTopic("diff-pr-batch", 1));
        sequence("Produce of 3 records, acks=all (each version appends at the next offset)", ApiKeys.PRODUCE)
                .request((side, version) -> ClientRequests.produce("diff-pr-batch", side.topicId("diff-pr-batch"), 0, 3))
                .expect("/responses/0/partitionResponses/0/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void produceWithAcksOne() {
        both(side -> side.createTopic("diff-pr-acks1", 1));
        sequence("Produce of 2 records, acks=1", ApiKeys.PRODUCE)
                .request((side, version) -> ClientRequests.produce("diff-pr-acks1", side.topicId("diff-pr-acks1"), 0, 2,
                        (short) 1))
                .expect("/responses/0/partitionResponses/0/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void idempotentProduceSequences() {
        both(side -> {
            side.createTopic("diff-pr-idem", 1);
            side.awaitProducerIds();
            side.keepIdempotent("diff-pr-idem");
        });
        sequence("idempotent Produce of sequence 0", ApiKeys.PRODUCE).from(highest(ApiKeys.PRODUCE))
                .request((side, version) -> idempotent(side, "diff-pr-idem", side.idempotent("diff-pr-idem").epoch(), 0))
                .expect("/responses/0/partitionResponses/0/errorCode", Errors.NONE)
                .run();
        sequence("idempotent Produce of the same batch again (a duplicate: its first offset back)", ApiKeys.PRODUCE)
                .request((side, version) -> idempotent(side, "diff-pr-idem", side.idempotent("diff-pr-idem").epoch(), 0))
                .expect("/responses/0/partitionResponses/0/errorCode", Errors.NONE)
                .run();
        sequence("idempotent Produce with a sequence gap", ApiKeys.PRODUCE)
                .request((side, version) -> idempotent(side, "diff-pr-idem", side.idempotent("diff-pr-idem").epoch(), 9))
                .expect("/responses/0/partitionResponses/0/errorCode", Errors.OUT_OF_ORDER_SEQUENCE_NUMBER)
                .run();
        sequence("DescribeProducers of the partition", ApiKeys.DESCRIBE_PRODUCERS)
                .request((side, version) -> TransactionRequests.describeProducers("diff-pr-idem", 0))
                .expect("/topics/0/partitions/0/errorCode", Errors.NONE)
                .run();
    }

    /** A producer the partition does not know yet may start at any sequence (its state may have expired). */
    @Test
    void idempotentProduceOfANewProducerNotAtSequenceZero() {
        both(side -> {
            side.createTopic("diff-pr-idem-new", 1);
            side.awaitProducerIds();
        });
        sequence("idempotent Produce of a new producer at sequence 5", ApiKeys.PRODUCE)
                .setUp((side, version) -> side.keepIdempotent("diff-pr-idem-new"))
                .request((side, version) -> idempotent(side, "diff-pr-idem-new",
                        side.idempotent("diff-pr-idem-new").epoch(), 5))
                .expect("/responses/0/partitionResponses/0/errorCode", Errors.NONE)
                .run();
    }

    /** A batch of 2 records of this side's idempotent producer kept as {@code topic}, at {@code sequence}. */
    private static io.krill.wire.message.ProduceRequest idempotent(BrokerSide side, String topic, short epoch,
                                                                   int sequence) {
        BrokerSide.Producer producer = side.idempotent(topic);
        return ClientRequests.produce(topic, side.topicId(topic), 0,
                ClientRequests.idempotentBatch(producer.producerId(), epoch, sequence, 2), (short) -1);
    }

    // ---- Fetch

    @Test
    void fetchOfAnUnknownPartition() {
        both(side -> side.createTopic("diff-fe-partition", 1));
        sequence("Fetch of an unknown partition", ApiKeys.FETCH)
                .request((side, version) -> ClientRequests.fetch("diff-fe-partition", side.topicId("diff-fe-partition"),
                        7, 0L, -1))
                .expect("/responses/0/partitions/0/errorCode", Errors.UNKNOWN_TOPIC_OR_PARTITION)
                .run();
    }

    @Test
    void fetchOfAnUnknownTopicId() {
        sequence("Fetch of an unknown topic id", ApiKeys.FETCH).from(13)
                .request((side, version) -> ClientRequests.fetch("diff-fe-unknown", UNKNOWN_TOPIC_ID, 0, 0L, -1))
                .expect("/responses/0/partitions/0/errorCode", Errors.UNKNOWN_TOPIC_ID)
                .run();
    }

    @Test
    void fetchOfAnOffsetPastTheEnd() {
        both(side -> {
            side.createTopic("diff-fe-end", 1);
            side.produce("diff-fe-end", 0, 3);
        });
        sequence("Fetch of an offset past the end", ApiKeys.FETCH)
                .request((side, version) -> ClientRequests.fetch("diff-fe-end", side.topicId("diff-fe-end"), 0, 100L,
                        side.leaderEpoch("diff-fe-end", 0)))
                .expect("/responses/0/partitions/0/errorCode", Errors.OFFSET_OUT_OF_RANGE)
                .check(answers -> answers.both().forEach(answer -> {
                    JsonNode records = answer.at("/responses/0/partitions/0/records");
                    assertTrue(records.isBinary() && records.asText().isEmpty(),
                            "an out-of-range fetch carries an empty (not null) record set: " + records);
                }))
                .run();
    }

    @Test
    void fetchOfRecords() {
        both(side -> {
            side.createTopic("diff-fe-records", 1);
            side.produce("diff-fe-records", 0, 3);
            side.produce("diff-fe-records", 0, 2);
        });
        sequence("Fetch of two batches from offset 0", ApiKeys.FETCH)
                .request((side, version) -> ClientRequests.fetch("diff-fe-records", side.topicId("diff-fe-records"), 0,
                        0L, side.leaderEpoch("diff-fe-records", 0)))
                .expect("/responses/0/partitions/0/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void fetchWithAFutureLeaderEpoch() {
        both(side -> {
            side.createTopic("diff-fe-future", 1);
            side.produce("diff-fe-future", 0, 1);
        });
        sequence("Fetch with current_leader_epoch one past the leader's", ApiKeys.FETCH).from(9)
                .request((side, version) -> ClientRequests.fetch("diff-fe-future", side.topicId("diff-fe-future"), 0, 0L,
                        side.leaderEpoch("diff-fe-future", 0) + 1))
                .expect("/responses/0/partitions/0/errorCode", Errors.UNKNOWN_LEADER_EPOCH)
                .run();
    }

    // ---- ListOffsets

    @Test
    void listOffsetsOfAnUnknownPartition() {
        both(side -> side.createTopic("diff-lo-partition", 1));
        sequence("ListOffsets of an unknown partition", ApiKeys.LIST_OFFSETS)
                .request((side, version) -> ClientRequests.listLatestOffset("diff-lo-partition", 7))
                .expect("/topics/0/partitions/0/errorCode", Errors.UNKNOWN_TOPIC_OR_PARTITION)
                .run();
    }

    @Test
    void listOffsetsOfAnUnknownTopic() {
        sequence("ListOffsets of an unknown topic", ApiKeys.LIST_OFFSETS)
                .request((side, version) -> ClientRequests.listLatestOffset("diff-lo-unknown", 0))
                .expect("/topics/0/partitions/0/errorCode", Errors.UNKNOWN_TOPIC_OR_PARTITION)
                .run();
    }

    @Test
    void listOffsetsLatestEarliestAndMaxTimestamp() {
        both(side -> {
            side.createTopic("diff-lo-records", 1);
            side.produce("diff-lo-records", 0, 3);
        });
        sequence("ListOffsets latest", ApiKeys.LIST_OFFSETS)
                .request((side, version) -> ClientRequests.listOffsets("diff-lo-records", 0, -1L, -1))
                .expect("/topics/0/partitions/0/errorCode", Errors.NONE)
                .run();
        sequence("ListOffsets earliest", ApiKeys.LIST_OFFSETS)
                .request((side, version) -> ClientRequests.listOffsets("diff-lo-records", 0, -2L, -1))
                .expect("/topics/0/partitions/0/errorCode", Errors.NONE)
                .run();
        sequence("ListOffsets max timestamp", ApiKeys.LIST_OFFSETS).from(7)
                .request((side, version) -> ClientRequests.listOffsets("diff-lo-records", 0, -3L, -1))
                .expect("/topics/0/partitions/0/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void listOffsetsMaxTimestampOfRecordsWithoutTimestamps() {
        both(side -> {
            side.createTopic("diff-lo-no-time", 1);
            side.produce("diff-lo-no-time", 0, ClientRequests.batch(3, false));
        });
        sequence("ListOffsets max timestamp of records without timestamps", ApiKeys.LIST_OFFSETS).from(7)
                .request((side, version) -> ClientRequests.listOffsets("diff-lo-no-time", 0, -3L, -1))
                .expect("/topics/0/partitions/0/errorCode", Errors.NONE)
                .run();
    }

    /**
     * The largest timestamp is in an open transaction, past the last stable offset: read_committed gets no
     * answer (offset -1), read_uncommitted the record.
     */
    @Test
    void listOffsetsMaxTimestampPastTheLastStableOffset() {
        both(side -> {
            side.createTopic("diff-lo-max-open", 1);
            side.produce("diff-lo-max-open", 0, 2);
            BrokerSide.Producer producer = side.initTransactional("diff-txn-lo-max-open");
            side.keep(producer);
            side.addPartition(producer, "diff-lo-max-open");
            side.produceTransactional(producer, "diff-lo-max-open", 3);
        });
        sequence("ListOffsets max timestamp, read_committed, in an open transaction", ApiKeys.LIST_OFFSETS).from(7)
                .request((side, version) -> ClientRequests.listOffsets("diff-lo-max-open", 0, -3L, -1, true))
                .expect("/topics/0/partitions/0/errorCode", Errors.NONE)
                .run();
        sequence("ListOffsets max timestamp, read_uncommitted, in an open transaction", ApiKeys.LIST_OFFSETS).from(7)
                .request((side, version) -> ClientRequests.listOffsets("diff-lo-max-open", 0, -3L, -1, false))
                .expect("/topics/0/partitions/0/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void listOffsetsWithAFutureLeaderEpoch() {
        both(side -> side.createTopic("diff-lo-future", 1));
        sequence("ListOffsets with current_leader_epoch one past the leader's", ApiKeys.LIST_OFFSETS).from(4)
                .request((side, version) -> ClientRequests.listOffsets("diff-lo-future", 0, -1L,
                        side.leaderEpoch("diff-lo-future", 0) + 1))
                .expect("/topics/0/partitions/0/errorCode", Errors.UNKNOWN_LEADER_EPOCH)
                .run();
    }

    // ---- OffsetForLeaderEpoch

    @Test
    void offsetForLeaderEpochOfTheCurrentEpoch() {
        both(side -> {
            side.createTopic("diff-ofle", 1);
            side.produce("diff-ofle", 0, 3);
        });
        sequence("OffsetForLeaderEpoch of the current epoch", ApiKeys.OFFSET_FOR_LEADER_EPOCH)
                .request((side, version) -> ClientRequests.offsetForLeaderEpoch("diff-ofle", 0,
                        side.leaderEpoch("diff-ofle", 0), side.leaderEpoch("diff-ofle", 0)))
                .expect("/topics/0/partitions/0/errorCode", Errors.NONE)
                .run();
        sequence("OffsetForLeaderEpoch of an epoch after the current one", ApiKeys.OFFSET_FOR_LEADER_EPOCH)
                .request((side, version) -> ClientRequests.offsetForLeaderEpoch("diff-ofle", 0,
                        side.leaderEpoch("diff-ofle", 0), side.leaderEpoch("diff-ofle", 0) + 5))
                .expect("/topics/0/partitions/0/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void offsetForLeaderEpochWithAFutureCurrentLeaderEpoch() {
        both(side -> side.createTopic("diff-ofle-future", 1));
        sequence("OffsetForLeaderEpoch with current_leader_epoch one past the leader's", ApiKeys.OFFSET_FOR_LEADER_EPOCH)
                .request((side, version) -> ClientRequests.offsetForLeaderEpoch("diff-ofle-future", 0,
                        side.leaderEpoch("diff-ofle-future", 0) + 1, 0))
                .expect("/topics/0/partitions/0/errorCode", Errors.UNKNOWN_LEADER_EPOCH)
                .run();
    }

    @Test
    void offsetForLeaderEpochOfAnUnknownPartition() {
        both(side -> side.createTopic("diff-ofle-partition", 1));
        sequence("OffsetForLeaderEpoch of an unknown partition", ApiKeys.OFFSET_FOR_LEADER_EPOCH)
                .request((side, version) -> ClientRequests.offsetForLeaderEpoch("diff-ofle-partition", 4, -1, 0))
                .expect("/topics/0/partitions/0/errorCode", Errors.UNKNOWN_TOPIC_OR_PARTITION)
                .run();
    }
}

package io.krill.compat.differential;

import static io.krill.compat.differential.RestartedNodes.FIRST_EPOCH_RECORDS;
import static io.krill.compat.differential.RestartedNodes.TOPIC;

import io.krill.wire.message.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Stale leader epochs, which the shared single nodes cannot show (their partitions stay at epoch 0): on
 * {@link RestartedNodes}, whose partition has records of its first epoch and of the one a restart gave
 * it, each side sends its own epochs. A consumer's current_leader_epoch one below the leader's is fenced
 * (Fetch v9+, ListOffsets v4+, OffsetForLeaderEpoch v2+); OffsetForLeaderEpoch of the first epoch answers
 * where it ended. Produce and DeleteRecords carry no leader epoch at any version (Produce 3-13), so there
 * is nothing stale to send them. Requests without topic ids (ListOffsets, OffsetForLeaderEpoch) are the
 * same bytes to both sides; Fetch names each side's topic id.
 */
class LeaderEpochConformanceTest {
    @RegisterExtension
    static final RestartedNodes NODES = new RestartedNodes();

    private static Sequence sequence(String title, ApiKeys api) {
        return Sequence.of(title, api).on(NODES.pair());
    }

    private static int epoch(BrokerSide side) {
        return side.leaderEpoch(TOPIC, 0);
    }

    @Test
    void fetchWithAStaleLeaderEpoch() {
        sequence("Fetch with current_leader_epoch one below the leader's", ApiKeys.FETCH).from(9)
                .request((side, version) -> ClientRequests.fetch(TOPIC, side.topicId(TOPIC), 0, 0L, epoch(side) - 1))
                .expect("/responses/0/partitions/0/errorCode", Errors.FENCED_LEADER_EPOCH)
                .run();
    }

    /** Batches of both epochs, each stamped with the epoch of its leader when it was appended. */
    @Test
    void fetchOfRecordsOfTwoEpochs() {
        sequence("Fetch from offset 0 of records of two leader epochs", ApiKeys.FETCH)
                .request((side, version) -> ClientRequests.fetch(TOPIC, side.topicId(TOPIC), 0, 0L, epoch(side)))
                .expect("/responses/0/partitions/0/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void listOffsetsWithAStaleLeaderEpoch() {
        sequence("ListOffsets with current_leader_epoch one below the leader's", ApiKeys.LIST_OFFSETS).from(4)
                .request((side, version) -> ClientRequests.listOffsets(TOPIC, 0, -1L, epoch(side) - 1))
                .expect("/topics/0/partitions/0/errorCode", Errors.FENCED_LEADER_EPOCH)
                .run();
    }

    /** The latest and earliest offsets name the epoch of the leader that wrote them (v4+). */
    @Test
    void listOffsetsAfterANewEpoch() {
        sequence("ListOffsets latest after a new leader epoch", ApiKeys.LIST_OFFSETS)
                .request((side, version) -> ClientRequests.listOffsets(TOPIC, 0, -1L, epoch(side)))
                .expect("/topics/0/partitions/0/errorCode", Errors.NONE)
                .run();
        sequence("ListOffsets earliest after a new leader epoch", ApiKeys.LIST_OFFSETS)
                .request((side, version) -> ClientRequests.listOffsets(TOPIC, 0, -2L, epoch(side)))
                .expect("/topics/0/partitions/0/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void offsetForLeaderEpochWithAStaleCurrentLeaderEpoch() {
        sequence("OffsetForLeaderEpoch with current_leader_epoch one below the leader's",
                ApiKeys.OFFSET_FOR_LEADER_EPOCH).from(2)
                .request((side, version) -> ClientRequests.offsetForLeaderEpoch(TOPIC, 0, epoch(side) - 1, 0))
                .expect("/topics/0/partitions/0/errorCode", Errors.FENCED_LEADER_EPOCH)
                .run();
    }

    /** The first epoch ended where the second began: after its {@value RestartedNodes#FIRST_EPOCH_RECORDS} records. */
    @Test
    void offsetForLeaderEpochOfTheFirstEpoch() {
        sequence("OffsetForLeaderEpoch of the first leader epoch", ApiKeys.OFFSET_FOR_LEADER_EPOCH)
                .request((side, version) -> ClientRequests.offsetForLeaderEpoch(TOPIC, 0, epoch(side), 0))
                .expect("/topics/0/partitions/0/errorCode", Errors.NONE)
                .check(answers -> answers.both().forEach(answer -> org.junit.jupiter.api.Assertions.assertEquals(
                        FIRST_EPOCH_RECORDS, answer.at("/topics/0/partitions/0/endOffset").asInt(), answer.toString())))
                .run();
    }

    /** An epoch no leader wrote in (the one the restart passed through): the last epoch before it answers. */
    @Test
    void offsetForLeaderEpochOfAnEpochBetween() {
        sequence("OffsetForLeaderEpoch of an epoch between the first and the current", ApiKeys.OFFSET_FOR_LEADER_EPOCH)
                .request((side, version) -> ClientRequests.offsetForLeaderEpoch(TOPIC, 0, epoch(side), epoch(side) - 1))
                .expect("/topics/0/partitions/0/errorCode", Errors.NONE)
                .run();
    }
}

package io.krill.compat.differential;

import static io.krill.compat.differential.RestartedNodes.FIRST_EPOCH_RECORDS;
import static io.krill.compat.differential.RestartedNodes.TOPIC;

import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.OffsetCommitRequest;
import io.krill.wire.message.OffsetFetchRequest;
import java.util.List;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Stale leader epochs, which the shared single nodes cannot show (their partitions stay at epoch 0): on
 * {@link RestartedNodes}, whose partition has records of its first epoch and of the one a restart gave
 * it, each side sends its own epochs. A consumer's current_leader_epoch one below the leader's is fenced
 * (Fetch v9+, ListOffsets v4+, OffsetForLeaderEpoch v2+); OffsetForLeaderEpoch of the first epoch answers
 * where it ended. Produce and DeleteRecords carry no leader epoch at any version (Produce 3-13), so there
 * is nothing stale to send them. OffsetCommit's committed_leader_epoch is only the consumer's note, kept
 * as sent: a stale one is accepted and OffsetFetch gives it back. Requests without topic ids (ListOffsets,
 * OffsetForLeaderEpoch) are the same bytes to both sides; the others name each side's topic id.
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
    /** A stale committed epoch is not checked against the partition's: the commit succeeds. */
    @Test
    void offsetCommitOfAStaleCommittedLeaderEpoch() {
        sequence("OffsetCommit with committed_leader_epoch one below the leader's", ApiKeys.OFFSET_COMMIT).from(6)
                .setUp((side, version) -> side.awaitGroupCoordinator("diff-epochs-oc-" + version))
                .request((side, version) -> commit(side, "diff-epochs-oc-" + version, epoch(side) - 1))
                .expect("/topics/0/partitions/0/errorCode", Errors.NONE)
                .run();
    }

    /** OffsetFetch (v5+) gives the committed epoch back as it was committed. */
    @Test
    void offsetFetchOfAStaleCommittedLeaderEpoch() {
        for (BrokerSide side : List.of(NODES.pair().kafka(), NODES.pair().krill())) {
            side.awaitGroupCoordinator("diff-epochs-of");
            side.send(ApiKeys.OFFSET_COMMIT, commit(side, "diff-epochs-of", epoch(side) - 1));
        }
        sequence("OffsetFetch of an offset committed with a stale leader epoch", ApiKeys.OFFSET_FETCH).from(5)
                .request((side, version) -> fetchOffsets(side, "diff-epochs-of", version))
                .run();
    }

    /** An Admin's commit (outside any generation) of offset 4 of partition 0, by name and by topic id. */
    private static OffsetCommitRequest commit(BrokerSide side, String group, int committedLeaderEpoch) {
        return new OffsetCommitRequest().setGroupId(group).setGenerationIdOrMemberEpoch(-1).setMemberId("")
                .setTopics(List.of(new OffsetCommitRequest.OffsetCommitRequestTopic().setName(TOPIC)
                        .setTopicId(side.topicId(TOPIC)).setPartitions(List.of(
                                new OffsetCommitRequest.OffsetCommitRequestPartition().setPartitionIndex(0)
                                        .setCommittedOffset(4L).setCommittedLeaderEpoch(committedLeaderEpoch)
                                        .setCommittedMetadata("")))));
    }

    /** An Admin's OffsetFetch of partition 0 for {@code group}, by name and (v10) by topic id. */
    private static OffsetFetchRequest fetchOffsets(BrokerSide side, String group, short version) {
        if (version < 8) {
            return ClientRequests.offsetFetch(group, TOPIC, List.of(0), version);
        }
        return new OffsetFetchRequest().setGroups(List.of(new OffsetFetchRequest.OffsetFetchRequestGroup()
                .setGroupId(group).setMemberId(null).setMemberEpoch(-1).setTopics(List.of(
                        new OffsetFetchRequest.OffsetFetchRequestTopics().setName(TOPIC).setTopicId(side.topicId(TOPIC))
                                .setPartitionIndexes(List.of(0))))));
    }
}

package io.krill.compat.differential;

import io.krill.wire.message.ApiKeys;
import java.util.List;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * A group's coordinator and offsets as consumers and the Admin client ask for them: FindCoordinator,
 * OffsetCommit, OffsetFetch and OffsetDelete, outside any generation (members are {@link
 * ClassicGroupConformanceTest}'s).
 */
class GroupOffsetsConformanceTest extends DifferentialTest {

    @Test
    void findCoordinatorOfAGroup() {
        both(side -> side.awaitGroupCoordinator("diff-fc-group"));
        sequence("FindCoordinator of a group", ApiKeys.FIND_COORDINATOR)
                .request((side, version) -> ClientRequests.findGroupCoordinator("diff-fc-group", version))
                .expect(version -> version >= 4 ? "/coordinators/0/errorCode" : "/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void offsetCommitForAnUnknownTopicAndGroup() {
        both(side -> side.awaitGroupCoordinator("diff-oc-group"));
        sequence("OffsetCommit of an unknown topic by an unknown group", ApiKeys.OFFSET_COMMIT)
                .request((side, version) -> ClientRequests.offsetCommit("diff-oc-group", "diff-oc-unknown", 0, 5L))
                .expect("/topics/0/partitions/0/errorCode", Errors.UNKNOWN_TOPIC_OR_PARTITION)
                .run();
    }

    @Test
    void offsetFetchOfAnUnknownTopicForAnUnknownGroup() {
        both(side -> side.awaitGroupCoordinator("diff-of-group"));
        sequence("OffsetFetch of an unknown topic's partitions for an unknown group", ApiKeys.OFFSET_FETCH)
                .request((side, version) -> ClientRequests.offsetFetch("diff-of-group", "diff-of-unknown", List.of(0, 1),
                        version))
                .run();
    }

    @Test
    void offsetFetchOfAllTopicsForAnUnknownGroup() {
        both(side -> side.awaitGroupCoordinator("diff-of-all-group"));
        sequence("OffsetFetch of all topics for an unknown group", ApiKeys.OFFSET_FETCH).from(2)
                .request((side, version) -> ClientRequests.offsetFetch("diff-of-all-group", null, null, version))
                .run();
    }
}

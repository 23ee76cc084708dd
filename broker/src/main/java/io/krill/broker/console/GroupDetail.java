package io.krill.broker.console;

import io.krill.log.TopicPartition;
import java.util.List;
import java.util.Map;

/**
 * One group as its coordinator described it: what ListGroups told, the members with their assignments
 * (when described), and its committed offsets (for a share group, each share-partition's start offset and
 * the lag its coordinator counts). Immutable.
 *
 * @param members null when the group was not described (history samples only offsets)
 */
record GroupDetail(String groupId, String type, String protocolType, String state, int coordinator, String assignor,
                   List<Member> members, Map<TopicPartition, Committed> offsets) {

    record Member(String memberId, String clientId, String host, String instanceId,
                  Map<String, List<Integer>> assignment) {
    }

    /**
     * @param lag the coordinator's lag (share groups), or null to count it from the end offset
     */
    record Committed(long offset, String metadata, Long lag) {
    }

    boolean isShare() {
        return type.equals("share");
    }
}

package io.krill.compat.differential;

import io.krill.wire.message.ApiKeys;
import java.util.List;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * What operators send through the Admin client and Kafka's tools: ElectLeaders, ListPartitionReassignments
 * and AlterPartitionReassignments (kafka-leader-election, kafka-reassign-partitions), AlterClientQuotas
 * and DescribeUserScramCredentials (kafka-configs), mostly where a single node has nothing to do.
 */
class OperationsConformanceTest extends DifferentialTest {

    @Test
    void electLeaders() {
        both(side -> side.createTopic("diff-el-topic", 1));
        sequence("ElectLeaders preferred where the preferred replica leads", ApiKeys.ELECT_LEADERS)
                .request((side, version) -> AdminRequests.preferredElection("diff-el-topic"))
                .expect("/replicaElectionResults/0/partitionResult/0/errorCode", Errors.ELECTION_NOT_NEEDED)
                .run();
        sequence("ElectLeaders of an unknown topic", ApiKeys.ELECT_LEADERS)
                .request((side, version) -> AdminRequests.preferredElection("diff-el-unknown"))
                .expect("/replicaElectionResults/0/partitionResult/0/errorCode", Errors.UNKNOWN_TOPIC_OR_PARTITION)
                .run();
    }

    @Test
    void partitionReassignments() {
        both(side -> side.createTopic("diff-ra-topic", 1));
        sequence("ListPartitionReassignments of a partition not being moved", ApiKeys.LIST_PARTITION_REASSIGNMENTS)
                .request((side, version) -> AdminRequests.listReassignments("diff-ra-topic"))
                .expect("/errorCode", Errors.NONE)
                .run();
        sequence("ListPartitionReassignments of all", ApiKeys.LIST_PARTITION_REASSIGNMENTS)
                .request((side, version) -> AdminRequests.listReassignments(null))
                .expect("/errorCode", Errors.NONE)
                .run();
        sequence("AlterPartitionReassignments of an unknown topic", ApiKeys.ALTER_PARTITION_REASSIGNMENTS)
                .request((side, version) -> AdminRequests.reassign("diff-ra-unknown", List.of(1)))
                .expect("/responses/0/partitions/0/errorCode", Errors.UNKNOWN_TOPIC_OR_PARTITION)
                .run();
        sequence("AlterPartitionReassignments to a broker that does not exist", ApiKeys.ALTER_PARTITION_REASSIGNMENTS)
                .request((side, version) -> AdminRequests.reassign("diff-ra-topic", List.of(7)))
                .expect("/responses/0/partitions/0/errorCode", Errors.INVALID_REPLICA_ASSIGNMENT)
                .run();
        sequence("AlterPartitionReassignments to the current replicas", ApiKeys.ALTER_PARTITION_REASSIGNMENTS)
                .request((side, version) -> AdminRequests.reassign("diff-ra-topic", List.of(1)))
                .expect("/responses/0/partitions/0/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void clientQuotas() {
        sequence("AlterClientQuotas validate_only of a user's producer_byte_rate", ApiKeys.ALTER_CLIENT_QUOTAS)
                .request((side, version) -> AdminRequests.setUserQuota("diff-quota-user", "producer_byte_rate", 1024,
                        true))
                .expect("/entries/0/errorCode", Errors.NONE)
                .run();
        sequence("AlterClientQuotas of an unknown quota key", ApiKeys.ALTER_CLIENT_QUOTAS)
                .request((side, version) -> AdminRequests.setUserQuota("diff-quota-user", "no_such_rate", 1, false))
                .expect("/entries/0/errorCode", Errors.INVALID_REQUEST)
                .run();
        sequence("DescribeClientQuotas after validate_only (none)", ApiKeys.DESCRIBE_CLIENT_QUOTAS)
                .request((side, version) -> ClientRequests.describeClientQuotas("user", "diff-quota-user", false))
                .expect("/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void scramCredentials() {
        sequence("DescribeUserScramCredentials of a user without", ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS)
                .request((side, version) -> AdminRequests.describeScram("diff-scram-nobody"))
                .expect("/results/0/errorCode", Errors.RESOURCE_NOT_FOUND)
                .run();
        sequence("DescribeUserScramCredentials of every user (none)", ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS)
                .request((side, version) -> AdminRequests.describeScram(null))
                .expect("/errorCode", Errors.NONE)
                .run();
    }
}

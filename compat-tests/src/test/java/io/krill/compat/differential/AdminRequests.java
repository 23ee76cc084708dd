package io.krill.compat.differential;

import io.krill.wire.message.AlterClientQuotasRequest;
import io.krill.wire.message.AlterPartitionReassignmentsRequest;
import io.krill.wire.message.DescribeUserScramCredentialsRequest;
import io.krill.wire.message.ElectLeadersRequest;
import io.krill.wire.message.ListPartitionReassignmentsRequest;
import java.util.List;

/**
 * Operator request bodies as the Admin client, kafka-leader-election, kafka-reassign-partitions and
 * kafka-configs fill them, for the version they are written at.
 *
 * <p>Stateless; thread-safe.
 */
final class AdminRequests {
    private AdminRequests() {
    }

    /** ElectLeaders of partition 0 of {@code topic}: preferred (v1+: election type 0; v0 knows no other). */
    static ElectLeadersRequest preferredElection(String topic) {
        return new ElectLeadersRequest().setTimeoutMs(ClientRequests.TIMEOUT_MS).setElectionType((byte) 0)
                .setTopicPartitions(List.of(new ElectLeadersRequest.TopicPartitions().setTopic(topic)
                        .setPartitions(List.of(0))));
    }

    /** ListPartitionReassignments of partition 0 of {@code topic}, or of all when null. */
    static ListPartitionReassignmentsRequest listReassignments(String topic) {
        return new ListPartitionReassignmentsRequest().setTimeoutMs(ClientRequests.TIMEOUT_MS)
                .setTopics(topic == null ? null : List.of(new ListPartitionReassignmentsRequest.ListPartitionReassignmentsTopics()
                        .setName(topic).setPartitionIndexes(List.of(0))));
    }

    /** AlterPartitionReassignments of partition 0 of {@code topic} to {@code replicas}. */
    static AlterPartitionReassignmentsRequest reassign(String topic, List<Integer> replicas) {
        return new AlterPartitionReassignmentsRequest().setTimeoutMs(ClientRequests.TIMEOUT_MS)
                .setTopics(List.of(new AlterPartitionReassignmentsRequest.ReassignableTopic().setName(topic)
                        .setPartitions(List.of(new AlterPartitionReassignmentsRequest.ReassignablePartition()
                                .setPartitionIndex(0).setReplicas(replicas)))));
    }

    /** DescribeUserScramCredentials of {@code user}, or of every user when null. */
    static DescribeUserScramCredentialsRequest describeScram(String user) {
        return new DescribeUserScramCredentialsRequest().setUsers(user == null ? null
                : List.of(new DescribeUserScramCredentialsRequest.UserName().setName(user)));
    }

    /** AlterClientQuotas of one user: set {@code key} to {@code value}. */
    static AlterClientQuotasRequest setUserQuota(String user, String key, double value, boolean validateOnly) {
        return new AlterClientQuotasRequest().setValidateOnly(validateOnly)
                .setEntries(List.of(new AlterClientQuotasRequest.EntryData()
                        .setEntity(List.of(new AlterClientQuotasRequest.EntityData().setEntityType("user")
                                .setEntityName(user)))
                        .setOps(List.of(new AlterClientQuotasRequest.OpData().setKey(key).setValue(value)
                                .setRemove(false)))));
    }
}

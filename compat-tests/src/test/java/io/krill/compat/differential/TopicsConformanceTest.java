package io.krill.compat.differential;

import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.CreateTopicsRequest;
import java.util.List;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * Topics and the cluster, as the Admin client and kafka-topics ask about them: Metadata, CreateTopics,
 * DeleteTopics, CreatePartitions, DescribeTopicPartitions, DescribeCluster, DescribeLogDirs, DeleteRecords,
 * mostly their error paths.
 */
class TopicsConformanceTest extends DifferentialTest {

    // ---- Metadata

    @Test
    void metadataOfAnUnknownTopicWithoutAutoCreation() {
        sequence("Metadata of an unknown topic", ApiKeys.METADATA).from(4)
                .request((side, version) -> ClientRequests.metadata(version, "diff-md-unknown"))
                .expect("/topics/0/errorCode", Errors.UNKNOWN_TOPIC_OR_PARTITION)
                .run();
    }

    @Test
    void metadataOfAnExistingTopic() {
        both(side -> side.createTopic("diff-md-existing", 2));
        sequence("Metadata of an existing topic", ApiKeys.METADATA)
                .request((side, version) -> ClientRequests.metadata(version, "diff-md-existing"))
                .expect("/topics/0/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void metadataOfAnUnknownTopicId() {
        sequence("Metadata of an unknown topic id", ApiKeys.METADATA).from(12)
                .request((side, version) -> ClientRequests.metadataById(UNKNOWN_TOPIC_ID))
                .expect("/topics/0/errorCode", Errors.UNKNOWN_TOPIC_ID)
                .run();
    }

    // ---- CreateTopics

    @Test
    void createTopicsWithAnExistingName() {
        both(side -> side.createTopic("diff-ct-existing", 1));
        sequence("CreateTopics with an existing name", ApiKeys.CREATE_TOPICS)
                .request((side, version) -> ClientRequests.createTopics(ClientRequests.topic("diff-ct-existing", 1, 1)))
                .expect("/topics/0/errorCode", Errors.TOPIC_ALREADY_EXISTS)
                .run();
    }

    @Test
    void createTopicsWithAnInvalidName() {
        sequence("CreateTopics with an invalid name", ApiKeys.CREATE_TOPICS)
                .request((side, version) -> ClientRequests.createTopics(ClientRequests.topic("diff/ct invalid", 1, 1)))
                .expect("/topics/0/errorCode", Errors.INVALID_TOPIC_EXCEPTION)
                .run();
    }

    @Test
    void createTopicsWithAReplicationFactorLargerThanTheBrokers() {
        sequence("CreateTopics with replication factor 3 on one broker", ApiKeys.CREATE_TOPICS)
                .request((side, version) -> ClientRequests.createTopics(ClientRequests.topic("diff-ct-replication", 1, 3)))
                .expect("/topics/0/errorCode", Errors.INVALID_REPLICATION_FACTOR)
                .run();
    }

    @Test
    void createTopicsWithAnInvalidConfig() {
        sequence("CreateTopics with retention.ms=not-a-number", ApiKeys.CREATE_TOPICS)
                .request((side, version) -> ClientRequests.createTopics(ClientRequests.topic("diff-ct-config", 1, 1)
                        .setConfigs(List.of(new CreateTopicsRequest.CreatableTopicConfig()
                                .setName("retention.ms").setValue("not-a-number")))))
                .expect("/topics/0/errorCode", Errors.INVALID_CONFIG)
                .run();
    }

    @Test
    void createTopicsWithZeroPartitions() {
        sequence("CreateTopics with 0 partitions", ApiKeys.CREATE_TOPICS)
                .request((side, version) -> ClientRequests.createTopics(ClientRequests.topic("diff-ct-zero", 0, 1)))
                .expect("/topics/0/errorCode", Errors.INVALID_PARTITIONS)
                .run();
    }

    // ---- DeleteTopics

    @Test
    void deleteTopicsOfAnUnknownTopic() {
        sequence("DeleteTopics of an unknown topic", ApiKeys.DELETE_TOPICS)
                .request((side, version) -> ClientRequests.deleteTopics("diff-dt-unknown", version))
                .expect("/responses/0/errorCode", Errors.UNKNOWN_TOPIC_OR_PARTITION)
                .run();
    }

    @Test
    void deleteTopicsOfAnUnknownTopicId() {
        sequence("DeleteTopics of an unknown topic id", ApiKeys.DELETE_TOPICS).from(6)
                .request((side, version) -> ClientRequests.deleteTopicById(UNKNOWN_TOPIC_ID))
                .expect("/responses/0/errorCode", Errors.UNKNOWN_TOPIC_ID)
                .run();
    }

    // ---- CreatePartitions

    @Test
    void createPartitionsOfAnUnknownTopic() {
        sequence("CreatePartitions of an unknown topic", ApiKeys.CREATE_PARTITIONS)
                .request((side, version) -> ClientRequests.createPartitions("diff-cp-unknown", 3, false))
                .expect("/results/0/errorCode", Errors.UNKNOWN_TOPIC_OR_PARTITION)
                .run();
    }

    @Test
    void createPartitionsWithFewerPartitionsThanNow() {
        both(side -> side.createTopic("diff-cp-fewer", 3));
        sequence("CreatePartitions to fewer partitions than now", ApiKeys.CREATE_PARTITIONS)
                .request((side, version) -> ClientRequests.createPartitions("diff-cp-fewer", 2, false))
                .expect("/results/0/errorCode", Errors.INVALID_PARTITIONS)
                .run();
    }

    @Test
    void createPartitionsWithTheCurrentCount() {
        both(side -> side.createTopic("diff-cp-same", 2));
        sequence("CreatePartitions to the current count", ApiKeys.CREATE_PARTITIONS)
                .request((side, version) -> ClientRequests.createPartitions("diff-cp-same", 2, false))
                .expect("/results/0/errorCode", Errors.INVALID_PARTITIONS)
                .run();
    }

    @Test
    void createPartitionsValidateOnly() {
        both(side -> side.createTopic("diff-cp-validate", 1));
        sequence("CreatePartitions validate_only to 4 partitions", ApiKeys.CREATE_PARTITIONS)
                .request((side, version) -> ClientRequests.createPartitions("diff-cp-validate", 4, true))
                .expect("/results/0/errorCode", Errors.NONE)
                .run();
        // validate_only changed nothing: the topic still has one partition on both sides
        sequence("Metadata after CreatePartitions validate_only", ApiKeys.METADATA).from(highest(ApiKeys.METADATA))
                .request((side, version) -> ClientRequests.metadata(version, "diff-cp-validate"))
                .check(answers -> answers.both().forEach(answer -> {
                    if (answer.at("/topics/0/partitions").size() != 1) {
                        throw new AssertionError("validate_only added partitions: " + answer);
                    }
                }))
                .run();
    }

    // ---- DescribeTopicPartitions

    @Test
    void describeTopicPartitionsOfAnExistingAndAnUnknownTopic() {
        both(side -> side.createTopic("diff-dtp-existing", 3));
        sequence("DescribeTopicPartitions of an existing and an unknown topic", ApiKeys.DESCRIBE_TOPIC_PARTITIONS)
                .request((side, version) -> ClientRequests.describeTopicPartitions(2000, "diff-dtp-existing",
                        "diff-dtp-unknown"))
                .expect("/topics/0/errorCode", Errors.NONE)
                .expect("/topics/1/errorCode", Errors.UNKNOWN_TOPIC_OR_PARTITION)
                .run();
    }

    @Test
    void describeTopicPartitionsBeyondThePartitionLimit() {
        both(side -> side.createTopic("diff-dtp-limit", 3));
        sequence("DescribeTopicPartitions limited to 2 partitions (next cursor)", ApiKeys.DESCRIBE_TOPIC_PARTITIONS)
                .request((side, version) -> ClientRequests.describeTopicPartitions(2, "diff-dtp-limit"))
                .expect("/topics/0/errorCode", Errors.NONE)
                .run();
    }

    // ---- DescribeCluster, DescribeLogDirs

    @Test
    void describeCluster() {
        sequence("DescribeCluster", ApiKeys.DESCRIBE_CLUSTER)
                .request((side, version) -> ClientRequests.describeCluster(version))
                .expect("/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void describeLogDirsOfATopicWithRecords() {
        both(side -> {
            side.createTopic("diff-ldir", 2);
            side.produce("diff-ldir", 1, 4);
        });
        sequence("DescribeLogDirs of a topic with records in one partition", ApiKeys.DESCRIBE_LOG_DIRS)
                .request((side, version) -> ClientRequests.describeLogDirs("diff-ldir", List.of(0, 1)))
                .expect("/results/0/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void describeLogDirsOfAnUnknownTopic() {
        sequence("DescribeLogDirs of an unknown topic", ApiKeys.DESCRIBE_LOG_DIRS)
                .request((side, version) -> ClientRequests.describeLogDirs("diff-ldir-unknown", List.of(0)))
                .expect("/results/0/errorCode", Errors.NONE)
                .run();
    }

    // ---- DeleteRecords

    @Test
    void deleteRecordsBeyondTheHighWatermark() {
        both(side -> {
            side.createTopic("diff-dr-beyond", 1);
            side.produce("diff-dr-beyond", 0, 3);
        });
        sequence("DeleteRecords before an offset beyond the high watermark", ApiKeys.DELETE_RECORDS)
                .request((side, version) -> ClientRequests.deleteRecords("diff-dr-beyond", 0, 10L))
                .expect("/topics/0/partitions/0/errorCode", Errors.OFFSET_OUT_OF_RANGE)
                .run();
    }

    @Test
    void deleteRecordsOfAnUnknownPartition() {
        both(side -> side.createTopic("diff-dr-partition", 1));
        sequence("DeleteRecords of an unknown partition", ApiKeys.DELETE_RECORDS)
                .request((side, version) -> ClientRequests.deleteRecords("diff-dr-partition", 5, 0L))
                .expect("/topics/0/partitions/0/errorCode", Errors.UNKNOWN_TOPIC_OR_PARTITION)
                .run();
    }

    @Test
    void deleteRecordsBeforeAnOffsetAndUpToTheHighWatermark() {
        both(side -> {
            side.createTopic("diff-dr-valid", 2);
            side.produce("diff-dr-valid", 0, 3);
            side.produce("diff-dr-valid", 1, 3);
        });
        sequence("DeleteRecords before offset 2", ApiKeys.DELETE_RECORDS)
                .request((side, version) -> ClientRequests.deleteRecords("diff-dr-valid", 0, 2L))
                .expect("/topics/0/partitions/0/errorCode", Errors.NONE)
                .run();
        sequence("DeleteRecords up to the high watermark (offset -1)", ApiKeys.DELETE_RECORDS)
                .request((side, version) -> ClientRequests.deleteRecords("diff-dr-valid", 1, -1L))
                .expect("/topics/0/partitions/0/errorCode", Errors.NONE)
                .run();
    }
}

package io.krill.compat.differential;

import io.krill.wire.message.ApiVersionsRequest;
import io.krill.wire.message.CreateTopicsRequest;
import io.krill.wire.message.DeleteTopicsRequest;
import io.krill.wire.message.DescribeConfigsRequest;
import io.krill.wire.message.FetchRequest;
import io.krill.wire.message.FindCoordinatorRequest;
import io.krill.wire.message.InitProducerIdRequest;
import io.krill.wire.message.ListOffsetsRequest;
import io.krill.wire.message.MetadataRequest;
import io.krill.wire.message.OffsetCommitRequest;
import io.krill.wire.message.OffsetFetchRequest;
import io.krill.wire.message.ProduceRequest;
import io.krill.wire.protocol.ByteBufRecords;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * Request bodies filled as the stock 4.4 Java client (producer, consumer, Admin) fills them, in Krill's
 * generated codecs, for the version they will be written at: a field the version does not have is left
 * at its default (the generated writers refuse anything else), so each builder takes the version.
 *
 * <p>Stateless; thread-safe.
 */
final class ClientRequests {
    static final int TIMEOUT_MS = 30_000;
    static final byte GROUP_KEY_TYPE = 0;
    static final byte TOPIC_RESOURCE_TYPE = 2;

    private ClientRequests() {
    }

    /** Metadata for {@code topics} by name, no auto-creation, no authorized operations. */
    static MetadataRequest metadata(String... topics) {
        List<MetadataRequest.MetadataRequestTopic> list = new ArrayList<>();
        for (String topic : topics) {
            list.add(new MetadataRequest.MetadataRequestTopic().setName(topic));
        }
        return new MetadataRequest().setTopics(list).setAllowAutoTopicCreation(false);
    }

    static CreateTopicsRequest.CreatableTopic topic(String name, int partitions, int replicationFactor) {
        return new CreateTopicsRequest.CreatableTopic().setName(name).setNumPartitions(partitions)
                .setReplicationFactor((short) replicationFactor);
    }

    static CreateTopicsRequest createTopics(CreateTopicsRequest.CreatableTopic topic) {
        return new CreateTopicsRequest().setTimeoutMs(TIMEOUT_MS).setValidateOnly(false).setTopics(List.of(topic));
    }

    static DeleteTopicsRequest deleteTopics(String name, short version) {
        DeleteTopicsRequest request = new DeleteTopicsRequest().setTimeoutMs(TIMEOUT_MS);
        return version >= 6
                ? request.setTopics(List.of(new DeleteTopicsRequest.DeleteTopicState().setName(name)))
                : request.setTopicNames(List.of(name));
    }

    /** Produce, acks=all (the 4.4 producer's default), of one batch of {@code count} small records. */
    static ProduceRequest produce(String topic, UUID topicId, int partition, int count) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(("key-" + i).getBytes(StandardCharsets.UTF_8),
                    ("value-" + i).getBytes(StandardCharsets.UTF_8));
        }
        MemoryRecords batch = MemoryRecords.withRecords(Compression.NONE, records);
        return new ProduceRequest().setTransactionalId(null).setAcks((short) -1).setTimeoutMs(TIMEOUT_MS)
                .setTopicData(List.of(new ProduceRequest.TopicProduceData().setName(topic).setTopicId(topicId)
                        .setPartitionData(List.of(new ProduceRequest.PartitionProduceData().setIndex(partition)
                                .setRecords(ByteBufRecords.of(Unpooled.wrappedBuffer(batch.buffer())))))));
    }

    /**
     * A consumer's sessionless Fetch (session epoch -1: no fetch session, whose random id would differ)
     * of one partition, read_uncommitted, with the consumer's default sizes and wait.
     */
    static FetchRequest fetch(String topic, UUID topicId, int partition, long offset, int leaderEpoch) {
        return new FetchRequest().setMaxWaitMs(500).setMinBytes(1).setMaxBytes(52_428_800)
                .setIsolationLevel((byte) 0).setSessionId(0).setSessionEpoch(-1)
                .setTopics(List.of(new FetchRequest.FetchTopic().setTopic(topic).setTopicId(topicId)
                        .setPartitions(List.of(new FetchRequest.FetchPartition().setPartition(partition)
                                .setCurrentLeaderEpoch(leaderEpoch).setFetchOffset(offset).setLogStartOffset(-1L)
                                .setPartitionMaxBytes(1_048_576)))))
                .setRackId("");
    }

    /** ListOffsets for the latest offset of one partition, read_uncommitted. */
    static ListOffsetsRequest listLatestOffset(String topic, int partition) {
        return new ListOffsetsRequest().setReplicaId(-1).setTimeoutMs(TIMEOUT_MS)
                .setTopics(List.of(new ListOffsetsRequest.ListOffsetsTopic().setName(topic)
                        .setPartitions(List.of(new ListOffsetsRequest.ListOffsetsPartition()
                                .setPartitionIndex(partition).setCurrentLeaderEpoch(-1).setTimestamp(-1L)))));
    }

    /** A commit outside any generation (an Admin or a manually assigned consumer's). */
    static OffsetCommitRequest offsetCommit(String group, String topic, int partition, long offset) {
        return new OffsetCommitRequest().setGroupId(group).setGenerationIdOrMemberEpoch(-1).setMemberId("")
                .setTopics(List.of(new OffsetCommitRequest.OffsetCommitRequestTopic().setName(topic)
                        .setPartitions(List.of(new OffsetCommitRequest.OffsetCommitRequestPartition()
                                .setPartitionIndex(partition).setCommittedOffset(offset).setCommittedLeaderEpoch(-1)
                                .setCommittedMetadata("")))));
    }

    /**
     * OffsetFetch of one group as the Admin client asks it (no member), for {@code partitions} of
     * {@code topic}, or of every topic when {@code topic} is null.
     */
    static OffsetFetchRequest offsetFetch(String group, String topic, List<Integer> partitions, short version) {
        if (version >= 8) {
            List<OffsetFetchRequest.OffsetFetchRequestTopics> topics = topic == null ? null
                    : List.of(new OffsetFetchRequest.OffsetFetchRequestTopics().setName(topic)
                            .setPartitionIndexes(partitions));
            return new OffsetFetchRequest().setGroups(List.of(new OffsetFetchRequest.OffsetFetchRequestGroup()
                    .setGroupId(group).setMemberId(null).setMemberEpoch(-1).setTopics(topics)));
        }
        List<OffsetFetchRequest.OffsetFetchRequestTopic> topics = topic == null ? null
                : List.of(new OffsetFetchRequest.OffsetFetchRequestTopic().setName(topic).setPartitionIndexes(partitions));
        return new OffsetFetchRequest().setGroupId(group).setTopics(topics);
    }

    static FindCoordinatorRequest findGroupCoordinator(String group, short version) {
        FindCoordinatorRequest request = new FindCoordinatorRequest().setKeyType(GROUP_KEY_TYPE);
        return version >= 4 ? request.setCoordinatorKeys(List.of(group)) : request.setKey(group);
    }

    /** DescribeConfigs of every config of one topic, without synonyms or documentation (the Admin's default). */
    static DescribeConfigsRequest describeTopicConfigs(String topic) {
        return new DescribeConfigsRequest().setIncludeSynonyms(false).setIncludeDocumentation(false)
                .setResources(List.of(new DescribeConfigsRequest.DescribeConfigsResource()
                        .setResourceType(TOPIC_RESOURCE_TYPE).setResourceName(topic).setConfigurationKeys(null)));
    }

    /** InitProducerId as an idempotent (not transactional) 4.4 producer sends it. */
    static InitProducerIdRequest idempotentInitProducerId() {
        return new InitProducerIdRequest().setTransactionalId(null).setTransactionTimeoutMs(60_000);
    }

    static ApiVersionsRequest apiVersions() {
        return new ApiVersionsRequest().setClientSoftwareName("apache-kafka-java").setClientSoftwareVersion("4.4.0");
    }
}

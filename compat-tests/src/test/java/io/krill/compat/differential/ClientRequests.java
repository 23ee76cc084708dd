package io.krill.compat.differential;

import io.krill.wire.message.AlterConfigsRequest;
import io.krill.wire.message.ApiVersionsRequest;
import io.krill.wire.message.CreateAclsRequest;
import io.krill.wire.message.CreatePartitionsRequest;
import io.krill.wire.message.CreateTopicsRequest;
import io.krill.wire.message.DeleteAclsRequest;
import io.krill.wire.message.DeleteRecordsRequest;
import io.krill.wire.message.DeleteTopicsRequest;
import io.krill.wire.message.DescribeAclsRequest;
import io.krill.wire.message.DescribeClientQuotasRequest;
import io.krill.wire.message.DescribeClusterRequest;
import io.krill.wire.message.DescribeConfigsRequest;
import io.krill.wire.message.DescribeLogDirsRequest;
import io.krill.wire.message.DescribeTopicPartitionsRequest;
import io.krill.wire.message.FetchRequest;
import io.krill.wire.message.FindCoordinatorRequest;
import io.krill.wire.message.IncrementalAlterConfigsRequest;
import io.krill.wire.message.InitProducerIdRequest;
import io.krill.wire.message.ListOffsetsRequest;
import io.krill.wire.message.MetadataRequest;
import io.krill.wire.message.OffsetCommitRequest;
import io.krill.wire.message.OffsetFetchRequest;
import io.krill.wire.message.OffsetForLeaderEpochRequest;
import io.krill.wire.message.ProduceRequest;
import io.krill.wire.message.SaslAuthenticateRequest;
import io.krill.wire.message.SaslHandshakeRequest;
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
    static final byte BROKER_RESOURCE_TYPE = 4;
    static final byte GROUP_RESOURCE_TYPE = 32;
    /** The create time of the first record of every batch: 2023-11-14T22:13:20Z. */
    static final long BASE_TIMESTAMP = 1_700_000_000_000L;

    private ClientRequests() {
    }

    /**
     * Metadata for {@code topics} by name, without authorized operations; without auto-creation from v4
     * (before v4 a request cannot ask for none, so a sequence that names an unknown topic starts at v4).
     */
    static MetadataRequest metadata(short version, String... topics) {
        List<MetadataRequest.MetadataRequestTopic> list = new ArrayList<>();
        for (String topic : topics) {
            list.add(new MetadataRequest.MetadataRequestTopic().setName(topic));
        }
        MetadataRequest request = new MetadataRequest().setTopics(list);
        return version >= 4 ? request.setAllowAutoTopicCreation(false) : request;
    }

    /** Metadata v10+ of one topic by id (v12+: no name), as the 4.4 client asks for a topic it knows by id. */
    static MetadataRequest metadataById(UUID topicId) {
        return new MetadataRequest().setAllowAutoTopicCreation(false)
                .setTopics(List.of(new MetadataRequest.MetadataRequestTopic().setTopicId(topicId).setName(null)));
    }

    static CreateTopicsRequest.CreatableTopic topic(String name, int partitions, int replicationFactor) {
        return new CreateTopicsRequest.CreatableTopic().setName(name).setNumPartitions(partitions)
                .setReplicationFactor((short) replicationFactor);
    }

    static CreateTopicsRequest createTopics(CreateTopicsRequest.CreatableTopic topic) {
        return new CreateTopicsRequest().setTimeoutMs(TIMEOUT_MS).setValidateOnly(false).setTopics(List.of(topic));
    }

    /** CreateTopics with validate_only (v1+): the Admin's {@code CreateTopicsOptions.validateOnly(true)}. */
    static CreateTopicsRequest validateCreateTopics(CreateTopicsRequest.CreatableTopic topic) {
        return createTopics(topic).setValidateOnly(true);
    }

    /** DeleteTopics v6 of one topic by id, as the Admin's {@code deleteTopics(TopicCollection.ofTopicIds)}. */
    static DeleteTopicsRequest deleteTopicById(UUID topicId) {
        return new DeleteTopicsRequest().setTimeoutMs(TIMEOUT_MS)
                .setTopics(List.of(new DeleteTopicsRequest.DeleteTopicState().setName(null).setTopicId(topicId)));
    }

    static DeleteTopicsRequest deleteTopics(String name, short version) {
        DeleteTopicsRequest request = new DeleteTopicsRequest().setTimeoutMs(TIMEOUT_MS);
        return version >= 6
                ? request.setTopics(List.of(new DeleteTopicsRequest.DeleteTopicState().setName(name)))
                : request.setTopicNames(List.of(name));
    }

    /** Produce, acks=all (the 4.4 producer's default), of one batch of {@code count} small records. */
    static ProduceRequest produce(String topic, UUID topicId, int partition, int count) {
        return produce(topic, topicId, partition, count, (short) -1);
    }

    /** Produce with the given acks (-1, 0 or 1 for a client; anything else is refused). */
    static ProduceRequest produce(String topic, UUID topicId, int partition, int count, short acks) {
        return produce(topic, topicId, partition, batch(count, true), acks);
    }

    /**
     * One batch of {@code count} small records, with create times a millisecond apart from a fixed
     * instant (the same bytes to both sides, as a producer would stamp them), or without any timestamp
     * (-1, which a client may send).
     */
    static MemoryRecords batch(int count, boolean timestamps) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(timestamps ? BASE_TIMESTAMP + i : -1L,
                    ("key-" + i).getBytes(StandardCharsets.UTF_8), ("value-" + i).getBytes(StandardCharsets.UTF_8));
        }
        return MemoryRecords.withRecords(Compression.NONE, records);
    }

    /** One batch of {@code count} records without keys (refused by a compacted topic). */
    static MemoryRecords keylessBatch(int count) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(BASE_TIMESTAMP + i, null, ("value-" + i).getBytes(StandardCharsets.UTF_8));
        }
        return MemoryRecords.withRecords(Compression.NONE, records);
    }

    /** One batch of {@code count} records of an idempotent producer, its first record at {@code sequence}. */
    static MemoryRecords idempotentBatch(long producerId, short epoch, int sequence, int count) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(BASE_TIMESTAMP + i, ("key-" + i).getBytes(StandardCharsets.UTF_8),
                    ("value-" + i).getBytes(StandardCharsets.UTF_8));
        }
        return MemoryRecords.withIdempotentRecords(Compression.NONE, producerId, epoch, sequence, records);
    }

    /** One batch of {@code count} records of a transactional producer, its first record at {@code sequence}. */
    static MemoryRecords transactionalBatch(long producerId, short epoch, int sequence, int count) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(BASE_TIMESTAMP + i, ("key-" + i).getBytes(StandardCharsets.UTF_8),
                    ("txn-" + i).getBytes(StandardCharsets.UTF_8));
        }
        return MemoryRecords.withTransactionalRecords(Compression.NONE, producerId, epoch, sequence, records);
    }

    static ProduceRequest produce(String topic, UUID topicId, int partition, MemoryRecords batch, short acks) {
        return new ProduceRequest().setTransactionalId(null).setAcks(acks).setTimeoutMs(TIMEOUT_MS)
                .setTopicData(List.of(new ProduceRequest.TopicProduceData().setName(topic).setTopicId(topicId)
                        .setPartitionData(List.of(new ProduceRequest.PartitionProduceData().setIndex(partition)
                                .setRecords(ByteBufRecords.of(Unpooled.wrappedBuffer(batch.buffer())))))));
    }

    /**
     * A consumer's sessionless Fetch (session epoch -1: no fetch session, whose random id would differ)
     * of one partition, read_uncommitted, with the consumer's default sizes and wait.
     */
    static FetchRequest fetch(String topic, UUID topicId, int partition, long offset, int leaderEpoch) {
        return fetch(topic, topicId, partition, offset, leaderEpoch, false);
    }

    /** The same, read_committed (v4+) when {@code readCommitted}. */
    static FetchRequest fetch(String topic, UUID topicId, int partition, long offset, int leaderEpoch,
                              boolean readCommitted) {
        return new FetchRequest().setMaxWaitMs(500).setMinBytes(1).setMaxBytes(52_428_800)
                .setIsolationLevel(readCommitted ? (byte) 1 : (byte) 0).setSessionId(0).setSessionEpoch(-1)
                .setTopics(List.of(new FetchRequest.FetchTopic().setTopic(topic).setTopicId(topicId)
                        .setPartitions(List.of(new FetchRequest.FetchPartition().setPartition(partition)
                                .setCurrentLeaderEpoch(leaderEpoch).setFetchOffset(offset).setLogStartOffset(-1L)
                                .setPartitionMaxBytes(1_048_576)))))
                .setRackId("");
    }

    /** ListOffsets for the latest offset of one partition, read_uncommitted. */
    static ListOffsetsRequest listLatestOffset(String topic, int partition) {
        return listOffsets(topic, partition, -1L, -1);
    }

    /**
     * ListOffsets of one partition for {@code timestamp} (-1 latest, -2 earliest, -3 max timestamp, or a
     * time), read_uncommitted, with the consumer's current leader epoch (-1: none).
     */
    static ListOffsetsRequest listOffsets(String topic, int partition, long timestamp, int currentLeaderEpoch) {
        return listOffsets(topic, partition, timestamp, currentLeaderEpoch, false);
    }

    /** The same, read_committed (v2+) when {@code readCommitted}. */
    static ListOffsetsRequest listOffsets(String topic, int partition, long timestamp, int currentLeaderEpoch,
                                          boolean readCommitted) {
        return new ListOffsetsRequest().setReplicaId(-1).setTimeoutMs(TIMEOUT_MS)
                .setIsolationLevel(readCommitted ? (byte) 1 : (byte) 0)
                .setTopics(List.of(new ListOffsetsRequest.ListOffsetsTopic().setName(topic)
                        .setPartitions(List.of(new ListOffsetsRequest.ListOffsetsPartition()
                                .setPartitionIndex(partition).setCurrentLeaderEpoch(currentLeaderEpoch)
                                .setTimestamp(timestamp)))));
    }

    /** A consumer's OffsetForLeaderEpoch (replica id -1) of one partition: the end offset of {@code leaderEpoch}. */
    static OffsetForLeaderEpochRequest offsetForLeaderEpoch(String topic, int partition, int currentLeaderEpoch,
                                                           int leaderEpoch) {
        return new OffsetForLeaderEpochRequest().setReplicaId(-1)
                .setTopics(List.of(new OffsetForLeaderEpochRequest.OffsetForLeaderTopic().setTopic(topic)
                        .setPartitions(List.of(new OffsetForLeaderEpochRequest.OffsetForLeaderPartition()
                                .setPartition(partition).setCurrentLeaderEpoch(currentLeaderEpoch)
                                .setLeaderEpoch(leaderEpoch)))));
    }

    /** CreatePartitions of one topic to {@code count} partitions, assignments left to the broker. */
    static CreatePartitionsRequest createPartitions(String topic, int count, boolean validateOnly) {
        return new CreatePartitionsRequest().setTimeoutMs(TIMEOUT_MS).setValidateOnly(validateOnly)
                .setTopics(List.of(new CreatePartitionsRequest.CreatePartitionsTopic().setName(topic).setCount(count)
                        .setAssignments(null)));
    }

    /** DeleteRecords of one partition before {@code offset} (-1: the high watermark). */
    static DeleteRecordsRequest deleteRecords(String topic, int partition, long offset) {
        return new DeleteRecordsRequest().setTimeoutMs(TIMEOUT_MS)
                .setTopics(List.of(new DeleteRecordsRequest.DeleteRecordsTopic().setName(topic)
                        .setPartitions(List.of(new DeleteRecordsRequest.DeleteRecordsPartition()
                                .setPartitionIndex(partition).setOffset(offset)))));
    }

    /** DescribeCluster as the Admin's {@code describeCluster()} sends it (brokers, no authorized operations). */
    static DescribeClusterRequest describeCluster(short version) {
        DescribeClusterRequest request = new DescribeClusterRequest().setIncludeClusterAuthorizedOperations(false);
        return version >= 1 ? request.setEndpointType((byte) 1) : request;
    }

    /** DescribeLogDirs of the given partitions of one topic. */
    static DescribeLogDirsRequest describeLogDirs(String topic, List<Integer> partitions) {
        return new DescribeLogDirsRequest().setTopics(List.of(new DescribeLogDirsRequest.DescribableLogDirTopic()
                .setTopic(topic).setPartitions(partitions)));
    }

    /** DescribeTopicPartitions of {@code topics}, at most {@code limit} partitions, from the start. */
    static DescribeTopicPartitionsRequest describeTopicPartitions(int limit, String... topics) {
        List<DescribeTopicPartitionsRequest.TopicRequest> list = new ArrayList<>();
        for (String topic : topics) {
            list.add(new DescribeTopicPartitionsRequest.TopicRequest().setName(topic));
        }
        return new DescribeTopicPartitionsRequest().setTopics(list).setResponsePartitionLimit(limit).setCursor(null);
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
        return describeTopicConfigs(topic, null);
    }

    /** DescribeConfigs of the named configs of one topic (all when null), no synonyms nor documentation. */
    static DescribeConfigsRequest describeTopicConfigs(String topic, List<String> keys) {
        return new DescribeConfigsRequest().setIncludeSynonyms(false).setIncludeDocumentation(false)
                .setResources(List.of(new DescribeConfigsRequest.DescribeConfigsResource()
                        .setResourceType(TOPIC_RESOURCE_TYPE).setResourceName(topic).setConfigurationKeys(keys)));
    }

    /** IncrementalAlterConfigs SET of one topic config (operation 0). */
    static IncrementalAlterConfigsRequest incrementalSetTopicConfig(String topic, String name, String value,
                                                                   boolean validateOnly) {
        return new IncrementalAlterConfigsRequest().setValidateOnly(validateOnly)
                .setResources(List.of(new IncrementalAlterConfigsRequest.AlterConfigsResource()
                        .setResourceType(TOPIC_RESOURCE_TYPE).setResourceName(topic)
                        .setConfigs(List.of(new IncrementalAlterConfigsRequest.AlterableConfig().setName(name)
                                .setConfigOperation((byte) 0).setValue(value)))));
    }

    /** AlterConfigs (the legacy whole-set replacement) of one topic with one config. */
    static AlterConfigsRequest alterTopicConfig(String topic, String name, String value, boolean validateOnly) {
        return new AlterConfigsRequest().setValidateOnly(validateOnly)
                .setResources(List.of(new AlterConfigsRequest.AlterConfigsResource()
                        .setResourceType(TOPIC_RESOURCE_TYPE).setResourceName(topic)
                        .setConfigs(List.of(new AlterConfigsRequest.AlterableConfig().setName(name).setValue(value)))));
    }

    /** DescribeConfigs of the named configs of one group (all when null), with synonyms, no documentation. */
    static DescribeConfigsRequest describeGroupConfigs(String group, List<String> keys) {
        return new DescribeConfigsRequest().setIncludeSynonyms(true).setIncludeDocumentation(false)
                .setResources(List.of(new DescribeConfigsRequest.DescribeConfigsResource()
                        .setResourceType(GROUP_RESOURCE_TYPE).setResourceName(group).setConfigurationKeys(keys)));
    }

    /** DescribeConfigs of the named configs of broker {@code id}, with synonyms, no documentation. */
    static DescribeConfigsRequest describeBrokerConfigs(String id, List<String> keys) {
        return new DescribeConfigsRequest().setIncludeSynonyms(true).setIncludeDocumentation(false)
                .setResources(List.of(new DescribeConfigsRequest.DescribeConfigsResource()
                        .setResourceType(BROKER_RESOURCE_TYPE).setResourceName(id).setConfigurationKeys(keys)));
    }

    /** IncrementalAlterConfigs of one group config: SET (operation 0) {@code value}, or DELETE (1) when null. */
    static IncrementalAlterConfigsRequest incrementalAlterGroupConfig(String group, String name, String value,
                                                                     boolean validateOnly) {
        return new IncrementalAlterConfigsRequest().setValidateOnly(validateOnly)
                .setResources(List.of(new IncrementalAlterConfigsRequest.AlterConfigsResource()
                        .setResourceType(GROUP_RESOURCE_TYPE).setResourceName(group)
                        .setConfigs(List.of(new IncrementalAlterConfigsRequest.AlterableConfig().setName(name)
                                .setConfigOperation(value == null ? (byte) 1 : (byte) 0).setValue(value)))));
    }

    /** AlterConfigs (legacy) of one group with one config. */
    static AlterConfigsRequest alterGroupConfig(String group, String name, String value) {
        return new AlterConfigsRequest().setValidateOnly(false)
                .setResources(List.of(new AlterConfigsRequest.AlterConfigsResource()
                        .setResourceType(GROUP_RESOURCE_TYPE).setResourceName(group)
                        .setConfigs(List.of(new AlterConfigsRequest.AlterableConfig().setName(name).setValue(value)))));
    }

    /** DescribeClientQuotas of one entity type: {@code match} exact (type 0), or the default (type 1) when null. */
    static DescribeClientQuotasRequest describeClientQuotas(String entityType, String match, boolean strict) {
        return new DescribeClientQuotasRequest().setStrict(strict)
                .setComponents(List.of(new DescribeClientQuotasRequest.ComponentData().setEntityType(entityType)
                        .setMatchType(match == null ? (byte) 1 : (byte) 0).setMatch(match)));
    }

    /** InitProducerId as an idempotent (not transactional) 4.4 producer sends it. */
    static InitProducerIdRequest idempotentInitProducerId() {
        return new InitProducerIdRequest().setTransactionalId(null).setTransactionTimeoutMs(60_000);
    }

    static ApiVersionsRequest apiVersions() {
        return new ApiVersionsRequest().setClientSoftwareName("apache-kafka-java").setClientSoftwareVersion("4.4.0");
    }

    /** DescribeAcls matching any ACL (kafka-acls --list): resource type ANY, pattern ANY, operation ANY. */
    static DescribeAclsRequest describeAnyAcl() {
        return new DescribeAclsRequest().setResourceTypeFilter((byte) 1).setResourceNameFilter(null)
                .setPatternTypeFilter((byte) 1).setPrincipalFilter(null).setHostFilter(null).setOperation((byte) 1)
                .setPermissionType((byte) 1);
    }

    /** CreateAcls of one ALLOW READ ACL on a literal topic for {@code principal} from any host. */
    static CreateAclsRequest createTopicReadAcl(String topic, String principal) {
        return new CreateAclsRequest().setCreations(List.of(new CreateAclsRequest.AclCreation()
                .setResourceType(TOPIC_RESOURCE_TYPE).setResourceName(topic).setResourcePatternType((byte) 3)
                .setPrincipal(principal).setHost("*").setOperation((byte) 3).setPermissionType((byte) 3)));
    }

    /** DeleteAcls with one filter matching every ACL of a literal topic. */
    static DeleteAclsRequest deleteTopicAcls(String topic) {
        return new DeleteAclsRequest().setFilters(List.of(new DeleteAclsRequest.DeleteAclsFilter()
                .setResourceTypeFilter(TOPIC_RESOURCE_TYPE).setResourceNameFilter(topic).setPatternTypeFilter((byte) 3)
                .setPrincipalFilter(null).setHostFilter(null).setOperation((byte) 1).setPermissionType((byte) 1)));
    }

    static SaslHandshakeRequest saslHandshake(String mechanism) {
        return new SaslHandshakeRequest().setMechanism(mechanism);
    }

    /** A PLAIN initial response ({@code \0user\0password}) as SaslAuthenticate carries it. */
    static SaslAuthenticateRequest saslPlain(String user, String password) {
        return new SaslAuthenticateRequest().setAuthBytes(("\0" + user + "\0" + password).getBytes(StandardCharsets.UTF_8));
    }
}

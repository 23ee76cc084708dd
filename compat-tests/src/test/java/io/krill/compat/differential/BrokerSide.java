package io.krill.compat.differential;

import static org.awaitility.Awaitility.await;

import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.CreateTopicsRequest;
import io.krill.wire.message.DescribeConfigsRequest;
import io.krill.wire.message.FindCoordinatorRequest;
import io.krill.wire.message.IncrementalAlterConfigsRequest;
import io.krill.wire.message.OffsetFetchRequest;
import io.krill.wire.message.ProduceRequest;
import io.krill.wire.protocol.ApiMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DescribeAclsResponseData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * One of the two brokers under comparison, with what a client learns about it before the compared
 * request: the ids its cluster gave the topics the test created (a request naming a topic id names this
 * side's id), the partitions' leader epochs (which a consumer sends back), and the names of values it
 * generated at random (member ids), which {@link ResponseJson} puts in their place. Its set-up steps (create a
 * topic and wait for its leaders, produce, wait for the group coordinator or producer ids) fail with the
 * side's name when the broker refuses them: a set-up that fails on one side only is a difference too.
 *
 * <p>Thread-safe (concurrent maps); the test drives one side at a time.
 */
final class BrokerSide {
    private static final Duration SETUP_TIMEOUT = Duration.ofSeconds(30);
    private static final byte BROKER_RESOURCE_TYPE = 4;
    private static final byte DYNAMIC_DEFAULT_BROKER_CONFIG = 3;
    private static final Set<Errors> TRANSACTION_NOT_READY = Set.of(Errors.COORDINATOR_NOT_AVAILABLE,
            Errors.COORDINATOR_LOAD_IN_PROGRESS, Errors.NOT_COORDINATOR, Errors.CONCURRENT_TRANSACTIONS);
    private static final Set<Errors> COORDINATOR_NOT_READY = Set.of(Errors.COORDINATOR_NOT_AVAILABLE,
            Errors.COORDINATOR_LOAD_IN_PROGRESS, Errors.NOT_COORDINATOR);

    private final ConformanceClient client;
    private final RequestVersions versions;
    private final Map<String, Uuid> topicIds;
    private final Map<String, List<Integer>> leaderEpochs;
    private final Map<String, String> names;
    private final Map<String, String> remembered = new ConcurrentHashMap<>();
    private final Map<String, Producer> producers = new ConcurrentHashMap<>();

    BrokerSide(ConformanceClient client, RequestVersions versions) {
        this(client, versions, new ConcurrentHashMap<>(), new ConcurrentHashMap<>(), new ConcurrentHashMap<>());
    }

    private BrokerSide(ConformanceClient client, RequestVersions versions, Map<String, Uuid> topicIds,
                       Map<String, List<Integer>> leaderEpochs, Map<String, String> names) {
        this.client = client;
        this.versions = versions;
        this.topicIds = topicIds;
        this.leaderEpochs = leaderEpochs;
        this.names = names;
    }

    /**
     * The same broker seen by another client ({@code login}: another user, or none): it shares what this
     * side learnt of topic ids, leader epochs and names, so that its answers are named alike.
     */
    BrokerSide as(String otherName, ConformanceClient.Login login) {
        return new BrokerSide(client.as(otherName, login), versions, topicIds, leaderEpochs, names);
    }

    String name() {
        return client.name();
    }

    /** The version {@code api} is sent at (to both sides). */
    short version(ApiKeys api) {
        return versions.of(api);
    }

    /** Sends {@code body} at the negotiated version of {@code api}. */
    AbstractResponse send(ApiKeys api, ApiMessage body) {
        return client.send(api, versions.of(api), body);
    }

    AbstractResponse send(ApiKeys api, short headerVersion, short bodyVersion, ApiMessage body) {
        return client.send(api, headerVersion, bodyVersion, body);
    }

    /** Writes {@code bytes} as they are on a fresh connection: see {@link RawExchange}. */
    RawExchange.Outcome sendRaw(byte[] bytes, Duration wait) {
        return client.sendRaw(bytes, wait);
    }

    /** This side's id of a topic created through {@link #createTopic}. */
    UUID topicId(String topic) {
        Uuid id = topicIds.get(topic);
        if (id == null) {
            throw new IllegalStateException("no id known on " + name() + " for topic " + topic);
        }
        return new UUID(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }

    /** The leader epoch of a partition created through {@link #createTopic}, as Metadata gave it. */
    int leaderEpoch(String topic, int partition) {
        return leaderEpochs.get(topic).get(partition);
    }

    /**
     * Waits until Metadata shows a leader of every partition of {@code topic} (created through
     * {@link #createTopic}) at a leader epoch above the one known, and keeps the new epochs: after a
     * restart raised them.
     */
    void awaitNewLeaderEpochs(String topic) {
        List<Integer> before = leaderEpochs.get(topic);
        await(name() + ": new leader epochs of " + topic).atMost(SETUP_TIMEOUT).pollInterval(Duration.ofMillis(100))
                .ignoreExceptions()
                .until(() -> {
                    if (!learn(topic, before.size())) {
                        return false;
                    }
                    List<Integer> now = leaderEpochs.get(topic);
                    for (int p = 0; p < now.size(); p++) {
                        if (now.get(p) <= before.get(p)) {
                            leaderEpochs.put(topic, before);
                            return false;
                        }
                    }
                    return true;
                });
    }

    /**
     * Gives a value this broker generated at random by design (a member id) a name that stands for it in
     * both answers; the same value of the other side gets the same name when its sequence learns it.
     */
    void name(String value, String name) {
        if (value != null && !value.isEmpty()) {
            names.put(value, name);
        }
    }

    /**
     * Random values as kafka-clients prints them, to the names they stand for (see {@link ResponseJson}):
     * topic ids to {@code <topic id of NAME>}, and those given through {@link #name}.
     */
    Map<String, String> names() {
        Map<String, String> all = new HashMap<>(names);
        topicIds.forEach((topic, id) -> all.put(id.toString(), "<topic id of " + topic + ">"));
        return all;
    }

    /** Creates {@code topic} (replication factor 1) and waits until Metadata shows a leader for every partition. */
    void createTopic(String topic, int partitions) {
        createTopic(ClientRequests.topic(topic, partitions, 1));
    }

    /** Creates the topic {@code creatable} describes and waits until Metadata shows a leader for every partition. */
    void createTopic(CreateTopicsRequest.CreatableTopic creatable) {
        String topic = creatable.name();
        int partitions = creatable.numPartitions();
        CreateTopicsRequest request = ClientRequests.createTopics(creatable);
        CreateTopicsResponseData created = (CreateTopicsResponseData) send(ApiKeys.CREATE_TOPICS, request).data();
        for (CreateTopicsResponseData.CreatableTopicResult result : created.topics()) {
            requireNone("CreateTopics " + topic, result.errorCode(), result.errorMessage());
        }
        await(name() + ": leaders of " + topic).atMost(SETUP_TIMEOUT).pollInterval(Duration.ofMillis(50))
                .until(() -> learn(topic, partitions));
    }

    /**
     * Deletes {@code topic} (created through {@link #createTopic}), waits until Metadata no longer knows it,
     * and creates it again with {@code partitions}: the same name under a new topic id, which
     * {@link #topicId} then gives.
     */
    void recreateTopic(String topic, int partitions) {
        DeleteTopicsResponseData deleted = (DeleteTopicsResponseData) send(ApiKeys.DELETE_TOPICS,
                ClientRequests.deleteTopics(topic, version(ApiKeys.DELETE_TOPICS))).data();
        for (DeleteTopicsResponseData.DeletableTopicResult result : deleted.responses()) {
            requireNone("DeleteTopics " + topic, result.errorCode(), result.errorMessage());
        }
        await(name() + ": " + topic + " deleted").atMost(SETUP_TIMEOUT).pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    MetadataResponseData data = (MetadataResponseData) send(ApiKeys.METADATA,
                            ClientRequests.metadata(version(ApiKeys.METADATA), topic)).data();
                    MetadataResponseData.MetadataResponseTopic t = data.topics().find(topic);
                    return t == null || t.errorCode() == Errors.UNKNOWN_TOPIC_OR_PARTITION.code();
                });
        createTopic(topic, partitions);
    }

    /** Appends {@code count} small records to a partition created through {@link #createTopic}, acks=all. */
    void produce(String topic, int partition, int count) {
        produce(topic, partition, ClientRequests.batch(count, true));
    }

    /**
     * Appends {@code batch} to a partition created through {@link #createTopic}, acks=all. A new partition's
     * leader may not be ready yet on a loaded machine (NOT_LEADER_OR_FOLLOWER, LEADER_NOT_AVAILABLE): retried
     * for a while, as a producer retries.
     */
    void produce(String topic, int partition, MemoryRecords batch) {
        ProduceRequest request = ClientRequests.produce(topic, topicId(topic), partition, batch, (short) -1);
        java.util.concurrent.atomic.AtomicReference<ProduceResponseData.PartitionProduceResponse> last =
                new java.util.concurrent.atomic.AtomicReference<>();
        try {
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30))
                    .pollInterval(java.time.Duration.ofMillis(100)).until(() -> {
                        ProduceResponseData produced = (ProduceResponseData) send(ApiKeys.PRODUCE, request).data();
                        ProduceResponseData.PartitionProduceResponse p = produced.responses().iterator().next()
                                .partitionResponses().get(0);
                        last.set(p);
                        return p.errorCode() != Errors.NOT_LEADER_OR_FOLLOWER.code()
                                && p.errorCode() != Errors.LEADER_NOT_AVAILABLE.code();
                    });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            // still not ready: reported below with the last answer
        }
        requireNone("Produce to " + topic + "-" + partition, last.get().errorCode(), last.get().errorMessage());
    }

    /**
     * Waits until this broker names itself coordinator of {@code group} (FindCoordinator, which makes it
     * create {@code __consumer_offsets}) and has loaded that partition (OffsetFetch answers without a
     * coordinator error), as a consumer does before it commits or fetches offsets.
     */
    void awaitGroupCoordinator(String group) {
        await(name() + ": coordinator of " + group).atMost(SETUP_TIMEOUT).pollInterval(Duration.ofMillis(100))
                .until(() -> findCoordinator(group) == Errors.NONE);
        await(name() + ": offsets of " + group + " loaded").atMost(SETUP_TIMEOUT).pollInterval(Duration.ofMillis(100))
                .until(() -> !COORDINATOR_NOT_READY.contains(offsetFetchError(group)));
    }

    /**
     * Waits until this broker hands out producer ids (an idempotent producer's InitProducerId is answered
     * COORDINATOR_LOAD_IN_PROGRESS while the first block of ids is being reserved).
     */
    void awaitProducerIds() {
        await(name() + ": producer ids").atMost(SETUP_TIMEOUT).pollInterval(Duration.ofMillis(100)).until(() -> {
            InitProducerIdResponseData data = (InitProducerIdResponseData) send(ApiKeys.INIT_PRODUCER_ID,
                    ClientRequests.idempotentInitProducerId()).data();
            Errors error = Errors.forCode(data.errorCode());
            if (error == Errors.COORDINATOR_LOAD_IN_PROGRESS) {
                return false;
            }
            requireNone("InitProducerId", data.errorCode(), null);
            return true;
        });
    }

    /**
     * The cluster-wide dynamic broker configs (resource BROKER, name "") this broker has: Kafka 4.4 starts
     * with some (its controller writes {@code min.insync.replicas} as a cluster default at bootstrap).
     */
    Map<String, String> clusterDefaults() {
        DescribeConfigsResponseData described = (DescribeConfigsResponseData) send(ApiKeys.DESCRIBE_CONFIGS,
                new DescribeConfigsRequest().setIncludeSynonyms(false).setIncludeDocumentation(false)
                        .setResources(List.of(new DescribeConfigsRequest.DescribeConfigsResource()
                                .setResourceType(BROKER_RESOURCE_TYPE).setResourceName("")
                                .setConfigurationKeys(null)))).data();
        Map<String, String> defaults = new java.util.TreeMap<>();
        for (DescribeConfigsResponseData.DescribeConfigsResult result : described.results()) {
            requireNone("DescribeConfigs of the cluster's broker configs", result.errorCode(), result.errorMessage());
            for (DescribeConfigsResponseData.DescribeConfigsResourceResult config : result.configs()) {
                if (config.configSource() == DYNAMIC_DEFAULT_BROKER_CONFIG) {
                    defaults.put(config.name(), config.value());
                }
            }
        }
        return defaults;
    }

    /** Sets cluster-wide dynamic broker configs, as kafka-configs --entity-default --alter does. */
    void setClusterDefaults(Map<String, String> defaults) {
        if (defaults.isEmpty()) {
            return;
        }
        List<IncrementalAlterConfigsRequest.AlterableConfig> configs = new ArrayList<>();
        defaults.forEach((name, value) -> configs.add(new IncrementalAlterConfigsRequest.AlterableConfig()
                .setName(name).setConfigOperation((byte) 0).setValue(value)));
        IncrementalAlterConfigsResponseData altered = (IncrementalAlterConfigsResponseData) send(
                ApiKeys.INCREMENTAL_ALTER_CONFIGS, new IncrementalAlterConfigsRequest().setValidateOnly(false)
                        .setResources(List.of(new IncrementalAlterConfigsRequest.AlterConfigsResource()
                                .setResourceType(BROKER_RESOURCE_TYPE).setResourceName("").setConfigs(configs)))).data();
        for (IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse response : altered.responses()) {
            requireNone("IncrementalAlterConfigs of the cluster's broker configs " + defaults, response.errorCode(),
                    response.errorMessage());
        }
        await(name() + ": cluster defaults " + defaults).atMost(SETUP_TIMEOUT).pollInterval(Duration.ofMillis(50))
                .until(() -> clusterDefaults().entrySet().containsAll(defaults.entrySet()));
    }

    /** Waits until DescribeAcls (of any ACL) lists at least one: an ACL just created is in force. */
    void awaitAcls() {
        await(name() + ": ACLs in force").atMost(SETUP_TIMEOUT).pollInterval(Duration.ofMillis(50))
                .until(() -> !((DescribeAclsResponseData) send(ApiKeys.DESCRIBE_ACLS, ClientRequests.describeAnyAcl())
                        .data()).resources().isEmpty());
    }

    /** Keeps a value this side's set-up learnt (a member id) for the request built after it. */
    void remember(String key, String value) {
        remembered.put(key, value);
    }

    String remembered(String key) {
        String value = remembered.get(key);
        if (value == null) {
            throw new IllegalStateException("nothing remembered on " + name() + " as " + key);
        }
        return value;
    }

    /** A member of a classic group as the set-up left it. */
    record Member(String group, String memberId, int generation) {
    }

    /**
     * Names a member id this broker's coordinator generated {@code <member N of GROUP>}, N counting the
     * members this side has named in that group: both sides name their members in the same order.
     */
    String nameMember(String group, String memberId) {
        String prefix = "<member ";
        String suffix = " of " + group + ">";
        long known = names.values().stream().filter(n -> n.startsWith(prefix) && n.endsWith(suffix)).count();
        String name = prefix + (known + 1) + suffix;
        name(memberId, name);
        return name;
    }

    /**
     * Joins a new consumer to classic group {@code group} (subscribed to {@code topic}, range assignor) as
     * the 4.4 consumer does: a first JoinGroup that gets a member id (MEMBER_ID_REQUIRED), then the join
     * with it; the member is the group's leader, the group awaits its SyncGroup. Like the consumer, it first
     * waits for the group's coordinator (a fresh node answers NOT_COORDINATOR until __consumer_offsets loads).
     */
    Member joinClassic(String group, String topic) {
        awaitGroupCoordinator(group);
        JoinGroupResponseData first = (JoinGroupResponseData) send(ApiKeys.JOIN_GROUP,
                GroupRequests.join(group, "", topic)).data();
        if (first.errorCode() != Errors.MEMBER_ID_REQUIRED.code()) {
            requireNone("JoinGroup of " + group + " without a member id", first.errorCode(), null);
            nameMember(group, first.memberId());
            return new Member(group, first.memberId(), first.generationId());
        }
        nameMember(group, first.memberId());
        JoinGroupResponseData joined = (JoinGroupResponseData) send(ApiKeys.JOIN_GROUP,
                GroupRequests.join(group, first.memberId(), topic)).data();
        requireNone("JoinGroup of " + group, joined.errorCode(), null);
        return new Member(group, joined.memberId(), joined.generationId());
    }

    /** {@link #joinClassic}, then the leader's SyncGroup assigning itself partition 0: the group is Stable. */
    Member joinAndSyncClassic(String group, String topic) {
        Member member = joinClassic(group, topic);
        SyncGroupResponseData synced = (SyncGroupResponseData) send(ApiKeys.SYNC_GROUP, GroupRequests.sync(group,
                member.generation(), member.memberId(), GroupRequests.assignment(topic), version(ApiKeys.SYNC_GROUP)))
                .data();
        requireNone("SyncGroup of " + group, synced.errorCode(), null);
        return member;
    }

    /** Commits {@code offset} for partition 0 of {@code topic} outside any generation, as the Admin client does. */
    void commitOffset(String group, String topic, long offset) {
        OffsetCommitResponseData committed = (OffsetCommitResponseData) send(ApiKeys.OFFSET_COMMIT,
                ClientRequests.offsetCommit(group, topic, 0, offset)).data();
        for (OffsetCommitResponseData.OffsetCommitResponseTopic t : committed.topics()) {
            for (OffsetCommitResponseData.OffsetCommitResponsePartition p : t.partitions()) {
                requireNone("OffsetCommit of " + group, p.errorCode(), null);
            }
        }
    }

    /** Commits {@code offset} for partition 0 of {@code topic} as {@code member}, within its generation. */
    void commitAsMember(Member member, String topic, long offset) {
        OffsetCommitResponseData committed = (OffsetCommitResponseData) send(ApiKeys.OFFSET_COMMIT,
                GroupRequests.memberCommit(member.group(), member.generation(), member.memberId(), topic, offset)).data();
        for (OffsetCommitResponseData.OffsetCommitResponseTopic t : committed.topics()) {
            for (OffsetCommitResponseData.OffsetCommitResponsePartition p : t.partitions()) {
                requireNone("OffsetCommit of " + member.group() + " by its member", p.errorCode(), null);
            }
        }
    }

    /** A member of a KIP-848 consumer group as the set-up left it. */
    record ConsumerMember(String group, String memberId, int memberEpoch) {
    }

    /**
     * A member id a 4.4 consumer makes for itself (ConsumerGroupHeartbeat v1+): the same text to both
     * sides, derived from the group's name.
     */
    static String clientMemberId(String group) {
        return new Uuid(group.hashCode(), 0x4b52494c4cL).toString();
    }

    /**
     * Joins a KIP-848 consumer to {@code group} subscribed to {@code topic}: one ConsumerGroupHeartbeat with
     * epoch 0 (from v1 with the member id the consumer made, at v0 with the one the coordinator gives).
     */
    ConsumerMember joinConsumerGroup(String group, String topic) {
        short version = version(ApiKeys.CONSUMER_GROUP_HEARTBEAT);
        String memberId = version >= 1 ? clientMemberId(group) : "";
        ConsumerGroupHeartbeatResponseData joined = (ConsumerGroupHeartbeatResponseData) send(
                ApiKeys.CONSUMER_GROUP_HEARTBEAT, GroupRequests.consumerHeartbeat(group, memberId, 0, List.of(topic),
                        null)).data();
        requireNone("ConsumerGroupHeartbeat join of " + group, joined.errorCode(), joined.errorMessage());
        if (version == 0) {
            nameMember(group, joined.memberId());
        }
        return new ConsumerMember(group, joined.memberId(), joined.memberEpoch());
    }

    /** Waits until this broker coordinates transactional id {@code transactionalId} and has loaded its partition. */
    void awaitTransactionCoordinator(String transactionalId) {
        await(name() + ": transaction coordinator of " + transactionalId).atMost(SETUP_TIMEOUT)
                .pollInterval(Duration.ofMillis(100)).until(() -> {
                    FindCoordinatorResponseData data = (FindCoordinatorResponseData) send(ApiKeys.FIND_COORDINATOR,
                            TransactionRequests.findCoordinator(transactionalId)).data();
                    return data.coordinators().get(0).errorCode() == Errors.NONE.code();
                });
    }

    /** A transactional producer as the set-up left it. */
    record Producer(String transactionalId, long producerId, short epoch) {
    }

    /**
     * A transactional producer's start: waits for the transaction coordinator, then InitProducerId
     * (retried while the coordinator is loading or a previous transaction is being completed).
     */
    Producer initTransactional(String transactionalId) {
        awaitTransactionCoordinator(transactionalId);
        InitProducerIdResponseData[] answer = new InitProducerIdResponseData[1];
        await(name() + ": InitProducerId of " + transactionalId).atMost(SETUP_TIMEOUT).pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    answer[0] = (InitProducerIdResponseData) send(ApiKeys.INIT_PRODUCER_ID,
                            TransactionRequests.init(transactionalId)).data();
                    Errors error = Errors.forCode(answer[0].errorCode());
                    if (TRANSACTION_NOT_READY.contains(error)) {
                        return false;
                    }
                    requireNone("InitProducerId of " + transactionalId, answer[0].errorCode(), null);
                    return true;
                });
        return new Producer(transactionalId, answer[0].producerId(), answer[0].producerEpoch());
    }

    /** Starts an idempotent producer (InitProducerId without transactional id) and keeps it as {@code key}. */
    void keepIdempotent(String key) {
        InitProducerIdResponseData data = (InitProducerIdResponseData) send(ApiKeys.INIT_PRODUCER_ID,
                ClientRequests.idempotentInitProducerId()).data();
        requireNone("InitProducerId", data.errorCode(), null);
        producers.put(key, new Producer(null, data.producerId(), data.producerEpoch()));
    }

    /** The idempotent producer kept as {@code key}. */
    Producer idempotent(String key) {
        return producer(key);
    }

    /** Appends {@code count} records to partition 0 of {@code topic} in the producer's transaction, acks=all. */
    void produceTransactional(Producer producer, String topic, int count) {
        ProduceRequest request = ClientRequests.produce(topic, topicId(topic), 0,
                ClientRequests.transactionalBatch(producer.producerId(), producer.epoch(), 0, count), (short) -1)
                .setTransactionalId(producer.transactionalId());
        ProduceResponseData produced = (ProduceResponseData) send(ApiKeys.PRODUCE, request).data();
        for (ProduceResponseData.TopicProduceResponse t : produced.responses()) {
            for (ProduceResponseData.PartitionProduceResponse p : t.partitionResponses()) {
                requireNone("transactional Produce to " + topic, p.errorCode(), p.errorMessage());
            }
        }
    }

    /** Ends the producer's transaction (EndTxn) and waits until partition 0 of {@code topic} is stable again. */
    void endTransaction(Producer producer, boolean commit, String topic) {
        EndTxnResponseData ended = (EndTxnResponseData) send(ApiKeys.END_TXN, TransactionRequests.endTxn(
                producer.transactionalId(), producer.producerId(), producer.epoch(), commit)).data();
        requireNone("EndTxn of " + producer.transactionalId(), ended.errorCode(), null);
        await(name() + ": " + topic + " stable after EndTxn").atMost(SETUP_TIMEOUT).pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    FetchResponseData.PartitionData p = ((FetchResponseData) send(ApiKeys.FETCH, ClientRequests.fetch(
                            topic, topicId(topic), 0, 0L, -1, true)).data()).responses().get(0).partitions().get(0);
                    return p.lastStableOffset() == p.highWatermark();
                });
    }

    /** Keeps a producer the set-up started, for requests that name its id and epoch. */
    void keep(Producer producer) {
        producers.put(producer.transactionalId(), producer);
    }

    Producer producer(String transactionalId) {
        Producer producer = producers.get(transactionalId);
        if (producer == null) {
            throw new IllegalStateException("no producer kept on " + name() + " for " + transactionalId);
        }
        return producer;
    }

    /** Adds partition 0 of {@code topic} to the producer's transaction (AddPartitionsToTxn v3 or lower). */
    void addPartition(Producer producer, String topic) {
        short version = (short) Math.min(3, version(ApiKeys.ADD_PARTITIONS_TO_TXN));
        AddPartitionsToTxnResponseData added = (AddPartitionsToTxnResponseData) send(ApiKeys.ADD_PARTITIONS_TO_TXN,
                version, version, TransactionRequests.addPartition(producer.transactionalId(), producer.producerId(),
                        producer.epoch(), topic)).data();
        for (AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResult t : added.resultsByTopicV3AndBelow()) {
            for (AddPartitionsToTxnResponseData.AddPartitionsToTxnPartitionResult p : t.resultsByPartition()) {
                requireNone("AddPartitionsToTxn of " + producer.transactionalId(), p.partitionErrorCode(), null);
            }
        }
    }

    private boolean learn(String topic, int partitions) {
        MetadataResponseData data = (MetadataResponseData) send(ApiKeys.METADATA, ClientRequests.metadata(version(ApiKeys.METADATA), topic)).data();
        MetadataResponseData.MetadataResponseTopic t = data.topics().find(topic);
        if (t == null || t.errorCode() != Errors.NONE.code() || t.partitions().size() != partitions) {
            return false;
        }
        Integer[] epochs = new Integer[partitions];
        for (MetadataResponseData.MetadataResponsePartition p : t.partitions()) {
            if (p.errorCode() != Errors.NONE.code() || p.leaderId() < 0) {
                return false;
            }
            epochs[p.partitionIndex()] = p.leaderEpoch();
        }
        topicIds.put(topic, t.topicId());
        leaderEpochs.put(topic, List.of(epochs));
        return true;
    }

    private Errors findCoordinator(String group) {
        FindCoordinatorRequest request = ClientRequests.findGroupCoordinator(group, version(ApiKeys.FIND_COORDINATOR));
        FindCoordinatorResponseData data = (FindCoordinatorResponseData) send(ApiKeys.FIND_COORDINATOR, request).data();
        short code = data.coordinators().isEmpty() ? data.errorCode() : data.coordinators().get(0).errorCode();
        return Errors.forCode(code);
    }

    private Errors offsetFetchError(String group) {
        OffsetFetchRequest request = ClientRequests.offsetFetch(group, null, null, version(ApiKeys.OFFSET_FETCH));
        OffsetFetchResponseData data = (OffsetFetchResponseData) send(ApiKeys.OFFSET_FETCH, request).data();
        return Errors.forCode(data.groups().isEmpty() ? data.errorCode() : data.groups().get(0).errorCode());
    }

    private void requireNone(String what, short errorCode, String message) {
        if (errorCode != Errors.NONE.code()) {
            throw new AssertionError("set-up failed on " + name() + ": " + what + " answered "
                    + Errors.forCode(errorCode) + (message == null ? "" : " (" + message + ")"));
        }
    }

    @Override
    public String toString() {
        return client.toString();
    }
}

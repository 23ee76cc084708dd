package io.krill.compat.differential;

import static org.awaitility.Awaitility.await;

import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.CreateTopicsRequest;
import io.krill.wire.message.FindCoordinatorRequest;
import io.krill.wire.message.OffsetFetchRequest;
import io.krill.wire.message.ProduceRequest;
import io.krill.wire.protocol.ApiMessage;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * One of the two brokers under comparison, with what a client learns about it before the compared
 * request: the ids its cluster gave the topics the test created (a request naming a topic id names this
 * side's id) and the partitions' leader epochs (which a consumer sends back). Its set-up steps (create a
 * topic and wait for its leaders, produce, wait for the group coordinator or producer ids) fail with the
 * side's name when the broker refuses them: a set-up that fails on one side only is a difference too.
 *
 * <p>Thread-safe (concurrent maps); the test drives one side at a time.
 */
final class BrokerSide {
    private static final Duration SETUP_TIMEOUT = Duration.ofSeconds(30);
    private static final Set<Errors> COORDINATOR_NOT_READY = Set.of(Errors.COORDINATOR_NOT_AVAILABLE,
            Errors.COORDINATOR_LOAD_IN_PROGRESS, Errors.NOT_COORDINATOR);

    private final ConformanceClient client;
    private final RequestVersions versions;
    private final Map<String, Uuid> topicIds = new ConcurrentHashMap<>();
    private final Map<String, List<Integer>> leaderEpochs = new ConcurrentHashMap<>();

    BrokerSide(ConformanceClient client, RequestVersions versions) {
        this.client = client;
        this.versions = versions;
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

    /** Topic ids as kafka-clients prints them, to the name of their topic: see {@link ResponseJson}. */
    Map<String, String> topicIdNames() {
        return topicIds.entrySet().stream().collect(Collectors.toMap(e -> e.getValue().toString(), Map.Entry::getKey));
    }

    /** Creates {@code topic} (replication factor 1) and waits until Metadata shows a leader for every partition. */
    void createTopic(String topic, int partitions) {
        CreateTopicsRequest request = ClientRequests.createTopics(ClientRequests.topic(topic, partitions, 1));
        CreateTopicsResponseData created = (CreateTopicsResponseData) send(ApiKeys.CREATE_TOPICS, request).data();
        for (CreateTopicsResponseData.CreatableTopicResult result : created.topics()) {
            requireNone("CreateTopics " + topic, result.errorCode(), result.errorMessage());
        }
        await(name() + ": leaders of " + topic).atMost(SETUP_TIMEOUT).pollInterval(Duration.ofMillis(50))
                .until(() -> learn(topic, partitions));
    }

    /** Appends {@code count} small records to a partition created through {@link #createTopic}, acks=all. */
    void produce(String topic, int partition, int count) {
        ProduceRequest request = ClientRequests.produce(topic, topicId(topic), partition, count);
        ProduceResponseData produced = (ProduceResponseData) send(ApiKeys.PRODUCE, request).data();
        for (ProduceResponseData.TopicProduceResponse t : produced.responses()) {
            for (ProduceResponseData.PartitionProduceResponse p : t.partitionResponses()) {
                requireNone("Produce to " + topic + "-" + partition, p.errorCode(), p.errorMessage());
            }
        }
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

    private boolean learn(String topic, int partitions) {
        MetadataResponseData data = (MetadataResponseData) send(ApiKeys.METADATA, ClientRequests.metadata(topic)).data();
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

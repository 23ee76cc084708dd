package io.krill.compat.differential;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.krill.compat.KrillBrokerExtension;
import io.krill.compat.support.BrokerApis;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.protocol.ApiMessage;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Differential conformance: the same request sequences sent to Apache Kafka 4.4 (one KRaft node in a JVM
 * of its own, {@link KafkaKraftProcess}) and to Krill (in-process, {@link KrillBrokerExtension}), and the
 * answers compared field by field ({@link ResponseDiff}). Each test is one sequence: set-up requests on
 * both sides (topics, records, a ready coordinator), then the compared request. Requests are Krill's
 * codecs ({@link ClientRequests}, at the version a 4.4 client would send to both: {@link RequestVersions}),
 * answers are parsed and turned to JSON by kafka-clients; only the {@link AllowList} may differ.
 *
 * <p>Where Krill really differs, the sequence stays strict and is {@code @Disabled("KNOWN DIFFERENCE: ...")}
 * with the diff in its reason, until Krill is fixed. Every topic, group and id is the sequence's own, so
 * sequences do not depend on their order.
 */
class DifferentialConformanceTest {
    private static final Duration KAFKA_START_TIMEOUT = Duration.ofSeconds(120);
    /** A topic id neither cluster has: the same bytes to both sides. */
    private static final UUID UNKNOWN_TOPIC_ID = UUID.fromString("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0");

    @RegisterExtension
    @Order(1)
    static final KafkaKraftProcess KAFKA = new KafkaKraftProcess();

    /** Configured as KafkaKraftProcess configures Kafka where it matters to a single node. */
    @RegisterExtension
    @Order(2)
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension()
            .with("offsets.topic.replication.factor", "1")
            .with("offsets.topic.num.partitions", "1");

    private static BrokerSide kafka;
    private static BrokerSide krill;

    @BeforeAll
    static void bothBrokersServe() {
        KAFKA.awaitReady(KAFKA_START_TIMEOUT);
        RequestVersions versions = RequestVersions.negotiate(BrokerApis.probe(KAFKA.host(), KAFKA.port()),
                KRILL.apis());
        kafka = new BrokerSide(new ConformanceClient("kafka", KAFKA.host(), KAFKA.port()), versions);
        krill = new BrokerSide(new ConformanceClient("krill", "127.0.0.1", KRILL.port()), versions);
        System.out.println("differential conformance, versions sent: " + versions);
        System.out.println("allow-list:\n  " + String.join("\n  ",
                AllowList.DEFAULT.entries().stream().map(AllowList.Entry::toString).toList()));
    }

    // ---- Metadata

    @Test
    void metadataOfAnUnknownTopicWithoutAutoCreation() {
        Answers answers = compare("Metadata of an unknown topic", ApiKeys.METADATA,
                (side, version) -> ClientRequests.metadata("diff-md-unknown"));
        answers.assertKafka("/topics/0/errorCode", Errors.UNKNOWN_TOPIC_OR_PARTITION);
    }

    @Test
    void metadataOfAnExistingTopic() {
        both(side -> side.createTopic("diff-md-existing", 2));
        Answers answers = compare("Metadata of an existing topic", ApiKeys.METADATA,
                (side, version) -> ClientRequests.metadata("diff-md-existing"));
        answers.assertKafka("/topics/0/errorCode", Errors.NONE);
    }

    // ---- CreateTopics

    @Test
    void createTopicsWithAnExistingName() {
        both(side -> side.createTopic("diff-ct-existing", 1));
        Answers answers = compare("CreateTopics with an existing name", ApiKeys.CREATE_TOPICS,
                (side, version) -> ClientRequests.createTopics(ClientRequests.topic("diff-ct-existing", 1, 1)));
        answers.assertKafka("/topics/0/errorCode", Errors.TOPIC_ALREADY_EXISTS);
    }

    @Test
    void createTopicsWithAnInvalidName() {
        Answers answers = compare("CreateTopics with an invalid name", ApiKeys.CREATE_TOPICS,
                (side, version) -> ClientRequests.createTopics(ClientRequests.topic("diff/ct invalid", 1, 1)));
        answers.assertKafka("/topics/0/errorCode", Errors.INVALID_TOPIC_EXCEPTION);
    }

    @Test
    void createTopicsWithAReplicationFactorLargerThanTheBrokers() {
        Answers answers = compare("CreateTopics with replication factor 3 on one broker", ApiKeys.CREATE_TOPICS,
                (side, version) -> ClientRequests.createTopics(ClientRequests.topic("diff-ct-replication", 1, 3)));
        answers.assertKafka("/topics/0/errorCode", Errors.INVALID_REPLICATION_FACTOR);
    }

    @Test
    void createTopicsWithAnInvalidConfig() {
        Answers answers = compare("CreateTopics with retention.ms=not-a-number", ApiKeys.CREATE_TOPICS,
                (side, version) -> ClientRequests.createTopics(ClientRequests.topic("diff-ct-config", 1, 1)
                        .setConfigs(List.of(new io.krill.wire.message.CreateTopicsRequest.CreatableTopicConfig()
                                .setName("retention.ms").setValue("not-a-number")))));
        answers.assertKafka("/topics/0/errorCode", Errors.INVALID_CONFIG);
    }

    // ---- DeleteTopics

    @Test
    void deleteTopicsOfAnUnknownTopic() {
        Answers answers = compare("DeleteTopics of an unknown topic", ApiKeys.DELETE_TOPICS,
                (side, version) -> ClientRequests.deleteTopics("diff-dt-unknown", version));
        answers.assertKafka("/responses/0/errorCode", Errors.UNKNOWN_TOPIC_OR_PARTITION);
    }

    // ---- Produce

    @Test
    void produceToAnUnknownTopic() {
        Answers answers = compare("Produce to an unknown topic", ApiKeys.PRODUCE,
                (side, version) -> ClientRequests.produce("diff-pr-unknown", UNKNOWN_TOPIC_ID, 0, 1));
        answers.assertKafka("/responses/0/partitionResponses/0/errorCode",
                kafka.version(ApiKeys.PRODUCE) >= 13 ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION);
    }

    @Test
    void produceToAnUnknownPartition() {
        both(side -> side.createTopic("diff-pr-partition", 1));
        Answers answers = compare("Produce to an unknown partition", ApiKeys.PRODUCE,
                (side, version) -> ClientRequests.produce("diff-pr-partition", side.topicId("diff-pr-partition"), 7, 1));
        answers.assertKafka("/responses/0/partitionResponses/0/errorCode", Errors.UNKNOWN_TOPIC_OR_PARTITION);
    }

    // ---- Fetch

    @Test
    void fetchOfAnUnknownPartition() {
        both(side -> side.createTopic("diff-fe-partition", 1));
        Answers answers = compare("Fetch of an unknown partition", ApiKeys.FETCH,
                (side, version) -> ClientRequests.fetch("diff-fe-partition", side.topicId("diff-fe-partition"), 7, 0L,
                        -1));
        answers.assertKafka("/responses/0/partitions/0/errorCode", Errors.UNKNOWN_TOPIC_OR_PARTITION);
    }

    @Test
    void fetchOfAnOffsetPastTheEnd() {
        both(side -> {
            side.createTopic("diff-fe-end", 1);
            side.produce("diff-fe-end", 0, 3);
        });
        Answers answers = compare("Fetch of an offset past the end", ApiKeys.FETCH,
                (side, version) -> ClientRequests.fetch("diff-fe-end", side.topicId("diff-fe-end"), 0, 100L,
                        side.leaderEpoch("diff-fe-end", 0)));
        answers.assertKafka("/responses/0/partitions/0/errorCode", Errors.OFFSET_OUT_OF_RANGE);
        for (JsonNode answer : List.of(answers.kafka(), answers.krill())) {
            JsonNode records = answer.at("/responses/0/partitions/0/records");
            assertTrue(records.isBinary() && records.asText().isEmpty(),
                    "an out-of-range fetch carries an empty (not null) record set: " + records);
        }
    }

    // ---- ListOffsets

    @Test
    void listOffsetsOfAnUnknownPartition() {
        both(side -> side.createTopic("diff-lo-partition", 1));
        Answers answers = compare("ListOffsets of an unknown partition", ApiKeys.LIST_OFFSETS,
                (side, version) -> ClientRequests.listLatestOffset("diff-lo-partition", 7));
        answers.assertKafka("/topics/0/partitions/0/errorCode", Errors.UNKNOWN_TOPIC_OR_PARTITION);
    }

    // ---- Group offsets

    @Test
    void offsetCommitForAnUnknownTopicAndGroup() {
        both(side -> side.awaitGroupCoordinator("diff-oc-group"));
        Answers answers = compare("OffsetCommit of an unknown topic by an unknown group", ApiKeys.OFFSET_COMMIT,
                (side, version) -> ClientRequests.offsetCommit("diff-oc-group", "diff-oc-unknown", 0, 5L));
        answers.assertKafka("/topics/0/partitions/0/errorCode", Errors.UNKNOWN_TOPIC_OR_PARTITION);
    }

    @Test
    void offsetFetchOfAnUnknownTopicForAnUnknownGroup() {
        both(side -> side.awaitGroupCoordinator("diff-of-group"));
        compare("OffsetFetch of an unknown topic's partitions for an unknown group", ApiKeys.OFFSET_FETCH,
                (side, version) -> ClientRequests.offsetFetch("diff-of-group", "diff-of-unknown", List.of(0, 1),
                        version));
    }

    @Test
    void offsetFetchOfAllTopicsForAnUnknownGroup() {
        both(side -> side.awaitGroupCoordinator("diff-of-all-group"));
        compare("OffsetFetch of all topics for an unknown group", ApiKeys.OFFSET_FETCH,
                (side, version) -> ClientRequests.offsetFetch("diff-of-all-group", null, null, version));
    }

    @Test
    void findCoordinatorOfAGroup() {
        both(side -> side.awaitGroupCoordinator("diff-fc-group"));
        Answers answers = compare("FindCoordinator of a group", ApiKeys.FIND_COORDINATOR,
                (side, version) -> ClientRequests.findGroupCoordinator("diff-fc-group", version));
        answers.assertKafka("/coordinators/0/errorCode", Errors.NONE);
    }

    // ---- Configs, producer ids, versions

    @Test
    void describeConfigsOfAnUnknownTopic() {
        Answers answers = compare("DescribeConfigs of an unknown topic", ApiKeys.DESCRIBE_CONFIGS,
                (side, version) -> ClientRequests.describeTopicConfigs("diff-dc-unknown"));
        answers.assertKafka("/results/0/errorCode", Errors.UNKNOWN_TOPIC_OR_PARTITION);
    }

    @Test
    void initProducerIdWithoutTransactionalId() {
        both(BrokerSide::awaitProducerIds);
        Answers answers = compare("InitProducerId of an idempotent producer", ApiKeys.INIT_PRODUCER_ID,
                (side, version) -> ClientRequests.idempotentInitProducerId());
        answers.assertKafka("/errorCode", Errors.NONE);
    }

    /**
     * A version beyond any broker's: the header says v127, the body is the highest layout both write
     * (brokers do not read it). Kafka answers v0, UNSUPPORTED_VERSION, with its ApiVersions range, which
     * kafka-clients parses by falling back to v0; the JSON is therefore written at v0.
     */
    @Test
    void apiVersionsAtAnUnsupportedVersion() {
        short bodyVersion = kafka.version(ApiKeys.API_VERSIONS);
        Answers answers = compare("ApiVersions v127", ApiKeys.API_VERSIONS, (short) 127, bodyVersion, (short) 0,
                (side, version) -> ClientRequests.apiVersions());
        answers.assertKafka("/errorCode", Errors.UNSUPPORTED_VERSION);
    }

    // ---- the comparison

    /** A request body for one side at the version it is written at. */
    @FunctionalInterface
    private interface RequestBody {
        ApiMessage build(BrokerSide side, short version);
    }

    /** Both answers as compared (topic ids replaced by their topic's name). */
    private record Answers(JsonNode kafka, JsonNode krill) {
        /** Checks that the sequence means what its name says: Kafka's answer carries {@code expected}. */
        void assertKafka(String pointer, Errors expected) {
            assertEquals(expected.code(), kafka.at(pointer).asInt(Integer.MIN_VALUE),
                    "Kafka's " + pointer + " (the sequence is not testing what it claims): " + kafka);
        }
    }

    private static void both(Consumer<BrokerSide> setUp) {
        setUp.accept(kafka);
        setUp.accept(krill);
    }

    private static Answers compare(String title, ApiKeys api, RequestBody body) {
        short version = kafka.version(api);
        return compare(title, api, version, version, version, body);
    }

    /**
     * Sends {@code body} to both brokers, turns both answers to JSON at {@code jsonVersion}, and fails with
     * the report unless they differ only where the allow-list says they may.
     */
    private static Answers compare(String title, ApiKeys api, short headerVersion, short bodyVersion,
                                   short jsonVersion, RequestBody body) {
        String fullTitle = title + " (" + api.apiName() + " v" + headerVersion + ")";
        JsonNode onKafka = answer(kafka, api, headerVersion, bodyVersion, jsonVersion, body);
        JsonNode onKrill = answer(krill, api, headerVersion, bodyVersion, jsonVersion, body);
        ResponseDiff diff = ResponseDiff.compare(fullTitle, api.apiName(), onKafka, onKrill, AllowList.DEFAULT);
        System.out.println(diff.report());
        if (!diff.unexpected().isEmpty()) {
            throw new AssertionError(diff.report());
        }
        return new Answers(onKafka, onKrill);
    }

    private static JsonNode answer(BrokerSide side, ApiKeys api, short headerVersion, short bodyVersion,
                                   short jsonVersion, RequestBody body) {
        AbstractResponse response;
        try {
            response = side.send(api, headerVersion, bodyVersion, body.build(side, bodyVersion));
        } catch (RuntimeException e) {
            throw new AssertionError(api.apiName() + " v" + headerVersion + " to " + side + ": no answer kafka-clients"
                    + " can parse: " + e, e);
        }
        return ResponseJson.withTopicNames(ResponseJson.write(response.data(), jsonVersion), side.topicIdNames());
    }
}

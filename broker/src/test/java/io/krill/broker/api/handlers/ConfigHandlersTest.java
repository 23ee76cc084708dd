package io.krill.broker.api.handlers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.api.Request;
import io.krill.broker.config.ConfigSource;
import io.krill.broker.security.KafkaPrincipal;
import io.krill.controller.metadata.FinalizedFeatures;
import io.krill.controller.metadata.NewTopic;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.AlterConfigsRequest;
import io.krill.wire.message.AlterConfigsResponse;
import io.krill.wire.message.DescribeConfigsRequest;
import io.krill.wire.message.DescribeConfigsResponse;
import io.krill.wire.message.IncrementalAlterConfigsRequest;
import io.krill.wire.message.IncrementalAlterConfigsResponse;
import io.krill.wire.protocol.ApiMessage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** DescribeConfigs, AlterConfigs and IncrementalAlterConfigs through the wire format. */
class ConfigHandlersTest {
    private static final byte TOPIC = ConfigResourceType.TOPIC.id();
    private static final byte BROKER = ConfigResourceType.BROKER.id();
    private static final byte BROKER_LOGGER = ConfigResourceType.BROKER_LOGGER.id();
    private static final byte GROUP = ConfigResourceType.GROUP.id();

    @TempDir
    Path dir;
    private HandlerFixture broker;

    @BeforeEach
    void start() {
        broker = HandlerFixture.start(dir);
        broker.metadata.createTopic(new NewTopic("t", 1, 1, Map.of(), Map.of("retention.ms", "1000",
                "segment.ms", "60000"), false));
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    private DescribeConfigsResponse describe(int version, byte type, String name, String... keys) {
        DescribeConfigsRequest.DescribeConfigsResource resource = new DescribeConfigsRequest.DescribeConfigsResource()
                .setResourceType(type).setResourceName(name).setConfigurationKeys(keys.length == 0 ? null
                        : new ArrayList<>(List.of(keys)));
        return broker.call(new DescribeConfigsHandler(broker.context), version, new DescribeConfigsRequest()
                .setResources(new ArrayList<>(List.of(resource))).setIncludeSynonyms(true).setIncludeDocumentation(version >= 3));
    }

    private AlterConfigsResponse alter(boolean validateOnly, byte type, String name, String... keyValues) {
        AlterConfigsRequest.AlterConfigsResource resource = new AlterConfigsRequest.AlterConfigsResource()
                .setResourceType(type).setResourceName(name);
        for (int i = 0; i < keyValues.length; i += 2) {
            resource.configs().add(new AlterConfigsRequest.AlterableConfig().setName(keyValues[i]).setValue(keyValues[i + 1]));
        }
        return broker.call(new AlterConfigsHandler(broker.context), 2, new AlterConfigsRequest()
                .setResources(new ArrayList<>(List.of(resource))).setValidateOnly(validateOnly));
    }

    private static IncrementalAlterConfigsRequest.AlterableConfig op(String key, int op, String value) {
        return new IncrementalAlterConfigsRequest.AlterableConfig().setName(key).setConfigOperation((byte) op).setValue(value);
    }

    private IncrementalAlterConfigsResponse incremental(int version, byte type, String name,
                                                        IncrementalAlterConfigsRequest.AlterableConfig... ops) {
        return broker.call(new IncrementalAlterConfigsHandler(broker.context), version, new IncrementalAlterConfigsRequest()
                .setResources(new ArrayList<>(List.of(new IncrementalAlterConfigsRequest.AlterConfigsResource()
                        .setResourceType(type).setResourceName(name).setConfigs(new ArrayList<>(List.of(ops)))))));
    }

    @Test
    void describesTopicsAtEveryVersion() {
        DescribeConfigsHandler handler = new DescribeConfigsHandler(broker.context);
        for (int version = handler.minVersion(); version <= handler.maxVersion(); version++) {
            DescribeConfigsResponse.DescribeConfigsResult result = describe(version, TOPIC, "t", "retention.ms",
                    "cleanup.policy").results().get(0);
            assertEquals(Errors.NONE.code(), result.errorCode());
            assertEquals(List.of("cleanup.policy", "retention.ms"), result.configs().stream()
                    .map(DescribeConfigsResponse.DescribeConfigsResourceResult::name).toList());
            DescribeConfigsResponse.DescribeConfigsResourceResult retention = result.configs().get(1);
            assertEquals("1000", retention.value());
            assertEquals(1, retention.configSource());
            assertEquals(1, retention.synonyms().size());
            assertEquals(version >= 3 ? 5 : 0, retention.configType(), "LONG from v3");
            assertEquals(version >= 3, retention.documentation() != null && !retention.documentation().isEmpty());
        }
        assertTrue(describe(4, TOPIC, "t").results().get(0).configs().size() > 30, "every topic key");
    }

    @Test
    void describeErrorsAreKafkas() {
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), describe(4, TOPIC, "missing").results().get(0).errorCode());
        assertEquals(Errors.INVALID_TOPIC_EXCEPTION.code(), describe(4, TOPIC, "bad name").results().get(0).errorCode());
        DescribeConfigsResponse.DescribeConfigsResult otherBroker = describe(4, BROKER, "2").results().get(0);
        assertEquals(Errors.INVALID_REQUEST.code(), otherBroker.errorCode());
        assertEquals("Unexpected broker id, expected 1 or empty string, but received 2", otherBroker.errorMessage());
        assertEquals("Broker id must be an integer, but it is: x", describe(4, BROKER, "x").results().get(0).errorMessage());
        assertEquals(Errors.NONE.code(), describe(4, BROKER_LOGGER, "1").results().get(0).errorCode());
        assertEquals(Errors.INVALID_REQUEST.code(), describe(4, BROKER_LOGGER, "").results().get(0).errorCode());
        assertEquals(Errors.INVALID_REQUEST.code(), describe(4, GROUP, "").results().get(0).errorCode());
        DescribeConfigsResponse.DescribeConfigsResult self = describe(4, BROKER, "1", "node.id").results().get(0);
        assertEquals("1", self.configs().get(0).value());
        assertTrue(self.configs().get(0).readOnly());
    }

    @Test
    void legacyAlterConfigsReplacesEveryOverride() {
        AlterConfigsResponse checked = alter(true, TOPIC, "t", "retention.ms", "2000");
        assertEquals(Errors.NONE.code(), checked.responses().get(0).errorCode());
        assertEquals(Map.of("retention.ms", "1000", "segment.ms", "60000"), broker.metadata.image().topic("t").configs());

        assertEquals(Errors.NONE.code(), alter(false, TOPIC, "t", "retention.ms", "2000").responses().get(0).errorCode());
        assertEquals(Map.of("retention.ms", "2000"), broker.metadata.image().topic("t").configs());
        assertEquals(2000L, broker.partitions.partition("t", 0).log().config().retentionMs(), "the live log follows");

        AlterConfigsResponse.AlterConfigsResourceResponse bad = alter(false, TOPIC, "t", "retention.ms", "x").responses().get(0);
        assertEquals(Errors.INVALID_CONFIG.code(), bad.errorCode());
        assertEquals(Errors.INVALID_REQUEST.code(), alter(false, TOPIC, "t", "retention.ms", null).responses().get(0)
                .errorCode());
        assertEquals(Errors.INVALID_REQUEST.code(), alter(false, TOPIC, "t", "retention.ms", "1", "retention.ms", "2")
                .responses().get(0).errorCode());
        AlterConfigsResponse.AlterConfigsResourceResponse missing = alter(false, TOPIC, "missing", "retention.ms", "1")
                .responses().get(0);
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), missing.errorCode());
        assertEquals("The topic 'missing' does not exist.", missing.errorMessage());
        assertEquals(Errors.INVALID_REQUEST.code(), alter(false, BROKER, "1", "num.io.threads", "4").responses().get(0)
                .errorCode(), "dynamic in Kafka, but Krill reads it only at startup");
        assertEquals(Errors.INVALID_CONFIG.code(), alter(false, BROKER, "1", "node.id", "4").responses().get(0)
                .errorCode(), "not a dynamic config");
        assertEquals(Errors.NONE.code(), alter(false, BROKER, "1").responses().get(0).errorCode(), "nothing to change");
        assertEquals(Errors.INVALID_REQUEST.code(), alter(false, BROKER_LOGGER, "1").responses().get(0).errorCode());
        assertEquals(Map.of("retention.ms", "2000"), broker.metadata.image().topic("t").configs());
    }

    @Test
    void incrementalAlterConfigsAppliesOperationsToTheCurrentOverrides() {
        for (int version = 0; version <= 1; version++) {
            IncrementalAlterConfigsResponse response = incremental(version, TOPIC, "t", op("segment.ms", 1, null),
                    op("cleanup.policy", 2, "compact"), op("retention.ms", 0, "300" + version));
            assertEquals(Errors.NONE.code(), response.responses().get(0).errorCode());
            assertNull(response.responses().get(0).errorMessage());
            assertEquals(Map.of("retention.ms", "300" + version, "cleanup.policy", "delete,compact"),
                    broker.metadata.image().topic("t").configs());
        }
        assertTrue(broker.partitions.partition("t", 0).config().compact());
        IncrementalAlterConfigsResponse.AlterConfigsResourceResponse notAList = incremental(1, TOPIC, "t",
                op("retention.ms", 2, "1")).responses().get(0);
        assertEquals(Errors.INVALID_CONFIG.code(), notAList.errorCode());
        assertEquals("Can't APPEND to key retention.ms because its type is not LIST.", notAList.errorMessage());
        assertEquals(Errors.INVALID_REQUEST.code(), incremental(1, TOPIC, "t", op("retention.ms", 9, "1")).responses().get(0)
                .errorCode(), "unknown operation");
        assertEquals(Errors.INVALID_REQUEST.code(), incremental(1, TOPIC, "t", op("retention.ms", 0, null)).responses().get(0)
                .errorCode());
        assertEquals(Errors.INVALID_REQUEST.code(), incremental(1, TOPIC, "", op("retention.ms", 0, "1")).responses().get(0)
                .errorCode(), "no default topic resource");
        assertEquals(Errors.INVALID_REQUEST.code(), incremental(1, BROKER_LOGGER, "1", op("root", 0, "DEBUG")).responses()
                .get(0).errorCode());
        assertEquals("Unexpected broker id, expected 1, but received 3", incremental(1, BROKER, "3",
                op("log.retention.ms", 0, "1")).responses().get(0).errorMessage());
        assertEquals(Map.of("retention.ms", "3001", "cleanup.policy", "delete,compact"),
                broker.metadata.image().topic("t").configs());
    }

    @Test
    void groupConfigsAreSetDescribedAndDeletedForAnyGroupId() {
        IncrementalAlterConfigsResponse.AlterConfigsResourceResponse set = incremental(1, GROUP, "no-such-group",
                op("share.auto.offset.reset", 0, "earliest"), op("share.record.lock.duration.ms", 0, "20000"))
                .responses().get(0);
        assertEquals(Errors.NONE.code(), set.errorCode());
        assertEquals(Map.of("share.auto.offset.reset", "earliest", "share.record.lock.duration.ms", "20000"),
                broker.metadata.image().entityConfigs("groups/no-such-group"));

        DescribeConfigsResponse.DescribeConfigsResult described = describe(4, GROUP, "no-such-group",
                "share.auto.offset.reset", "share.session.timeout.ms").results().get(0);
        assertEquals(Errors.NONE.code(), described.errorCode());
        Map<String, DescribeConfigsResponse.DescribeConfigsResourceResult> byName = new java.util.HashMap<>();
        described.configs().forEach(c -> byName.put(c.name(), c));
        assertEquals("earliest", byName.get("share.auto.offset.reset").value());
        assertEquals(ConfigSource.GROUP_CONFIG.id(), byName.get("share.auto.offset.reset").configSource());
        assertEquals("45000", byName.get("share.session.timeout.ms").value());
        assertEquals(ConfigSource.DEFAULT_CONFIG.id(), byName.get("share.session.timeout.ms").configSource());
        assertEquals("group.share.session.timeout.ms",
                byName.get("share.session.timeout.ms").synonyms().get(0).name());

        IncrementalAlterConfigsResponse.AlterConfigsResourceResponse outOfBounds = incremental(1, GROUP,
                "no-such-group", op("share.session.timeout.ms", 0, "1000")).responses().get(0);
        assertEquals(Errors.INVALID_CONFIG.code(), outOfBounds.errorCode());
        assertEquals("share.session.timeout.ms must be in the range 45000 to 60000 inclusive.",
                outOfBounds.errorMessage());
        assertEquals(Errors.INVALID_CONFIG.code(), incremental(1, GROUP, "g", op("no.such", 0, "1")).responses()
                .get(0).errorCode());
        assertEquals("Default group resources are not allowed.", incremental(1, GROUP, "",
                op("share.auto.offset.reset", 0, "earliest")).responses().get(0).errorMessage());
        assertEquals(Errors.NONE.code(), incremental(1, GROUP, "no-such-group", op("share.auto.offset.reset", 1,
                null)).responses().get(0).errorCode());
        assertEquals(Map.of("share.record.lock.duration.ms", "20000"),
                broker.metadata.image().entityConfigs("groups/no-such-group"));

        assertEquals(Errors.NONE.code(), alter(false, GROUP, "no-such-group", "share.isolation.level",
                "read_committed").responses().get(0).errorCode());
        assertEquals(Map.of("share.isolation.level", "read_committed"),
                broker.metadata.image().entityConfigs("groups/no-such-group"), "AlterConfigs replaces them all");
        assertEquals(Errors.INVALID_CONFIG.code(), alter(false, GROUP, "g", "share.isolation.level", "dirty")
                .responses().get(0).errorCode());
    }

    @Test
    void dynamicBrokerConfigsReachTopicDefaultsAndDescribeConfigs() {
        broker.append("t", 0, 1);
        assertEquals(Errors.NONE.code(), incremental(1, BROKER, "", op("log.retention.bytes", 0, "12345"))
                .responses().get(0).errorCode());
        assertEquals(Map.of("log.retention.bytes", "12345"), broker.metadata.image().entityConfigs(""));
        assertEquals(12345L, broker.partitions.partition("t", 0).config().retentionBytes(),
                "a topic without its own override follows the cluster default");
        assertEquals(Errors.NONE.code(), incremental(1, BROKER, "1", op("log.retention.bytes", 0, "999"))
                .responses().get(0).errorCode());
        assertEquals(999L, broker.partitions.partition("t", 0).config().retentionBytes(), "this broker's own wins");
        DescribeConfigsResponse.DescribeConfigsResourceResult described = describe(4, BROKER, "1", "log.retention.bytes")
                .results().get(0).configs().get(0);
        assertEquals("999", described.value());
        assertEquals(ConfigSource.DYNAMIC_BROKER_CONFIG.id(), described.configSource());
        assertEquals(Errors.NONE.code(), incremental(1, BROKER, "1", op("log.retention.bytes", 1, null))
                .responses().get(0).errorCode());
        assertEquals(12345L, broker.partitions.partition("t", 0).config().retentionBytes());
        assertEquals(Errors.INVALID_CONFIG.code(), incremental(1, BROKER, "", op("log.retention.bytes", 0, "x"))
                .responses().get(0).errorCode());
        assertEquals(Errors.INVALID_REQUEST.code(), incremental(1, BROKER, "", op("num.replica.fetchers", 0, "2"))
                .responses().get(0).errorCode());
    }

    @Test
    void withEligibleLeaderReplicasMinIsrIsOneClusterWideValue() throws Exception {
        setEligibleLeaderReplicas(0);
        assertEquals(Errors.NONE.code(), incremental(1, BROKER, "1", op("min.insync.replicas", 0, "2"))
                .responses().get(0).errorCode(), "the feature off: a broker may have its own");
        assertEquals(Errors.NONE.code(), incremental(1, BROKER, "1", op("min.insync.replicas", 1, null))
                .responses().get(0).errorCode());

        setEligibleLeaderReplicas(1);
        IncrementalAlterConfigsResponse.AlterConfigsResourceResponse own = incremental(1, BROKER, "1",
                op("min.insync.replicas", 0, "2")).responses().get(0);
        assertEquals(Errors.INVALID_CONFIG.code(), own.errorCode());
        assertEquals("Broker-level min.insync.replicas cannot be altered while ELR is enabled.", own.errorMessage());
        assertEquals(Errors.NONE.code(), incremental(1, BROKER, "", op("min.insync.replicas", 0, "2"))
                .responses().get(0).errorCode(), "the cluster-wide value may change");
        IncrementalAlterConfigsResponse.AlterConfigsResourceResponse removal = incremental(1, BROKER, "",
                op("min.insync.replicas", 1, null)).responses().get(0);
        assertEquals(Errors.INVALID_CONFIG.code(), removal.errorCode());
        assertEquals("Cluster-level min.insync.replicas cannot be removed while ELR is enabled.",
                removal.errorMessage());
        assertEquals(Errors.INVALID_CONFIG.code(), alter(false, BROKER, "1", "min.insync.replicas", "3")
                .responses().get(0).errorCode(), "the legacy AlterConfigs too");
    }

    private void setEligibleLeaderReplicas(int level) throws Exception {
        broker.metadata.updateEntityConfigsAsync(FinalizedFeatures.ENTITY, current -> FinalizedFeatures
                .fromConfigs(current).toConfigsWith(Map.of(FinalizedFeatures.ELIGIBLE_LEADER_REPLICAS_VERSION,
                        (short) level))).get(10, java.util.concurrent.TimeUnit.SECONDS);
    }

    @Test
    void aResourceNamedTwiceFailsBothTimes() {
        IncrementalAlterConfigsRequest.AlterConfigsResource resource = new IncrementalAlterConfigsRequest.AlterConfigsResource()
                .setResourceType(TOPIC).setResourceName("t").setConfigs(new ArrayList<>(List.of(op("retention.ms", 0, "5"))));
        IncrementalAlterConfigsRequest.AlterConfigsResource again = new IncrementalAlterConfigsRequest.AlterConfigsResource()
                .setResourceType(TOPIC).setResourceName("t").setConfigs(new ArrayList<>(List.of(op("retention.ms", 0, "6"))));
        IncrementalAlterConfigsResponse response = broker.call(new IncrementalAlterConfigsHandler(broker.context), 1,
                new IncrementalAlterConfigsRequest().setResources(new ArrayList<>(List.of(resource, again))));
        response.responses().forEach(r -> assertEquals("Each resource must appear at most once.", r.errorMessage()));
        assertEquals("1000", broker.metadata.image().topic("t").configs().get("retention.ms"));
    }

    /**
     * The request thread does not wait for the store: the handler returns with the writes in flight, and
     * the response goes out once the last has completed, with each resource's outcome (a write that
     * failed gives its error; checks that failed were decided at once). The change handed to the store
     * is the incremental one: applied to overrides another writer changed meanwhile, it keeps theirs.
     */
    @Test
    void answersWhenTheStoresWritesCompleteNotBefore() {
        List<HandlerFixture.Held> held = new CopyOnWriteArrayList<>();
        IncrementalAlterConfigsHandler handler = new IncrementalAlterConfigsHandler(broker.contextWith(
                broker.holdingStore(Set.of("alterTopicConfigsAsync", "updateEntityConfigsAsync"), held)));
        IncrementalAlterConfigsRequest body = new IncrementalAlterConfigsRequest().setResources(new ArrayList<>(List.of(
                resource(TOPIC, "t", op("retention.ms", 0, "5000")),
                resource(BROKER, "", op("log.retention.bytes", 0, "777")),
                resource(TOPIC, "t2", op("retention.ms", 0, "x")),
                resource(TOPIC, "missing", op("retention.ms", 0, "1")))));
        AtomicReference<ApiMessage> answer = new AtomicReference<>();
        Request request = broker.request(handler, 1, body, KafkaPrincipal.ANONYMOUS, answer);

        handler.handle(request);
        assertFalse(request.isAnswered(), "the handler returned without waiting for the store");
        assertEquals(List.of("alterTopicConfigsAsync", "updateEntityConfigsAsync"),
                held.stream().map(HandlerFixture.Held::method).toList(), "both writes in flight at once");
        assertEquals(Map.of("retention.ms", "5000", "segment.ms", "60000"),
                held.get(0).apply(Map.of("retention.ms", "1000", "segment.ms", "60000")));
        assertEquals(Map.of("retention.ms", "5000", "cleanup.policy", "compact"),
                held.get(0).apply(Map.of("retention.ms", "1000", "cleanup.policy", "compact")),
                "applied to what another writer left, the change keeps that writer's keys");
        assertEquals(Map.of("log.retention.bytes", "777", "log.retention.ms", "9"),
                held.get(1).apply(Map.of("log.retention.ms", "9")));

        held.get(0).future().complete(broker.metadata.image().topic("t"));
        assertFalse(request.isAnswered(), "one write still in flight");
        held.get(1).future().completeExceptionally(new ApiException(Errors.REQUEST_TIMED_OUT, "ZooKeeper unavailable"));
        assertTrue(request.isAnswered());
        IncrementalAlterConfigsResponse response = broker.decodeResponse(handler, 1, answer.get());
        assertEquals(List.of(Errors.NONE, Errors.REQUEST_TIMED_OUT, Errors.INVALID_CONFIG, Errors.UNKNOWN_TOPIC_OR_PARTITION),
                response.responses().stream().map(r -> Errors.forCode(r.errorCode())).toList());
        assertEquals("ZooKeeper unavailable", response.responses().get(1).errorMessage());
        assertEquals("The topic 'missing' does not exist.", response.responses().get(3).errorMessage());
        assertEquals(Map.of("retention.ms", "1000", "segment.ms", "60000"), broker.metadata.image().topic("t").configs(),
                "the held store wrote nothing");

        // validateOnly and changes that change nothing never reach the store, and are answered at once
        held.clear();
        AtomicReference<ApiMessage> checked = new AtomicReference<>();
        Request validateOnly = broker.request(handler, 1, new IncrementalAlterConfigsRequest().setValidateOnly(true)
                .setResources(new ArrayList<>(List.of(resource(TOPIC, "t", op("retention.ms", 0, "5000"))))),
                KafkaPrincipal.ANONYMOUS, checked);
        handler.handle(validateOnly);
        assertTrue(validateOnly.isAnswered());
        Request unchanged = broker.request(handler, 1, new IncrementalAlterConfigsRequest().setResources(new ArrayList<>(
                List.of(resource(TOPIC, "t", op("retention.ms", 0, "1000"))))), KafkaPrincipal.ANONYMOUS, checked);
        handler.handle(unchanged);
        assertTrue(unchanged.isAnswered());
        assertEquals(List.of(), held);
    }

    /** A resource that fails its check again on the store's fresh data (a concurrent change) is INVALID_CONFIG. */
    @Test
    void aChangeThatNoLongerValidatesOnTheStoresDataFailsAsInvalidConfig() {
        List<HandlerFixture.Held> held = new CopyOnWriteArrayList<>();
        IncrementalAlterConfigsHandler handler = new IncrementalAlterConfigsHandler(broker.contextWith(
                broker.holdingStore(Set.of("alterTopicConfigsAsync"), held)));
        AtomicReference<ApiMessage> answer = new AtomicReference<>();
        Request request = broker.request(handler, 1, new IncrementalAlterConfigsRequest().setResources(new ArrayList<>(
                List.of(resource(TOPIC, "t", op("cleanup.policy", 2, "compact"))))), KafkaPrincipal.ANONYMOUS, answer);
        handler.handle(request);
        ApiException refused = assertThrows(ApiException.class, () -> held.get(0).apply(Map.of("cleanup.policy", "nonsense")));
        assertEquals(Errors.INVALID_CONFIG, refused.error());
        held.get(0).future().completeExceptionally(refused);
        IncrementalAlterConfigsResponse response = broker.decodeResponse(handler, 1, answer.get());
        assertEquals(Errors.INVALID_CONFIG.code(), response.responses().get(0).errorCode());
    }

    private static IncrementalAlterConfigsRequest.AlterConfigsResource resource(byte type, String name,
                                                                               IncrementalAlterConfigsRequest.AlterableConfig... ops) {
        return new IncrementalAlterConfigsRequest.AlterConfigsResource().setResourceType(type).setResourceName(name)
                .setConfigs(new ArrayList<>(List.of(ops)));
    }
}

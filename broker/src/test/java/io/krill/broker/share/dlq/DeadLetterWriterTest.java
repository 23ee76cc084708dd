package io.krill.broker.share.dlq;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.Broker;
import io.krill.broker.config.ConfigException;
import io.krill.broker.config.GroupConfigKeys;
import io.krill.broker.config.GroupConfigLookup;
import io.krill.broker.partition.Partition;
import io.krill.broker.security.InterBrokerConnector;
import io.krill.broker.testing.RawClient;
import io.krill.broker.testing.TestBroker;
import io.krill.controller.metadata.FinalizedFeatures;
import io.krill.controller.metadata.NewTopic;
import io.krill.controller.metadata.TopicImage;
import io.krill.log.LogReadResult;
import io.krill.log.TopicPartition;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.ProduceRequest;
import io.krill.wire.message.ProduceResponse;
import io.krill.wire.protocol.ByteBufRecords;
import io.krill.wire.record.CompressionType;
import io.krill.wire.record.Header;
import io.krill.wire.record.RecordBatchBuilder;
import io.krill.wire.record.RecordBatches;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The writer against one in-process broker (which is the leader of everything, and which it reaches over its
 * own inter-broker listener as Kafka does): topic creation on first need, records copied from a compressed
 * source batch, batches bounded by the topic's max.message.bytes, the partition chosen by the source
 * partition, refusals, retries given up, and close.
 */
class DeadLetterWriterTest {
    private static final String SOURCE = "orders";
    private static final DeadLetterWriter.Backoff FAST = new DeadLetterWriter.Backoff(10, 2, 100, 0.2);
    private static TestBroker testBroker;
    private static Broker broker;
    private static DeadLetterWriter writer;
    private static UUID sourceId;

    @BeforeAll
    static void start() throws Exception {
        testBroker = TestBroker.start(Map.of("errors.deadletterqueue.auto.create.topics.enable", "true"));
        broker = testBroker.broker();
        writer = writer(FAST);
        broker.metadata().createTopics(List.of(NewTopic.of(SOURCE, 2, 1))).get(30, TimeUnit.SECONDS);
        await("the source partitions led here").atMost(Duration.ofSeconds(30)).until(() ->
                broker.partitions().partition(SOURCE, 1) != null && broker.partitions().partition(SOURCE, 1).isLeader());
        sourceId = broker.metadata().image().topic(SOURCE).id();
        // offsets 0..4 of orders-1: one gzip batch, each record with a header of its own (never copied)
        try (RecordBatchBuilder builder = new RecordBatchBuilder(); RawClient client = new RawClient(testBroker.port())) {
            builder.compression(CompressionType.GZIP);
            for (int i = 0; i < 5; i++) {
                builder.append(System.currentTimeMillis(), bytes("k" + i), bytes("v" + i), new Header("own", bytes("h")));
            }
            ByteBuf batch = builder.build();
            try {
                ProduceResponse response = client.call(ApiKeys.PRODUCE, (short) 12, new ProduceRequest().setAcks((short) -1)
                        .setTimeoutMs(10_000).setTopicData(List.of(new ProduceRequest.TopicProduceData().setName(SOURCE)
                                .setPartitionData(List.of(new ProduceRequest.PartitionProduceData().setIndex(1)
                                        .setRecords(ByteBufRecords.of(batch)))))));
                assertEquals(0, response.responses().get(0).partitionResponses().get(0).errorCode());
            } finally {
                batch.release();
            }
        }
        setFeature((short) 2);
    }

    @AfterAll
    static void stop() {
        try {
            if (writer != null) {
                writer.close();
            }
        } finally {
            if (testBroker != null) {
                testBroker.close();
            }
        }
    }

    private static DeadLetterWriter writer(DeadLetterWriter.Backoff backoff) {
        return new DeadLetterWriter(1, broker.metadata(), broker::config,
                new GroupConfigLookup(broker.metadata()::image, broker::config), broker.partitions(),
                InterBrokerConnector.plaintext(), backoff);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static void setFeature(short shareVersion) throws Exception {
        broker.metadata().updateEntityConfigsAsync(FinalizedFeatures.ENTITY, configs -> FinalizedFeatures
                .fromConfigs(configs).toConfigsWith(Map.of(FinalizedFeatures.SHARE_VERSION, shareVersion)))
                .get(30, TimeUnit.SECONDS);
    }

    private static void setGroup(String group, String topic, boolean copy) throws Exception {
        broker.metadata().updateEntityConfigsAsync(GroupConfigKeys.entity(group), configs -> {
            Map<String, String> next = new HashMap<>(configs);
            next.put("errors.deadletterqueue.topic.name", topic);
            next.put("errors.deadletterqueue.copy.record.enable", Boolean.toString(copy));
            return next;
        }).get(30, TimeUnit.SECONDS);
    }

    private static void createTopic(String name, int partitions, Map<String, String> configs) throws Exception {
        broker.metadata().createTopics(List.of(new NewTopic(name, partitions, 1, Map.of(), configs, false)))
                .get(30, TimeUnit.SECONDS);
        await("leaders of " + name).atMost(Duration.ofSeconds(30)).until(() -> {
            for (int p = 0; p < partitions; p++) {
                Partition hosted = broker.partitions().partition(name, p);
                if (hosted == null || !hosted.isLeader()) {
                    return false;
                }
            }
            return true;
        });
    }

    private static DeadLetters letters(String group, int partition, long first, long last, DeadLetterCause cause) {
        return new DeadLetters(group, new TopicPartition(SOURCE, partition), sourceId, first, last, (short) 3, cause);
    }

    /** A dead-letter record as read from the topic's log. */
    record Written(byte[] key, byte[] value, Map<String, String> headers) {
    }

    /** The records in {@code topic}-{@code partition}, and how many batches hold them. */
    private static List<Written> written(String topic, int partition, int[] batches) throws Exception {
        Partition hosted = broker.partitions().partition(topic, partition);
        List<Written> out = new ArrayList<>();
        try (LogReadResult read = hosted.log().read(0, 64 << 20, hosted.highWatermark(), true)) {
            if (read.isEmpty()) {
                return out;
            }
            ByteBuf all = read.records().readAll();
            RecordBatches.forEach(all, all.readerIndex(), all.writerIndex(), batch -> {
                batches[0]++;
                batch.forEachRecord(r -> {
                    Map<String, String> headers = new LinkedHashMap<>();
                    for (int i = 0; i < r.headerCount(); i++) {
                        headers.put(r.headerKey(i).toString(StandardCharsets.UTF_8),
                                r.headerValue(i).toString(StandardCharsets.UTF_8));
                    }
                    out.add(new Written(r.hasKey() ? ByteBufUtil.getBytes(r.key()) : null,
                            r.hasValue() ? ByteBufUtil.getBytes(r.value()) : null, headers));
                    return true;
                });
                return true;
            });
        }
        return out;
    }

    private static Throwable failure(CompletableFuture<Void> future) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> future.get(60, TimeUnit.SECONDS));
        return e.getCause();
    }

    @Test
    void enabledNeedsShareVersionTwoAndAGroupTopic() throws Exception {
        assertFalse(writer.enabled("no-dlq-group"));
        setGroup("enabled-group", "dlq.enabled", false);
        assertTrue(writer.enabled("enabled-group"));
        setFeature((short) 1);
        try {
            assertFalse(writer.enabled("enabled-group"), "share.version 1");
        } finally {
            setFeature((short) 2);
        }
    }

    @Test
    void aMissingTopicIsCreatedAndTheOriginalsAreCopiedFromACompressedBatch() throws Exception {
        setGroup("copy-group", "dlq.copy", true);
        writer.send(letters("copy-group", 1, 1, 3, DeadLetterCause.REJECTED)).get(60, TimeUnit.SECONDS);

        TopicImage created = broker.metadata().image().topic("dlq.copy");
        assertEquals(Map.of("errors.deadletterqueue.group.enable", "true", "message.timestamp.type", "CreateTime"),
                created.configs());
        assertEquals(broker.config().log().numPartitions(), created.partitionCount());
        List<Written> records = written("dlq.copy", 1 % created.partitionCount(), new int[1]);
        assertEquals(3, records.size());
        for (int i = 0; i < 3; i++) {
            Written w = records.get(i);
            assertArrayEquals(bytes("k" + (i + 1)), w.key());
            assertArrayEquals(bytes("v" + (i + 1)), w.value());
            assertEquals(List.of("__dlq.errors.topic", "__dlq.errors.partition", "__dlq.errors.offset",
                    "__dlq.errors.group", "__dlq.errors.delivery.count", "__dlq.errors.message"),
                    new ArrayList<>(w.headers().keySet()), "the original's header is not copied");
            assertEquals(SOURCE, w.headers().get("__dlq.errors.topic"));
            assertEquals("1", w.headers().get("__dlq.errors.partition"));
            assertEquals(Integer.toString(i + 1), w.headers().get("__dlq.errors.offset"));
            assertEquals("copy-group", w.headers().get("__dlq.errors.group"));
            assertEquals("3", w.headers().get("__dlq.errors.delivery.count"));
            assertEquals("Offset rejected by client.", w.headers().get("__dlq.errors.message"));
        }

        // offsets the log does not have (past its end) get the headers alone
        writer.send(letters("copy-group", 1, 4, 6, DeadLetterCause.DELIVERY_COUNT_EXCEEDED)).get(60, TimeUnit.SECONDS);
        records = written("dlq.copy", 1 % created.partitionCount(), new int[1]);
        assertEquals(6, records.size());
        assertArrayEquals(bytes("v4"), records.get(3).value());
        assertNull(records.get(4).key());
        assertNull(records.get(5).value());
        assertEquals("6", records.get(5).headers().get("__dlq.errors.offset"));
        assertEquals("Offset delivery count exceeded the threshold.", records.get(5).headers().get("__dlq.errors.message"));
    }

    @Test
    void sendsRacingToCreateTheSameTopicBothWrite() throws Exception {
        setGroup("race-group", "dlq.race", false);
        CompletableFuture<Void> first = writer.send(letters("race-group", 0, 0, 0, DeadLetterCause.REJECTED));
        CompletableFuture<Void> second = writer.send(letters("race-group", 0, 1, 1, DeadLetterCause.REJECTED));
        CompletableFuture.allOf(first, second).get(60, TimeUnit.SECONDS);
        assertEquals(2, written("dlq.race", 0, new int[1]).size());
    }

    @Test
    void anExistingTopicGetsBatchesWithinItsMaxMessageBytesInTheSourcePartitionsPartition() throws Exception {
        createTopic("dlq.bounded", 3, Map.of("errors.deadletterqueue.group.enable", "true", "max.message.bytes", "1000"));
        setGroup("bounded-group", "dlq.bounded", false);
        writer.send(letters("bounded-group", 1, 100, 149, DeadLetterCause.REJECTED)).get(60, TimeUnit.SECONDS);
        int[] batches = new int[1];
        List<Written> records = written("dlq.bounded", 1, batches);
        assertEquals(50, records.size());
        assertTrue(batches[0] > 1, "50 records of about 200 bytes do not fit 1000 bytes: " + batches[0] + " batch(es)");
        for (int i = 0; i < 50; i++) {
            assertNull(records.get(i).key());
            assertNull(records.get(i).value());
            assertEquals(Integer.toString(100 + i), records.get(i).headers().get("__dlq.errors.offset"));
        }
        assertTrue(written("dlq.bounded", 0, new int[1]).isEmpty());
        assertTrue(written("dlq.bounded", 2, new int[1]).isEmpty());
    }

    @Test
    void aTopicWithoutTheGroupEnableConfigIsRefused() throws Exception {
        createTopic("dlq.closed", 1, Map.of());
        setGroup("refused-group", "dlq.closed", false);
        Throwable failure = failure(writer.send(letters("refused-group", 0, 0, 0, DeadLetterCause.REJECTED)));
        assertInstanceOf(ConfigException.class, failure);
        assertEquals("DLQ is not enabled on configured DLQ topic for share group: refused-group, topic: dlq.closed.",
                failure.getMessage());

        setGroup("prefix-group", "no-prefix", false);
        failure = failure(writer.send(letters("prefix-group", 0, 0, 0, DeadLetterCause.REJECTED)));
        assertEquals("Configured DLQ topic name does not comply with the DLQ topic prefix in share group: prefix-group, "
                + "topic: no-prefix, prefix: dlq..", failure.getMessage());
        assertTrue(broker.metadata().image().topic("no-prefix") == null, "not created");
    }

    @Test
    void aRetriableErrorIsRetriedFiveTimesThenGivenUp() throws Exception {
        // one replica cannot satisfy min.insync.replicas=2: NOT_ENOUGH_REPLICAS on every attempt
        createTopic("dlq.isr", 1, Map.of("errors.deadletterqueue.group.enable", "true", "min.insync.replicas", "2"));
        setGroup("isr-group", "dlq.isr", false);
        Throwable failure = failure(writer.send(letters("isr-group", 0, 0, 1, DeadLetterCause.REJECTED)));
        assertInstanceOf(ApiException.class, failure);
        assertEquals(Errors.NOT_ENOUGH_REPLICAS, ((ApiException) failure).error());
        assertTrue(failure.getMessage().startsWith("Exhausted max retries"), failure.getMessage());
        assertTrue(written("dlq.isr", 0, new int[1]).isEmpty());
    }

    @Test
    void closeFailsTheSendsInFlightAndLaterOnes() throws Exception {
        createTopic("dlq.slow", 1, Map.of("errors.deadletterqueue.group.enable", "true", "min.insync.replicas", "2"));
        setGroup("slow-group", "dlq.slow", false);
        DeadLetterWriter slow = writer(new DeadLetterWriter.Backoff(600_000, 2, 600_000, 0));
        CompletableFuture<Void> waiting;
        try {
            waiting = slow.send(letters("slow-group", 0, 0, 0, DeadLetterCause.REJECTED));
            await("the first attempt failed").during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(10))
                    .until(() -> !waiting.isDone());
        } finally {
            slow.close();
        }
        assertEquals(Errors.BROKER_NOT_AVAILABLE, ((ApiException) failure(waiting)).error());
        assertEquals(Errors.BROKER_NOT_AVAILABLE, ((ApiException) failure(slow.send(letters("slow-group", 0, 0, 0,
                DeadLetterCause.REJECTED)))).error());
    }
}

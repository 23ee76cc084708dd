package io.krill.broker.api.handlers;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.krill.broker.BrokerContext;
import io.krill.broker.purgatory.DelayedOperationPurgatory;
import io.krill.controller.metadata.NewTopic;
import io.krill.log.TopicPartition;
import io.krill.wire.error.Errors;
import io.krill.wire.message.FetchRequest;
import io.krill.wire.message.FetchResponse;
import io.krill.wire.protocol.ApiMessage;
import io.krill.broker.security.KafkaPrincipal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A waiting fetch is answered when one of its partitions gets records (and only then, before its
 * deadline): wake-ups for partitions where nothing moved leave it waiting, and records that arrive in
 * pieces below {@code min.bytes} add up.
 */
@Timeout(60)
class DelayedFetchTest {
    private static final String TOPIC = "waits";
    private static final int PARTITIONS = 3;

    @TempDir
    Path dir;

    private HandlerFixture broker;
    private DelayedOperationPurgatory<TopicPartition> fetches;
    private FetchHandler handler;

    @BeforeEach
    void start() {
        broker = HandlerFixture.start(dir);
        broker.metadata.createTopic(NewTopic.of(TOPIC, PARTITIONS, 1));
        fetches = new DelayedOperationPurgatory<>("fetch-test");
        BrokerContext base = broker.context;
        BrokerContext context = new BrokerContext(base.configs(), base.metadata(), base.partitions(),
                base.producePurgatory(), fetches, base.metrics(), base.isrChanger(), base.authorization());
        handler = new FetchHandler(context);
    }

    @AfterEach
    void stop() {
        fetches.close();
        broker.close();
    }

    private AtomicReference<ApiMessage> fetch(int minBytes) {
        List<FetchRequest.FetchPartition> wanted = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            wanted.add(new FetchRequest.FetchPartition().setPartition(p).setFetchOffset(0).setPartitionMaxBytes(1 << 16));
        }
        FetchRequest body = new FetchRequest().setReplicaId(-1).setMaxWaitMs(30_000).setMinBytes(minBytes)
                .setMaxBytes(1 << 20).setTopics(List.of(new FetchRequest.FetchTopic().setTopic(TOPIC)
                        .setPartitions(wanted)));
        AtomicReference<ApiMessage> answer = new AtomicReference<>();
        handler.handle(broker.request(handler, 12, body, KafkaPrincipal.ANONYMOUS, answer));
        return answer;
    }

    private void wake(int partition) {
        fetches.checkAndComplete(new TopicPartition(TOPIC, partition));
    }

    @Test
    void answersWhenAPartitionGetsRecordsNotBefore() {
        AtomicReference<ApiMessage> answer = fetch(1);
        assertNull(answer.get(), "nothing to read: it waits");
        for (int p = 0; p < PARTITIONS; p++) {
            wake(p); // nothing moved
        }
        assertNull(answer.get(), "woken with nothing new: still waiting");

        broker.append(TOPIC, 2, 3);
        wake(2);
        await().atMost(Duration.ofSeconds(10)).until(() -> answer.get() != null);
        FetchResponse response = broker.decodeResponse(handler, 12, answer.get());
        FetchResponse.PartitionData data = response.responses().get(0).partitions().get(2);
        assertEquals(3, data.highWatermark());
        assertEquals(0, response.responses().get(0).partitions().get(0).records().sizeInBytes());
        assertEquals(true, data.records().sizeInBytes() > 0, "partition 2's records are in the answer");
    }

    /**
     * A partition deleted while a fetch waits on it: its removal wakes the fetch (the broker announces
     * it), which sees the partition is no longer hosted although none of its offsets moved, and answers.
     */
    @Test
    void aPartitionRemovedWhileWaitingIsAnsweredWhenItsRemovalWakesTheFetch() {
        AtomicReference<ApiMessage> answer = fetch(1);
        assertNull(answer.get(), "nothing to read: it waits");
        broker.metadata.deleteTopic(TOPIC);
        await().atMost(Duration.ofSeconds(10)).until(() -> broker.partitions.partition(TOPIC, 1) == null);
        assertNull(answer.get(), "not woken yet");
        wake(1);
        await().atMost(Duration.ofSeconds(10)).until(() -> answer.get() != null);
        FetchResponse response = broker.decodeResponse(handler, 12, answer.get());
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), response.responses().get(0).partitions().get(1).errorCode());
    }

    @Test
    void recordsBelowMinBytesAddUpAcrossWakeUps() {
        broker.append(TOPIC, 0, 1);
        int oneBatch = ((FetchResponse) broker.call(handler, 12, new FetchRequest().setReplicaId(-1).setMaxWaitMs(0)
                .setMinBytes(0).setMaxBytes(1 << 20).setTopics(List.of(new FetchRequest.FetchTopic().setTopic(TOPIC)
                        .setPartitions(List.of(new FetchRequest.FetchPartition().setPartition(0).setFetchOffset(0)
                                .setPartitionMaxBytes(1 << 16)))))))
                .responses().get(0).partitions().get(0).records().sizeInBytes();

        AtomicReference<ApiMessage> answer = fetch(3 * oneBatch);
        assertNull(answer.get(), "one batch of three: it waits");
        broker.append(TOPIC, 1, 1);
        wake(1);
        assertNull(answer.get(), "two of three");
        wake(1);
        wake(0);
        assertNull(answer.get(), "woken again with nothing new: two of three");
        broker.append(TOPIC, 2, 1);
        wake(2);
        await().atMost(Duration.ofSeconds(10)).until(() -> answer.get() != null);
        FetchResponse response = broker.decodeResponse(handler, 12, answer.get());
        for (int p = 0; p < PARTITIONS; p++) {
            assertEquals(oneBatch, response.responses().get(0).partitions().get(p).records().sizeInBytes(), "partition " + p);
        }
    }

    /**
     * A wake-up names the partition that changed, and only that partition is compared: a follower's fetch
     * of thousands of partitions must not scan them all for each change. Records on partition 2 announced
     * as a change of partition 0 do not complete it; the announcement of partition 2 does.
     */
    @Test
    void aWakeUpLooksAtTheNamedPartitionOnly() {
        AtomicReference<ApiMessage> answer = fetch(1);
        broker.append(TOPIC, 2, 1);
        wake(0);
        wake(1);
        assertNull(answer.get(), "partitions 0 and 1 did not move");
        wake(2);
        await().atMost(Duration.ofSeconds(10)).until(() -> answer.get() != null);
        FetchResponse response = broker.decodeResponse(handler, 12, answer.get());
        assertEquals(1, response.responses().get(0).partitions().get(2).highWatermark());
    }
}

package io.krill.broker.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.config.BrokerConfig;
import io.krill.broker.config.TopicConfig;
import io.krill.controller.metadata.PartitionState;
import io.krill.log.AppendOrigin;
import io.krill.log.PartitionLog;
import io.krill.log.TopicPartition;
import io.krill.wire.record.RecordBatchBuilder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The strict min-ISR rule of eligible leader replicas (KIP-966) on a leader's {@link Partition}: with the
 * feature on, the high watermark moves only while the committed ISR has at least
 * {@code min.insync.replicas} members, so acks=1 records stay invisible below the minimum; additions in
 * flight do not count toward it; with the feature off the rule is the old one.
 */
class StrictMinIsrTest {
    private static final int LEADER = 1;
    private static final TopicPartition TP = new TopicPartition("t", 0);

    @TempDir
    Path dir;
    private PartitionLog log;
    private final AtomicBoolean strict = new AtomicBoolean(true);
    private TopicConfig config;

    @BeforeEach
    void open() throws Exception {
        log = PartitionLog.builder(dir.resolve("t-0")).open();
        config = TopicConfig.resolve(Map.of("min.insync.replicas", "2"),
                BrokerConfig.from(Map.of("node.id", "1", "log.dirs", dir.toString())));
    }

    @AfterEach
    void close() {
        log.close();
    }

    private static PartitionState state(List<Integer> isr) {
        return new PartitionState(0, LEADER, 3, List.of(1, 2, 3), isr, 7);
    }

    private Partition partition(PartitionState state) {
        return new Partition(TP, UUID.randomUUID(), LEADER, log, state, config, () -> false, strict::get, tp -> { });
    }

    private static void appendWithAcksOne(Partition p, int records) {
        try (RecordBatchBuilder builder = new RecordBatchBuilder(UnpooledByteBufAllocator.DEFAULT)) {
            for (int i = 0; i < records; i++) {
                builder.append(1000L + i, null, ("v" + i).getBytes(StandardCharsets.UTF_8));
            }
            ByteBuf batch = builder.build();
            try {
                p.appendRecordsToLeader(batch, 1, AppendOrigin.CLIENT);
            } finally {
                batch.release();
            }
        }
    }

    @Test
    void belowTheMinimumAcksOneRecordsAreNotCommitted() {
        Partition p = partition(state(List.of(1)));
        appendWithAcksOne(p, 5);
        assertEquals(0, p.highWatermark(), "an ISR of one below a minimum of two: the high watermark stays");
        assertFalse(p.maybeIncrementHighWatermark());

        p.recordFollowerFetch(2, 5, 1_000);
        p.update(state(List.of(1, 2)), config);
        assertEquals(5, p.highWatermark(), "back at the minimum: the ISR's smallest log end offset");
    }

    @Test
    void anAdditionInFlightDoesNotCountTowardTheMinimum() {
        Partition p = partition(state(List.of(1)));
        appendWithAcksOne(p, 5);
        assertTrue(p.recordFollowerFetch(2, 5, 1_000).shouldJoinIsr(), "caught up to the frozen high watermark");
        assertTrue(p.beginIsrChange(Set.of(2)));
        p.recordFollowerFetch(2, 5, 1_001);
        assertEquals(0, p.highWatermark(), "until the controller has it, the ELR is not cleared");
        p.finishIsrChange();
        p.update(state(List.of(1, 2)), config);
        assertEquals(5, p.highWatermark());
    }

    @Test
    void withTheFeatureOffAnIsrBelowTheMinimumStillCommits() {
        strict.set(false);
        Partition p = partition(state(List.of(1)));
        appendWithAcksOne(p, 5);
        assertEquals(5, p.highWatermark());
    }

    @Test
    void turningTheFeatureOffLetsAFrozenHighWatermarkMove() {
        Partition p = partition(state(List.of(1)));
        appendWithAcksOne(p, 5);
        assertEquals(0, p.highWatermark());
        strict.set(false);
        assertTrue(p.maybeIncrementHighWatermark());
        assertEquals(5, p.highWatermark());
    }

    @Test
    void aMinimumOfOneIsAlwaysMet() {
        config = TopicConfig.resolve(Map.of("min.insync.replicas", "1"),
                BrokerConfig.from(Map.of("node.id", "1", "log.dirs", dir.toString())));
        Partition p = partition(state(List.of(1)));
        appendWithAcksOne(p, 5);
        assertEquals(5, p.highWatermark());
    }
}

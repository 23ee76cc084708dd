package io.krill.wire.record;

import static io.krill.wire.record.KafkaFixtures.assertSameBatch;
import static io.krill.wire.record.KafkaFixtures.copy;
import static io.krill.wire.record.KafkaFixtures.kafkaBatch;
import static io.krill.wire.record.KafkaFixtures.randomRecords;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.wire.record.KafkaFixtures.Spec;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Batches written by kafka-clients read the same through Krill's flyweights as through Kafka's classes. */
class KafkaBatchReadTest {
    private static final long NOW = 1_700_000_000_000L;

    enum Scenario { PLAIN, LOG_APPEND_TIME, IDEMPOTENT, TRANSACTIONAL, DELETE_HORIZON, SINGLE_RECORD, LARGE }

    static Spec spec(Scenario scenario, CompressionType codec) {
        switch (scenario) {
            case LOG_APPEND_TIME:
                return new Spec(codec, TimestampType.LOG_APPEND_TIME, 500, NOW + 777, -1, (short) -1, -1, false, 3, -1);
            case IDEMPOTENT:
                return new Spec(codec, TimestampType.CREATE_TIME, 1L << 40, -1, 4242, (short) 7, Integer.MAX_VALUE - 3,
                        false, 12, -1);
            case TRANSACTIONAL:
                return new Spec(codec, TimestampType.CREATE_TIME, 77, -1, 99, (short) 1, 0, true, 5, -1);
            case DELETE_HORIZON:
                return new Spec(codec, TimestampType.CREATE_TIME, 0, -1, -1, (short) -1, -1, false, -1, NOW + 86_400_000);
            default:
                return KafkaFixtures.Spec.plain(codec, 1000);
        }
    }

    static int count(Scenario scenario) {
        return scenario == Scenario.SINGLE_RECORD ? 1 : scenario == Scenario.LARGE ? 400 : 25;
    }

    static Stream<Arguments> cases() {
        List<Arguments> cases = new ArrayList<>();
        for (CompressionType codec : CompressionType.values()) {
            for (Scenario scenario : Scenario.values()) {
                cases.add(Arguments.of(codec, scenario, false));
                cases.add(Arguments.of(codec, scenario, true));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} {1} direct={2}")
    @MethodSource("cases")
    void readsWhatKafkaWrites(CompressionType codec, Scenario scenario, boolean direct) {
        Random random = new Random(codec.ordinal() * 100L + scenario.ordinal());
        ByteBuffer bytes = kafkaBatch(spec(scenario, codec), randomRecords(random, count(scenario), NOW));
        MutableRecordBatch expected = MemoryRecords.readableRecords(bytes.duplicate()).batches().iterator().next();
        ByteBuf buffer = copy(bytes, direct);
        try {
            RecordBatch batch = new RecordBatch().wrap(buffer, 0);
            batch.validate(buffer.readableBytes());
            assertTrue(batch.hasContiguousOffsets());
            assertSameBatch(expected, batch);
        } finally {
            buffer.release();
        }
    }

    @Test
    void readsEndTransactionMarkers() {
        for (org.apache.kafka.common.record.internal.ControlRecordType type
                : List.of(org.apache.kafka.common.record.internal.ControlRecordType.COMMIT,
                        org.apache.kafka.common.record.internal.ControlRecordType.ABORT)) {
            ByteBuffer bytes = MemoryRecords.withEndTransactionMarker(321, NOW, 9, 555, (short) 4,
                    new EndTransactionMarker(type, 17)).buffer();
            MutableRecordBatch expected = MemoryRecords.readableRecords(bytes.duplicate()).batches().iterator().next();
            ByteBuf buffer = copy(bytes, false);
            try {
                RecordBatch batch = new RecordBatch().wrap(buffer, 0);
                batch.validate(buffer.readableBytes());
                assertTrue(batch.isControl());
                assertTrue(batch.isTransactional());
                assertSameBatch(expected, batch);
                batch.forEachRecord(record -> {
                    assertEquals(type.name(), ControlRecords.type(record).name());
                    assertEquals(17, ControlRecords.coordinatorEpoch(record));
                    return true;
                });
            } finally {
                buffer.release();
            }
        }
    }

    @Test
    void iteratesSeveralBatchesOfOneBuffer() {
        Random random = new Random(7);
        List<ByteBuffer> parts = new ArrayList<>();
        long offset = 0;
        for (CompressionType codec : CompressionType.values()) {
            for (Scenario scenario : Scenario.values()) {
                Spec base = spec(scenario, codec);
                Spec spec = new Spec(codec, base.timestampType(), offset, base.logAppendTime(), base.producerId(),
                        base.producerEpoch(), base.baseSequence(), base.transactional(), base.partitionLeaderEpoch(),
                        base.deleteHorizon());
                int count = Math.min(count(scenario), 30);
                parts.add(kafkaBatch(spec, randomRecords(random, count, NOW)));
                offset += count;
            }
        }
        parts.add(MemoryRecords.withEndTransactionMarker(offset, NOW, 1, 99, (short) 1,
                new EndTransactionMarker(org.apache.kafka.common.record.internal.ControlRecordType.COMMIT, 3)).buffer());
        ByteBuffer all = KafkaFixtures.concat(parts);
        Iterator<MutableRecordBatch> expected = MemoryRecords.readableRecords(all.duplicate()).batches().iterator();
        ByteBuf buffer = copy(all, true);
        try {
            RecordBatchCursor cursor = new RecordBatchCursor().reset(buffer);
            int batches = 0;
            while (cursor.next()) {
                RecordBatch batch = cursor.batch();
                batch.validate(batch.sizeInBytes());
                assertSameBatch(expected.next(), batch);
                batches++;
            }
            assertFalse(expected.hasNext());
            assertFalse(cursor.hasPartialBatch());
            assertEquals(parts.size(), batches);
            assertEquals(buffer.writerIndex(), cursor.position());
        } finally {
            buffer.release();
        }
    }
}

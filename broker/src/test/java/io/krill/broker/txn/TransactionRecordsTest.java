package io.krill.broker.txn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.krill.log.TopicPartition;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TransactionRecordsTest {

    @Test
    void aValueReadsBackAsWritten() {
        TransactionValue value = new TransactionValue(7, 3, (short) 12, (short) 11, 60_000, TransactionState.ONGOING,
                Set.of(new TopicPartition("a", 0), new TopicPartition("a", 2), new TopicPartition("__consumer_offsets", 9)),
                1_000, 2_000);
        assertEquals(value, TransactionRecords.readValue(Unpooled.wrappedBuffer(TransactionRecords.value(value))));
        assertEquals("tx-\u00e9", TransactionRecords.readTransactionalId(Unpooled.wrappedBuffer(
                TransactionRecords.key("tx-\u00e9"))));
    }

    @Test
    void keysOfOtherTypesAreSkippedAndUnknownValueVersionsRefused() {
        assertNull(TransactionRecords.readTransactionalId(Unpooled.wrappedBuffer(new byte[] {0, 9, 0, 1, 'x'})));
        byte[] value = TransactionRecords.value(new TransactionValue(1, -1, (short) 0, (short) -1, 1, TransactionState.EMPTY,
                Set.of(), -1, 0));
        byte[] future = value.clone();
        future[1] = 2;
        assertThrows(IllegalArgumentException.class, () -> TransactionRecords.readValue(Unpooled.wrappedBuffer(future)));
        assertThrows(IllegalArgumentException.class, () -> TransactionRecords.readValue(Unpooled.wrappedBuffer(
                Arrays.copyOf(value, value.length - 3))));
    }

    @Test
    void versionTwoFieldsRoundTripAndAVersionZeroValueReadsAsTransactionVersionOne() {
        TransactionValue rotating = new TransactionValue(7, 3, Short.MAX_VALUE, (short) (Short.MAX_VALUE - 1), 1000,
                TransactionState.PREPARE_COMMIT, Set.of(new io.krill.log.TopicPartition("t", 2)), 5, 6, 42, (byte) 2);
        assertEquals(rotating, TransactionRecords.readValue(Unpooled.wrappedBuffer(TransactionRecords.value(rotating))));
        TransactionValue old = new TransactionValue(1, -1, (short) 0, (short) -1, 1, TransactionState.EMPTY, Set.of(), -1, 0);
        byte[] v1 = TransactionRecords.value(old);
        byte[] v0 = Arrays.copyOf(v1, v1.length - 9);
        v0[1] = 0;
        TransactionValue read = TransactionRecords.readValue(Unpooled.wrappedBuffer(v0));
        assertEquals(old, read);
        assertEquals(-1, read.nextProducerId());
        assertEquals(1, read.transactionVersion());
    }
}

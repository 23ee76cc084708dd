package io.krill.broker.txn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.log.TopicPartition;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TransactionRecordsTest {

    @Test
    void aValueReadsBackAsWritten() {
        TransactionValue value = new TransactionValue(7, 3, (short) 12, (short) 11, 60_000, TransactionState.ONGOING,
                Set.of(new TopicPartition("a", 0), new TopicPartition("a", 2), new TopicPartition("__consumer_offsets", 9)),
                1_000, 2_000);
        assertEquals(value, TransactionRecords.readValue(Unpooled.wrappedBuffer(TransactionRecords.value(value))));
        TransactionRecords.Key key = TransactionRecords.readKey(Unpooled.wrappedBuffer(TransactionRecords.key("tx-\u00e9")));
        assertEquals(new TransactionRecords.Key("tx-\u00e9", false), key);
    }

    @Test
    void keysAndValuesAreKafkasBytes() {
        // TransactionLogKey: record type 0, then string "tx".
        assertEquals("00000002" + "7478", HexFormat.of().formatHex(TransactionRecords.key("tx")));
        TransactionValue value = new TransactionValue(7, -1, (short) 2, (short) -1, 60_000,
                TransactionState.COMPLETE_COMMIT, Set.of(), 5, 6, -1, (byte) 2);
        // TransactionLogValue v1: int64 pid, int16 epoch, int32 timeout, int8 status, compact array (empty: 1),
        // int64 last update, int64 start, tagged fields: 1 of them, tag 2 (ClientTransactionVersion) size 2 = 2.
        assertEquals("0001" + "0000000000000007" + "0002" + "0000ea60" + "04" + "01" + "0000000000000006"
                + "0000000000000005" + "01" + "02" + "02" + "0002", HexFormat.of().formatHex(TransactionRecords.value(value)));
    }

    @Test
    void keysOfOtherTypesAreSkippedAndUnknownValueVersionsRefused() {
        assertNull(TransactionRecords.readKey(Unpooled.wrappedBuffer(new byte[] {0, 9, 0, 1, 'x'})));
        byte[] value = TransactionRecords.value(new TransactionValue(1, -1, (short) 0, (short) -1, 1, TransactionState.EMPTY,
                Set.of(), -1, 0));
        byte[] future = value.clone();
        future[1] = 2;
        assertThrows(IllegalArgumentException.class, () -> TransactionRecords.readValue(Unpooled.wrappedBuffer(future)));
        assertThrows(IllegalArgumentException.class, () -> TransactionRecords.readValue(Unpooled.wrappedBuffer(
                Arrays.copyOf(value, value.length - 3))));
    }

    @Test
    void versionTwoFieldsRoundTrip() {
        TransactionValue rotating = new TransactionValue(7, 3, Short.MAX_VALUE, (short) (Short.MAX_VALUE - 1), 1000,
                TransactionState.PREPARE_COMMIT, Set.of(new TopicPartition("t", 2)), 5, 6, 42, (byte) 2);
        assertEquals(rotating, TransactionRecords.readValue(Unpooled.wrappedBuffer(TransactionRecords.value(rotating))));
    }

    @Test
    void legacyKeysAndBothLegacyValueVersionsRead() {
        byte[] legacyKey = LegacyTransactionRecords.key("tx");
        assertArrayEquals(new byte[] {0, 1, 0, 2, 't', 'x'}, legacyKey);
        TransactionRecords.Key key = TransactionRecords.readKey(Unpooled.wrappedBuffer(legacyKey));
        assertTrue(key.legacy());
        assertFalse(TransactionRecords.readKey(Unpooled.wrappedBuffer(TransactionRecords.key("tx"))).legacy());
        TransactionValue v2 = new TransactionValue(7, 3, (short) 9, (short) 8, 1000, TransactionState.ONGOING,
                Set.of(new TopicPartition("t", 2)), 5, 6, 42, (byte) 2);
        assertEquals(v2, TransactionRecords.readLegacyValue(Unpooled.wrappedBuffer(LegacyTransactionRecords.value(v2, 1))));
        TransactionValue v1 = new TransactionValue(1, -1, (short) 0, (short) -1, 1, TransactionState.EMPTY, Set.of(), -1, 0);
        TransactionValue read = TransactionRecords.readLegacyValue(Unpooled.wrappedBuffer(LegacyTransactionRecords.value(v1, 0)));
        assertEquals(v1, read);
        assertEquals(-1, read.nextProducerId());
        assertEquals(1, read.transactionVersion());
    }
}

package io.krill.broker.console;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.wire.record.CompressionType;
import io.krill.wire.record.ControlRecordType;
import io.krill.wire.record.Header;
import io.krill.wire.record.RecordBatchBuilder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecordPageTest {
    private static final long PRODUCER = 7;

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** The batches concatenated as a Fetch response carries them. */
    private static ByteBuf log(RecordBatchBuilder... batches) {
        ByteBuf out = Unpooled.buffer();
        for (RecordBatchBuilder b : batches) {
            b.buildInto(out);
            b.close();
        }
        return out;
    }

    private static RecordBatchBuilder plain(long base, String... values) {
        RecordBatchBuilder b = new RecordBatchBuilder().baseOffset(base).createTime();
        for (String v : values) {
            b.append(1000L, utf8("k"), utf8(v));
        }
        return b;
    }

    private static RecordBatchBuilder txn(long base, String... values) {
        return plain(base, values).producer(PRODUCER, (short) 0, (int) base).transactional(true);
    }

    private static RecordBatchBuilder marker(long base, ControlRecordType type) {
        return new RecordBatchBuilder().baseOffset(base).createTime().producer(PRODUCER, (short) 0, -1)
                .appendEndTransactionMarker(1000L, type, 0);
    }

    private static List<String> values(RecordPage page) {
        return page.entries().stream().map(e -> e.value().text()).toList();
    }

    @Test
    void readsFromTheOffsetUpToTheLimitAndSaysWhereToGoOn() {
        RecordPage page = new RecordPage(1, 2, false);
        assertTrue(page.add(log(plain(0, "a", "b", "c"), plain(3, "d")), List.of()));
        assertEquals(List.of("b", "c"), values(page));
        assertEquals(1, page.entries().get(0).offset());
        assertEquals(3, page.nextOffset());
        assertTrue(page.isFull());
    }

    @Test
    void decompressesBatches() {
        RecordPage page = new RecordPage(0, 10, false);
        page.add(log(plain(0, "x", "y").compression(CompressionType.GZIP),
                plain(2, "z").compression(CompressionType.ZSTD)), List.of());
        assertEquals(List.of("x", "y", "z"), values(page));
        assertEquals(3, page.nextOffset());
    }

    @Test
    void readCommittedSkipsAbortedTransactionsAndControlBatches() {
        ByteBuf log = log(txn(0, "c1"), marker(1, ControlRecordType.COMMIT), txn(2, "a1", "a2"),
                marker(4, ControlRecordType.ABORT), txn(5, "c2"), marker(6, ControlRecordType.COMMIT));
        List<RecordPage.Aborted> aborted = List.of(new RecordPage.Aborted(PRODUCER, 2));
        RecordPage committed = new RecordPage(0, 10, true);
        committed.add(log.duplicate(), aborted);
        assertEquals(List.of("c1", "c2"), values(committed));
        assertEquals(7, committed.nextOffset());

        RecordPage uncommitted = new RecordPage(0, 10, false);
        uncommitted.add(log.duplicate(), aborted);
        assertEquals(List.of("c1", "a1", "a2", "c2"), values(uncommitted));
    }

    @Test
    void binaryIsBase64AndNullsStayNull() {
        byte[] binary = {(byte) 0xff, 0, (byte) 0xc3};
        RecordBatchBuilder b = new RecordBatchBuilder().baseOffset(0).createTime();
        b.append(5L, null, binary, new Header("h", null), new Header("t", utf8("é")));
        RecordPage page = new RecordPage(0, 10, false);
        page.add(log(b), List.of());
        RecordPage.Entry e = page.entries().get(0);
        assertNull(e.key().text());
        assertEquals("base64", e.value().encoding());
        assertArrayEquals(binary, Base64.getDecoder().decode(e.value().text()));
        assertNull(e.headers().get(0).value().text());
        assertEquals("é", e.headers().get(1).value().text());
        assertEquals("utf8", e.headers().get(1).value().encoding());
        assertEquals("CREATE_TIME", e.timestampType());
    }

    @Test
    void longValuesAreCutAt64KiBWithoutSplittingACharacter() {
        byte[] ascii = utf8("a".repeat(RecordPage.MAX_FIELD_BYTES + 10));
        RecordPage.Field cut = RecordPage.field(Unpooled.wrappedBuffer(ascii), 0, ascii.length);
        assertTrue(cut.truncated());
        assertEquals(RecordPage.MAX_FIELD_BYTES, cut.text().length());
        assertEquals("utf8", cut.encoding());

        // a 2-byte character straddling the cut: the text stops before it, still UTF-8
        byte[] straddling = utf8("a".repeat(RecordPage.MAX_FIELD_BYTES - 1) + "é" + "b".repeat(10));
        RecordPage.Field text = RecordPage.field(Unpooled.wrappedBuffer(straddling), 0, straddling.length);
        assertEquals("utf8", text.encoding());
        assertEquals(RecordPage.MAX_FIELD_BYTES - 1, text.text().length());

        RecordPage.Field exact = RecordPage.field(Unpooled.wrappedBuffer(utf8("short")), 0, 5);
        assertFalse(exact.truncated());
    }

    @Test
    void aPageHoldsABoundedNumberOfBytes() {
        byte[] value = new byte[RecordPage.MAX_FIELD_BYTES];
        RecordBatchBuilder b = new RecordBatchBuilder().baseOffset(0).createTime();
        for (int i = 0; i < 100; i++) {
            b.append(1L, null, value);
        }
        RecordPage page = new RecordPage(0, 500, false);
        page.add(log(b), List.of());
        int fits = RecordPage.MAX_PAGE_BYTES / RecordPage.MAX_FIELD_BYTES;
        assertEquals(fits, page.entries().size());
        assertTrue(page.isFull());
        assertEquals(fits, page.nextOffset());
    }
}

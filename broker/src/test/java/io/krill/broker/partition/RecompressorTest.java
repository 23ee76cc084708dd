package io.krill.broker.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.config.BrokerConfig;
import io.krill.broker.config.TopicConfig;
import io.krill.wire.record.CompressionType;
import io.krill.wire.record.Header;
import io.krill.wire.record.RecordBatch;
import io.krill.wire.record.RecordBatchBuilder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RecompressorTest {
    private static final BrokerConfig BROKER = BrokerConfig.from(Map.of("log.dirs", "/tmp/unused"));

    private static ByteBuf gzipBatch() {
        try (RecordBatchBuilder builder = new RecordBatchBuilder()) {
            builder.compression(CompressionType.GZIP).producer(42, (short) 3, 7);
            for (int i = 0; i < 50; i++) {
                builder.append(1_700_000_000_000L + i, ("k" + i).getBytes(StandardCharsets.UTF_8),
                        i % 10 == 0 ? null : ("v" + i).getBytes(StandardCharsets.UTF_8),
                        new Header("h", new byte[] {(byte) i}));
            }
            return builder.build();
        }
    }

    private static List<String> records(ByteBuf buf) {
        List<String> out = new ArrayList<>();
        new RecordBatch().wrap(buf, buf.readerIndex()).forEachRecord(r -> {
            out.add(r.offset() + "/" + r.timestamp() + "/" + ByteBufUtil.hexDump(r.key()) + "/"
                    + (r.value() == null ? "null" : ByteBufUtil.hexDump(r.value())) + "/" + r.headerCount()
                    + "/" + ByteBufUtil.hexDump(r.headerValue(0)));
            return true;
        });
        return out;
    }

    @Test
    void producerCodecKeepsTheBatchAsSent() {
        ByteBuf batch = gzipBatch();
        try {
            assertSame(batch, Recompressor.maybeRecompress(batch, TopicConfig.resolve(Map.of(), BROKER)));
            assertSame(batch, Recompressor.maybeRecompress(batch,
                    TopicConfig.resolve(Map.of("compression.type", "gzip"), BROKER)));
        } finally {
            batch.release();
        }
    }

    @Test
    void anotherCodecIsRebuiltWithTheSameRecordsAndProducerState() {
        for (String codec : List.of("lz4", "zstd", "snappy", "uncompressed")) {
            ByteBuf batch = gzipBatch();
            ByteBuf rebuilt = Recompressor.maybeRecompress(batch,
                    TopicConfig.resolve(Map.of("compression.type", codec), BROKER));
            try {
                RecordBatch in = new RecordBatch().wrap(batch, batch.readerIndex());
                RecordBatch out = new RecordBatch().wrap(rebuilt, rebuilt.readerIndex());
                out.validate(rebuilt.readableBytes());
                assertEquals(codec.equals("uncompressed") ? CompressionType.NONE : CompressionType.forName(codec),
                        out.compression());
                assertEquals(in.producerId(), out.producerId());
                assertEquals(in.producerEpoch(), out.producerEpoch());
                assertEquals(in.baseSequence(), out.baseSequence());
                assertEquals(in.lastOffsetDelta(), out.lastOffsetDelta());
                assertEquals(in.maxTimestamp(), out.maxTimestamp());
                assertTrue(out.hasContiguousOffsets());
                assertEquals(records(batch), records(rebuilt));
            } finally {
                batch.release();
                rebuilt.release();
            }
        }
    }
}

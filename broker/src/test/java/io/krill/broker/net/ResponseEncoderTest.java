package io.krill.broker.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.log.AppendOrigin;
import io.krill.log.LogReadResult;
import io.krill.log.PartitionLog;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.FetchResponse;
import io.krill.wire.record.RecordBatchBuilder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.FileRegion;
import io.netty.util.ReferenceCountUtil;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Fetch response whose records stay in the segment file is encoded into buffers that hold its
 * headers only: the log bytes go out as file regions and never take direct memory.
 */
@Timeout(60)
class ResponseEncoderTest {
    private static final int MIB = 1 << 20;

    @TempDir
    Path dir;

    @Test
    void aFiftyMebibyteFetchFromFilesAllocatesOnlyItsHeaders() throws Exception {
        try (PartitionLog log = PartitionLog.builder(dir.resolve("t-0")).open()) {
            byte[] value = new byte[MIB];
            for (int i = 0; i < 50; i++) {
                try (RecordBatchBuilder builder = new RecordBatchBuilder(UnpooledByteBufAllocator.DEFAULT)) {
                    builder.append(1_000L + i, null, value);
                    ByteBuf batch = builder.build();
                    try {
                        log.appendAsLeader(batch, 0, AppendOrigin.CLIENT);
                    } finally {
                        batch.release();
                    }
                }
            }
            LogReadResult read = log.read(0, 64 * MIB, Long.MAX_VALUE, true);
            int logBytes = read.records().sizeInBytes();
            assertTrue(logBytes > 50 * MIB, "read " + logBytes + " bytes");
            FetchResponse response = new FetchResponse().setResponses(List.of(
                    new FetchResponse.FetchableTopicResponse().setTopicId(UUID.randomUUID()).setPartitions(List.of(
                            new FetchResponse.PartitionData().setPartitionIndex(0).setHighWatermark(50)
                                    .setRecords(new LogSliceRecords(read.records()))))));

            Object encoded = ResponseEncoder.encode(UnpooledByteBufAllocator.DEFAULT, ApiKeys.FETCH, (short) 16, 7, response);

            List<?> parts = assertInstanceOf(List.class, encoded);
            try {
                long regionBytes = 0;
                long inlineBytes = 0;
                int allocated = -1;
                for (Object part : parts) {
                    if (part instanceof FileRegion region) {
                        regionBytes += region.count();
                    } else {
                        ByteBuf buffer = assertInstanceOf(ByteBuf.class, part);
                        inlineBytes += buffer.readableBytes();
                        ByteBuf root = buffer;
                        while (root.unwrap() != null) {
                            root = root.unwrap(); // a slice of the encoder's buffer, maybe in a leak detector's wrapper
                        }
                        allocated = root.capacity();
                    }
                }
                assertEquals(logBytes, regionBytes, "every log byte goes out from the file");
                assertTrue(inlineBytes < 200, "headers only: " + inlineBytes + " bytes");
                assertTrue(allocated > 0 && allocated < 4_096, "the buffer holds the headers, not the log: "
                        + allocated + " bytes allocated");
            } finally {
                parts.forEach(ReferenceCountUtil::release);
            }
        }
    }
}

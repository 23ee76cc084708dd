package io.krill.broker.api.handlers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.krill.broker.partition.Partition;
import io.krill.controller.metadata.FinalizedFeatures;
import io.krill.controller.metadata.NewTopic;
import io.krill.log.AppendOrigin;
import io.krill.wire.record.RecordBatchBuilder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The partition manager takes {@code eligible.leader.replicas.version} from each image: on a single node
 * whose topic asks for two in-sync replicas, acks=1 records stay below the high watermark while the
 * feature is on (the strict min-ISR rule) and become visible once it is turned off.
 */
class EligibleLeaderReplicasFeatureTest {
    @TempDir
    Path dir;
    private HandlerFixture broker;

    @BeforeEach
    void start() {
        broker = HandlerFixture.start(dir);
        broker.metadata.createTopic(new NewTopic("t", 1, 1, Map.of(), Map.of("min.insync.replicas", "2"), false));
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    private void setLevel(int level) throws Exception {
        broker.metadata.updateEntityConfigsAsync(FinalizedFeatures.ENTITY, current -> FinalizedFeatures
                .fromConfigs(current).toConfigsWith(Map.of(FinalizedFeatures.ELIGIBLE_LEADER_REPLICAS_VERSION,
                        (short) level))).get(10, TimeUnit.SECONDS);
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
    void theFeatureLevelDecidesWhetherAnIsrBelowTheMinimumCommits() throws Exception {
        setLevel(0); // whatever the default
        Partition partition = broker.partitions.partition("t", 0);
        assertEquals(List.of(1), partition.state().isr());
        appendWithAcksOne(partition, 3);
        assertEquals(3, partition.highWatermark(), "the feature off: the old rule");

        setLevel(1);
        appendWithAcksOne(partition, 2);
        assertEquals(3, partition.highWatermark(), "one in sync of two required: the high watermark stays");

        setLevel(0);
        assertEquals(5, partition.highWatermark(), "turned off: the frozen high watermark moves at once");
    }
}

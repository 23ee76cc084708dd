package io.krill.compat.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The campaigns' sizes: the two variants' defaults, ballast topics of 20, the availability window. */
class CampaignSettingsTest {
    @Test
    void theManyPartitionCampaignHasTwoThousandPartitionsUnderKillsAndPauses() {
        CampaignSettings scale = CampaignSettings.SCALE;
        assertEquals("faults.scale.", scale.prefix());
        assertEquals(List.of(FaultKind.KILL, FaultKind.PAUSE), scale.kinds());
        assertEquals(1000, scale.partitions());
        assertTrue(scale.totalPartitions(Campaign.TXN_PARTITIONS) >= 2000);
        assertEquals(Duration.ofMinutes(9), scale.budget());
        CampaignSettings main = CampaignSettings.MAIN;
        assertEquals("faults.", main.prefix());
        assertEquals(6, main.partitions());
        assertEquals(0, main.ballastPartitions());
        assertEquals(List.of(FaultKind.values()), main.kinds());
        assertEquals(Duration.ofMinutes(17), main.budget());
        assertEquals(2, main.shareReaders(), "the main campaign reads with a share group too");
        assertEquals(0, scale.shareReaders());
    }

    @Test
    void ballastComesInTopicsOfTwentyTheLastTakingTheRemainder() {
        Map<String, Integer> thousand = Campaign.ballastTopics(1000);
        assertEquals(50, thousand.size());
        assertTrue(thousand.values().stream().allMatch(n -> n == 20));
        assertEquals(List.of(20, 10), List.copyOf(Campaign.ballastTopics(30).values()));
        assertEquals(Map.of(), Campaign.ballastTopics(0));
        assertEquals("faults-ballast-0000", thousand.keySet().iterator().next());
    }

    @Test
    void theAvailabilityWindowGrowsWithPartitionsPerRecord() {
        assertEquals(1000, CampaignSettings.MAIN.availabilityWindowMillis()); // 6 partitions, 300 records/s
        assertEquals(7000, CampaignSettings.SCALE.availabilityWindowMillis()); // a record per partition every 3.3 s
    }

    @Test
    void nonsenseSizesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new CampaignSettings("x.", 1, 1, 3, 100, false,
                List.of(FaultKind.KILL), 0, 0, 0, Duration.ofMinutes(1)));
        assertThrows(IllegalArgumentException.class, () -> new CampaignSettings("x.", 1, 1, 2, 100, false,
                List.of(FaultKind.KILL), 6, 0, 0, Duration.ofMinutes(1)));
        assertThrows(IllegalArgumentException.class, () -> new CampaignSettings("x.", 1, 1, 3, 100, false,
                List.of(), 6, 0, 0, Duration.ofMinutes(1)));
    }
}

package io.krill.broker.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HistoryRingTest {
    private static Map<String, Double> values(Object... pairs) {
        Map<String, Double> map = new HashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            map.put((String) pairs[i], (Double) pairs[i + 1]);
        }
        return map;
    }

    @Test
    void keepsTheLastSamplesWithNullsWhereASeriesHadNoValue() {
        HistoryRing ring = new HistoryRing(3, 10, "topic");
        ring.append(1, values("a", 1.0));
        ring.append(2, values("a", 2.0, "b", 20.0));
        ring.append(3, values("b", 30.0));
        ring.append(4, values("a", 4.0, "b", null));
        HistoryRing.Snapshot s = ring.snapshot(name -> true);
        assertEquals(List.of(2L, 3L, 4L), s.timestamps());
        assertEquals(Arrays.asList(2.0, null, 4.0), s.series().get("a"));
        assertEquals(Arrays.asList(20.0, 30.0, null), s.series().get("b"));
    }

    @Test
    void aSeriesWithOnlyNullsLeft() {
        HistoryRing ring = new HistoryRing(2, 10, "group");
        ring.append(1, values("gone", 1.0));
        ring.append(2, values());
        assertTrue(ring.snapshot(n -> true).series().containsKey("gone"));
        ring.append(3, values());
        assertFalse(ring.snapshot(n -> true).series().containsKey("gone"));
        assertEquals(0, ring.seriesCount());
    }

    @Test
    void capsTheNumberOfSeries() {
        HistoryRing ring = new HistoryRing(4, 2, "topic");
        ring.append(1, values("a", 1.0, "b", 1.0, "c", 1.0));
        assertEquals(2, ring.seriesCount());
        HistoryRing.Snapshot only = ring.snapshot("a"::equals);
        assertEquals(1, only.series().size());
        assertEquals(1, only.series().get("a").size());
    }
}

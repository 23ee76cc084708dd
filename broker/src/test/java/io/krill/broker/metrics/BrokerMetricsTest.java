package io.krill.broker.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import org.junit.jupiter.api.Test;

/** Per-topic counters, whose data points are cached per topic, add up per topic as before. */
class BrokerMetricsTest {
    @Test
    void producedAndFetchedAddUpPerTopic() {
        BrokerMetrics metrics = new BrokerMetrics();
        metrics.produced("a", 100, 2);
        metrics.produced("a", 50, 1);
        metrics.produced("b", 7, 1);
        metrics.fetched("a", 30);
        metrics.fetched("b", 0);

        assertEquals(150, value(metrics, "krill_topic_bytes_in", "a"));
        assertEquals(3, value(metrics, "krill_topic_records_in", "a"));
        assertEquals(7, value(metrics, "krill_topic_bytes_in", "b"));
        assertEquals(30, value(metrics, "krill_topic_bytes_out", "a"));
        assertEquals(0, value(metrics, "krill_topic_bytes_out", "b"));
    }

    private static double value(BrokerMetrics metrics, String name, String topic) {
        for (MetricSnapshot snapshot : metrics.registry().scrape()) {
            if (snapshot.getMetadata().getName().equals(name)) {
                return ((CounterSnapshot) snapshot).getDataPoints().stream()
                        .filter(p -> topic.equals(p.getLabels().get("topic")))
                        .mapToDouble(CounterSnapshot.CounterDataPointSnapshot::getValue).sum();
            }
        }
        throw new AssertionError("no metric " + name);
    }
}

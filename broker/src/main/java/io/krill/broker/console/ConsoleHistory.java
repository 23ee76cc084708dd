package io.krill.broker.console;

import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import io.krill.log.TopicPartition;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The console's history, sampled by the broker that serves it on its {@code console-history} thread every
 * {@code krill.console.history.interval.ms}: records-in per second per topic (the change of the sum of its
 * partitions' end offsets over the time between two samples; null for the first sample, a partition
 * whose leader did not answer, or offsets that went back, as after a re-creation), and the lag of every
 * group, in total and per topic. Each kept in a {@link HistoryRing} of {@code krill.console.history.samples}
 * samples, at most {@value #MAX_TOPICS} topics, {@value #MAX_GROUPS} groups and {@value #MAX_GROUP_TOPICS}
 * group-topic pairs.
 *
 * <p>Cost per interval: one ListOffsets per leader broker (all its partitions in it), one ListGroups per
 * broker, one OffsetFetch per coordinator (all its groups in it) and one DescribeShareGroupOffsets per
 * coordinator with share groups, each bounded by the client's timeout; samples do not overlap (fixed delay).
 * Memory: about {@code 8 * samples} bytes per series (2.9 KB at the default 360).
 *
 * <p>Thread-safety: the sample's state ({@code previous}) belongs to the history thread; the rings are
 * thread-safe and read by the API.
 */
final class ConsoleHistory implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ConsoleHistory.class);
    static final int MAX_TOPICS = 1_000;
    static final int MAX_GROUPS = 1_000;
    static final int MAX_GROUP_TOPICS = 5_000;
    /** Separates a group id from a topic in the group-topic ring's names (neither contains it). */
    static final char SEPARATOR = '\u0000';

    private final ClusterView cluster;
    private final GroupsView groups;
    private final long intervalMs;
    private final HistoryRing topics;
    private final HistoryRing groupLag;
    private final HistoryRing groupTopicLag;
    private final ScheduledExecutorService thread;
    /** Per topic the summed end offsets of the previous sample, and when it was taken (history thread). */
    private Map<String, Long> previous = Map.of();
    private long previousAtMs;

    ConsoleHistory(ClusterView cluster, GroupsView groups, long intervalMs, int samples) {
        this.cluster = cluster;
        this.groups = groups;
        this.intervalMs = intervalMs;
        this.topics = new HistoryRing(samples, MAX_TOPICS, "topic");
        this.groupLag = new HistoryRing(samples, MAX_GROUPS, "group");
        this.groupTopicLag = new HistoryRing(samples, MAX_GROUP_TOPICS, "group-topic");
        this.thread = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread t = new Thread(runnable, "console-history");
            t.setDaemon(true);
            return t;
        });
    }

    void start() {
        thread.scheduleWithFixedDelay(this::sampleSafely, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
    }

    long intervalMs() {
        return intervalMs;
    }

    HistoryRing topics() {
        return topics;
    }

    /** A group's total lag and its per-topic lags (names "group\0topic"), taken together so their samples line up. */
    synchronized HistoryRing.Snapshot[] groupSnapshots(String groupId, java.util.function.Predicate<String> topics) {
        String prefix = groupId + SEPARATOR;
        return new HistoryRing.Snapshot[] {groupLag.snapshot(groupId::equals),
            groupTopicLag.snapshot(name -> name.startsWith(prefix) && topics.test(name.substring(prefix.length())))};
    }

    private void sampleSafely() {
        try {
            sample();
        } catch (RuntimeException e) {
            // A scheduled task that throws is never run again: log it and sample at the next interval.
            LOG.warn("Console history sample failed", e);
        }
    }

    /** Takes one sample (the history thread; tests call it directly). */
    void sample() {
        MetadataImage image = cluster.image();
        Answers answers = new Answers(cluster.client().timeoutMs());
        Map<TopicPartition, Long> ends = cluster.endOffsets(image, answers);
        long now = System.currentTimeMillis();
        Map<String, Long> sums = new HashMap<>();
        for (TopicImage topic : image.topics()) {
            long sum = 0;
            boolean complete = true;
            for (PartitionState p : topic.partitions()) {
                Long end = ends.get(new TopicPartition(topic.name(), p.partition()));
                if (end == null) {
                    complete = false;
                    break;
                }
                sum += end;
            }
            if (complete) {
                sums.put(topic.name(), sum);
            }
        }
        Map<String, Double> rates = new HashMap<>();
        double seconds = (now - previousAtMs) / 1000.0;
        for (Map.Entry<String, Long> e : sums.entrySet()) {
            Long before = previous.get(e.getKey());
            rates.put(e.getKey(), before == null || e.getValue() < before || seconds <= 0 ? null
                    : (e.getValue() - before) / seconds);
        }
        previous = sums;
        previousAtMs = now;
        topics.append(now, rates);

        GroupsView.Snapshot snapshot = groups.offsets();
        Map<String, Double> totals = new HashMap<>();
        Map<String, Double> perTopic = new HashMap<>();
        for (GroupDetail g : snapshot.groups().values()) {
            Long total = GroupsApi.totalLag(g, ends, null);
            totals.put(g.groupId(), total == null ? null : total.doubleValue());
            for (Map.Entry<TopicPartition, GroupDetail.Committed> e : g.offsets().entrySet()) {
                Long lag = GroupsApi.lag(e.getValue(), ends.get(e.getKey()));
                if (lag != null) {
                    perTopic.merge(g.groupId() + SEPARATOR + e.getKey().topic(), lag.doubleValue(), Double::sum);
                }
            }
        }
        synchronized (this) {
            groupLag.append(now, totals);
            groupTopicLag.append(now, perTopic);
        }
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }
}

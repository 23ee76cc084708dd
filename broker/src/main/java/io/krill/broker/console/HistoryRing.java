package io.krill.broker.console;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Named series of numbers sampled at common times, the last {@code capacity} samples each, in ring
 * buffers (a sample overwrites the oldest once full). A series absent from a sample gets a null there; a
 * new series has nulls for the samples before it; a series whose every kept sample is null (a deleted
 * topic or group, once it has aged out) is dropped. At most {@code maxSeries} series: new ones beyond
 * that are not kept (logged once). Memory: {@code 8 * capacity} bytes per series plus the times.
 *
 * <p>Thread-safety: thread-safe; every method holds the ring's monitor.
 */
final class HistoryRing {
    private static final Logger LOG = LoggerFactory.getLogger(HistoryRing.class);

    /** The samples, oldest first; each series as long as {@code timestamps}, null where it had no value. */
    record Snapshot(List<Long> timestamps, Map<String, List<Double>> series) {
    }

    private static final class Series {
        final double[] values;
        long lastSet;

        Series(int capacity) {
            values = new double[capacity];
            Arrays.fill(values, Double.NaN);
        }
    }

    private final int capacity;
    private final int maxSeries;
    private final String what;
    private final long[] timestamps;
    private final Map<String, Series> series = new LinkedHashMap<>();
    private int head;
    private int count;
    /** How many samples were ever appended. */
    private long sequence;
    private boolean cappedLogged;

    /** @param what what the series are, for the log line when capped (e.g. "topic") */
    HistoryRing(int capacity, int maxSeries, String what) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity " + capacity);
        }
        this.capacity = capacity;
        this.maxSeries = maxSeries;
        this.what = what;
        this.timestamps = new long[capacity];
    }

    /** Appends one sample at {@code timestamp}: {@code values} by series name, null values allowed. */
    synchronized void append(long timestamp, Map<String, Double> values) {
        int index;
        if (count < capacity) {
            index = (head + count) % capacity;
            count++;
        } else {
            index = head;
            head = (head + 1) % capacity;
        }
        timestamps[index] = timestamp;
        sequence++;
        for (Series s : series.values()) {
            s.values[index] = Double.NaN;
        }
        for (Map.Entry<String, Double> e : values.entrySet()) {
            if (e.getValue() == null || e.getValue().isNaN()) {
                continue;
            }
            Series s = series.get(e.getKey());
            if (s == null) {
                if (series.size() >= maxSeries) {
                    if (!cappedLogged) {
                        cappedLogged = true;
                        LOG.warn("The console keeps the history of at most {} {} series; {} and later ones are not kept",
                                maxSeries, what, e.getKey());
                    }
                    continue;
                }
                s = new Series(capacity);
                series.put(e.getKey(), s);
            }
            s.values[index] = e.getValue();
            s.lastSet = sequence;
        }
        for (Iterator<Series> it = series.values().iterator(); it.hasNext(); ) {
            if (sequence - it.next().lastSet >= capacity) {
                it.remove();
            }
        }
    }

    /** The samples of the series whose names {@code names} accepts. */
    synchronized Snapshot snapshot(Predicate<String> names) {
        List<Long> times = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            times.add(timestamps[(head + i) % capacity]);
        }
        Map<String, List<Double>> selected = new LinkedHashMap<>();
        for (Map.Entry<String, Series> e : series.entrySet()) {
            if (!names.test(e.getKey())) {
                continue;
            }
            List<Double> values = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                double v = e.getValue().values[(head + i) % capacity];
                values.add(Double.isNaN(v) ? null : v);
            }
            selected.put(e.getKey(), values);
        }
        return new Snapshot(times, selected);
    }

    synchronized int seriesCount() {
        return series.size();
    }
}

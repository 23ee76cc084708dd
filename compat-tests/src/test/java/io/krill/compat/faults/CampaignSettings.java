package io.krill.compat.faults;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * How big a campaign is, from system properties (Maven passes {@code -Dfaults.*} to the test JVM):
 * {@code faults.seed} (default: a fresh random seed, printed, so a failing run can be replayed),
 * {@code faults.minutes} of faults (default 3, the CI campaign), {@code faults.brokers} (default 3),
 * {@code faults.rate} records per second per idempotent producer (default 100), {@code faults.keep}
 * (keep the history even when the run is clean), {@code faults.kinds} (comma-separated {@link FaultKind}s,
 * default all: to chase one kind of fault).
 *
 * <p>The whole campaign is bounded by {@link #budget()}: its minutes of faults plus {@link #OVERHEAD} for the
 * cluster's start, the heal, the final read and the check (about a minute in a normal run; each of those
 * steps also has its own, shorter bound).
 */
record CampaignSettings(long seed, double minutes, int brokers, int rate, boolean keep, List<FaultKind> kinds) {
    /** What a campaign may take beyond its minutes of faults before it is stopped as hung. */
    static final Duration OVERHEAD = Duration.ofMinutes(15);
    /** The longest campaign: under the test method's {@code @Timeout} (24 h), so that the budget always binds. */
    static final Duration LONGEST = Duration.ofHours(23);

    CampaignSettings {
        if (!(minutes > 0) || minutes > LONGEST.minus(OVERHEAD).toMinutes()) {
            throw new IllegalArgumentException("faults.minutes must be above 0 and at most "
                    + LONGEST.minus(OVERHEAD).toMinutes() + ", not " + minutes);
        }
    }

    /** The bound of the whole campaign: its minutes of faults plus {@link #OVERHEAD}. */
    Duration budget() {
        return Duration.ofMillis((long) (minutes * 60_000)).plus(OVERHEAD);
    }

    static CampaignSettings fromSystemProperties() {
        String seed = System.getProperty("faults.seed", "");
        return new CampaignSettings(
                seed.isBlank() ? new Random().nextLong() & Long.MAX_VALUE : Long.parseLong(seed.trim()),
                Double.parseDouble(System.getProperty("faults.minutes", "3")),
                Integer.getInteger("faults.brokers", 3),
                Integer.getInteger("faults.rate", 100),
                Boolean.getBoolean("faults.keep"),
                kinds(System.getProperty("faults.kinds", "")));
    }

    /** Comma-separated {@link FaultKind} names; blank for all of them. */
    private static List<FaultKind> kinds(String names) {
        if (names.isBlank()) {
            return List.of(FaultKind.values());
        }
        return Arrays.stream(names.split(",")).map(String::trim).map(FaultKind::valueOf).toList();
    }

    @Override
    public String toString() {
        return "seed " + seed + ", " + minutes + " min of faults, " + brokers + " brokers, " + rate
                + " records/s per producer, faults " + kinds + ", bounded at " + budget().toMinutes() + " min";
    }
}

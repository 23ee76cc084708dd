package io.krill.compat.faults;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * How big a campaign is, from system properties (Maven passes {@code -D...} to the test JVM). Each variant
 * reads its own prefix: {@link FaultCampaignTest} {@code faults.}, {@link ManyPartitionsCampaignTest}
 * {@code faults.scale.}, so that a setting for one (a long {@code -Dfaults.minutes=30}) does not reach the
 * other in the same build. Under a prefix {@code P}:
 * <ul>
 *   <li>{@code P.seed} (default: a fresh random seed, printed, so a failing run can be replayed);
 *   <li>{@code P.minutes} of faults (default 2 for the main campaign, 1 for the many-partition one);
 *   <li>{@code P.brokers} (default 3);
 *   <li>{@code P.shareReaders}: members of the share group reading both topics (default 2 for the main
 *       campaign, none for the many-partition one);
 *   <li>{@code P.rate} records per second per idempotent producer (default 100; there are three producers);
 *   <li>{@code P.keep} (keep the history even when the run is clean);
 *   <li>{@code P.kinds} (comma-separated {@link FaultKind}s; default all for the main campaign, {@code KILL,PAUSE}
 *       for the many-partition one): to chase one kind of fault;
 *   <li>{@code P.partitions}: partitions of the idempotent producers' topic, which each producer writes
 *       round-robin (default 6; 1,000 for the many-partition campaign);
 *   <li>{@code P.ballastPartitions}: extra partitions, in topics of {@value #BALLAST_TOPIC_PARTITIONS} (the
 *       last one takes the remainder), RF 3, {@code min.insync.replicas=2}, created before the faults start
 *       and left idle: they load the control plane (elections, ISR changes, a restarted broker's catch-up)
 *       and the nemesis waits for their full ISR after each fault as for the others, but no one writes or
 *       reads them, so the final read, the checks and availability leave them out (default 0; 1,000 for the
 *       many-partition campaign).
 * </ul>
 *
 * <p>The whole campaign is bounded by {@link #budget()}: its minutes of faults plus {@link #overhead()} for
 * the cluster's start, the topics' creation, the heal, the final read and the check (each of those steps
 * also has its own, shorter bound): 15 min for the main campaign, 8 min for the many-partition one (whose
 * small form takes about 3 min in all).
 */
record CampaignSettings(String prefix, long seed, double minutes, int brokers, int rate, boolean keep,
                        List<FaultKind> kinds, int partitions, int ballastPartitions, int shareReaders,
                        Duration overhead) {
    /** Partitions per ballast topic (the last one may have fewer). */
    static final int BALLAST_TOPIC_PARTITIONS = 20;
    /** The longest campaign: under the test methods' {@code @Timeout} (24 h), so that the budget always binds. */
    static final Duration LONGEST = Duration.ofHours(23);

    /** The main campaign's defaults: every fault, a small topic, no ballast. */
    static final CampaignSettings MAIN = new CampaignSettings("faults.", 0, 2, 3, 100, false,
            List.of(FaultKind.values()), 6, 0, 2, Duration.ofMinutes(15));
    /** The many-partition campaign's defaults: kill -9 and SIGSTOP on 1,000 written plus 1,000 idle partitions. */
    static final CampaignSettings SCALE = new CampaignSettings("faults.scale.", 0, 1, 3, 100, false,
            List.of(FaultKind.KILL, FaultKind.PAUSE), 1000, 1000, 0, Duration.ofMinutes(8));

    CampaignSettings {
        if (!(minutes > 0) || minutes > LONGEST.minus(overhead).toMinutes()) {
            throw new IllegalArgumentException(prefix + "minutes must be above 0 and at most "
                    + LONGEST.minus(overhead).toMinutes() + ", not " + minutes);
        }
        if (partitions < 1 || ballastPartitions < 0 || shareReaders < 0) {
            throw new IllegalArgumentException(prefix + "partitions must be at least 1 and " + prefix
                    + "ballastPartitions at least 0, not " + partitions + " and " + ballastPartitions);
        }
        if (brokers < 3) {
            throw new IllegalArgumentException(prefix + "brokers must be at least 3 (RF 3), not " + brokers);
        }
        if (rate < 1 || kinds.isEmpty()) {
            throw new IllegalArgumentException(prefix + "rate must be at least 1 and " + prefix
                    + "kinds name at least one fault");
        }
        kinds = List.copyOf(kinds);
    }

    /** The bound of the whole campaign: its minutes of faults plus {@link #overhead()}. */
    Duration budget() {
        return Duration.ofMillis((long) (minutes * 60_000)).plus(overhead);
    }

    /** The main campaign's settings ({@code faults.*}). */
    static CampaignSettings fromSystemProperties() {
        return MAIN.overriddenBySystemProperties();
    }

    /** These settings, each overridden by its system property under {@link #prefix()}, with a seed. */
    CampaignSettings overriddenBySystemProperties() {
        String p = prefix;
        String seedProperty = System.getProperty(p + "seed", "");
        String kindsProperty = System.getProperty(p + "kinds", "");
        return new CampaignSettings(p,
                seedProperty.isBlank() ? new Random().nextLong() & Long.MAX_VALUE : Long.parseLong(seedProperty.trim()),
                Double.parseDouble(System.getProperty(p + "minutes", Double.toString(minutes))),
                Integer.getInteger(p + "brokers", brokers),
                Integer.getInteger(p + "rate", rate),
                Boolean.parseBoolean(System.getProperty(p + "keep", Boolean.toString(keep))),
                kindsProperty.isBlank() ? kinds : kinds(kindsProperty),
                Integer.getInteger(p + "partitions", partitions),
                Integer.getInteger(p + "ballastPartitions", ballastPartitions),
                Integer.getInteger(p + "shareReaders", shareReaders),
                overhead);
    }

    /** Comma-separated {@link FaultKind} names. */
    private static List<FaultKind> kinds(String names) {
        return Arrays.stream(names.split(",")).map(String::trim).filter(s -> !s.isEmpty()).map(FaultKind::valueOf)
                .toList();
    }

    /** Partitions in all: the idempotent topic, the transactional one and the ballast. */
    int totalPartitions(int transactionalPartitions) {
        return partitions + transactionalPartitions + ballastPartitions;
    }

    /**
     * The availability window: long enough that a partition served throughout receives (and has acknowledged)
     * a record in each window. Each partition gets a record every {@code partitions / (3 * rate)} seconds;
     * the window is twice that, in whole seconds, and at least 1 s (6 partitions: 1 s; 1,000 at 100 records/s
     * per producer: 7 s).
     */
    long availabilityWindowMillis() {
        double perPartitionInterval = partitions / (3.0 * rate);
        return Math.max(1, (long) Math.ceil(2 * perPartitionInterval)) * 1000;
    }

    @Override
    public String toString() {
        return "seed " + seed + ", " + minutes + " min of faults, " + brokers + " brokers, " + partitions
                + " idempotent partitions, " + ballastPartitions + " ballast partitions, " + rate
                + " records/s per producer, faults " + kinds + ", bounded at " + budget().toMinutes() + " min";
    }
}

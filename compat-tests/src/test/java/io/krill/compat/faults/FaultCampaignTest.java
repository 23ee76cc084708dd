package io.krill.compat.faults;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fault campaign (docs/faults.md): a cluster whose brokers live in their own network namespaces, a
 * seeded {@link Nemesis} crashing, pausing, partitioning them, restarting ZooKeeper and filling a disk,
 * while idempotent and transactional producers write numbered values and two consumer groups (classic and
 * KIP-848) read them with read_committed; then everything is healed, read back whole, and the
 * {@link HistoryChecker} judges the history (the whole run is {@link Campaign}). Sized by the
 * {@code faults.*} properties ({@link CampaignSettings}): with {@code -Dfaults.partitions} and
 * {@code -Dfaults.ballastPartitions} the same campaign, every fault kind included, runs at scale;
 * {@link ManyPartitionsCampaignTest} is its many-partition form in the default run.
 *
 * <p>Bounded by {@link CampaignSettings#budget()}, {@code -Dfaults.minutes} plus 15 min, so the default run and
 * a long one ({@code -Dfaults.minutes=15}) need no other setting: the method's {@code @Timeout} (a day, on the
 * test's own thread) only takes it out of the build's per-test default, and the campaign's watchdog
 * interrupts it once it overruns its budget, after which the test fails saying so (the cluster is still torn
 * down, on this thread).
 *
 * <p>Needs root (namespaces, iptables, a tmpfs mount): skipped without it, except under CI, where it fails.
 */
class FaultCampaignTest {
    private static final Logger LOG = LoggerFactory.getLogger(FaultCampaignTest.class);

    @Test
    @Timeout(value = 24, unit = TimeUnit.HOURS, threadMode = Timeout.ThreadMode.SAME_THREAD)
    void noAcknowledgedWriteIsLostUnderFaults() throws Exception {
        Campaign.runAndAssertClean(CampaignSettings.fromSystemProperties());
    }

    /** Checks a kept history again without a cluster: {@code -Dfaults.history=target/faults/<seed>/history.jsonl}. */
    @Test
    void checksAKeptHistory() throws IOException {
        String kept = System.getProperty("faults.history", "");
        Assumptions.assumeFalse(kept.isBlank(), "no -Dfaults.history given");
        HistoryChecker.Verdict verdict = HistoryChecker.check(Path.of(kept));
        LOG.info("{}: {} examples {}", kept, verdict.summary(), verdict.examples());
        assertTrue(verdict.clean(), () -> verdict.summary() + "\nexamples: " + verdict.examples());
    }
}

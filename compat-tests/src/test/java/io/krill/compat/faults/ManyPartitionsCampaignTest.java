package io.krill.compat.faults;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The fault campaign at scale (docs/faults.md, "Many partitions"): the same {@link Campaign} as
 * {@link FaultCampaignTest}, with the three idempotent acks=all producers writing round-robin to 1,000
 * partitions, plus 1,000 idle ballast partitions in topics of 20 (2,003 partitions in all with the
 * transactional topic, RF 3 on 3 brokers), under kill -9 ({@link FaultKind#KILL}) and SIGSTOP/SIGCONT
 * ({@link FaultKind#PAUSE}) only: the control plane's elections, ISR changes and a restarted broker's
 * catch-up at a few thousand replicas per broker. The checks are the main campaign's: nothing acknowledged
 * lost, duplicated or reordered, no aborted, torn, unsent or dirty read, no offset going backwards, no crash,
 * no stuck shutdown.
 *
 * <p>Its small form (1 min of faults, about 3 min in all) runs in the default build; a longer one by command,
 * with its own {@code faults.scale.*} properties ({@link CampaignSettings#SCALE}), for example
 * {@code -Dtest=ManyPartitionsCampaignTest -Dfaults.scale.minutes=10}. Bounded by {@code faults.scale.minutes}
 * plus 8 min (the campaign's watchdog); the {@code @Timeout} only takes it out of the build's per-test default.
 *
 * <p>Needs root (namespaces, iptables): skipped without it, except under CI, where it fails. A broker that
 * lacks what the campaign needs (transactions, KIP-848) fails it.
 */
class ManyPartitionsCampaignTest {
    @Test
    @Timeout(value = 24, unit = TimeUnit.HOURS, threadMode = Timeout.ThreadMode.SAME_THREAD)
    void noAcknowledgedWriteIsLostUnderKillsAndPausesAtManyPartitions() throws Exception {
        Campaign.runAndAssertClean(CampaignSettings.SCALE.overriddenBySystemProperties());
    }
}

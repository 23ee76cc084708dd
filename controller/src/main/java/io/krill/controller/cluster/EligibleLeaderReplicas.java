package io.krill.controller.cluster;

import io.krill.controller.metadata.PartitionState;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * How a partition's eligible leader replicas (ELR, Kafka's KIP-966) follow its ISR, as pure functions
 * that every writer of a partition record applies to the state it is about to write.
 *
 * <p>Why a replica out of the ISR may be eligible: with the feature on, a leader's high watermark moves
 * only while its ISR has at least {@code min.insync.replicas} members (the strict min-ISR rule), and
 * every ISR member holds every record below the high watermark. So a replica that leaves the ISR when
 * the ISR left behind is below the minimum holds everything up to a high watermark that cannot move
 * until the ISR is back at the minimum (which clears the ELR). Hence:
 *
 * <ul>
 *   <li>an ISR at or above the minimum: no ELR, no last known ELR;</li>
 *   <li>else the ELR is the previous ELR plus the replicas that just left the ISR, minus the ISR, minus
 *       replicas no longer assigned, minus a broker that restarted after an unclean shutdown (it may have
 *       lost unflushed records);</li>
 *   <li>the last known ELR is set only while the ISR and the ELR are both empty: the replicas that were
 *       in the ISR or the ELR just before both emptied (kept as it is while they stay empty).</li>
 * </ul>
 *
 * <p>Stateless; thread-safe.
 */
public final class EligibleLeaderReplicas {
    /** No broker is excluded from the ELR. */
    public static final int NONE = -1;

    private EligibleLeaderReplicas() {
    }

    /**
     * {@code next} (the state a writer is about to write in place of {@code before}) with its ELR lists
     * set by the rules above; with the feature off, both lists are empty.
     *
     * @param excluded a broker that must not stay or become eligible (restarted uncleanly), or {@link #NONE}
     */
    public static PartitionState track(PartitionState before, PartitionState next, ElrSettings settings,
                                       int excluded) {
        if (!settings.enabled() || next.isr().size() >= settings.minInsyncReplicas()) {
            return next.withEligibleLeaderReplicas(List.of(), List.of());
        }
        Set<Integer> candidates = new HashSet<>(before.eligibleLeaderReplicas());
        candidates.addAll(before.isr());
        List<Integer> elr = new ArrayList<>();
        for (int replica : next.replicas()) {
            if (candidates.contains(replica) && !next.isr().contains(replica) && replica != excluded) {
                elr.add(replica);
            }
        }
        List<Integer> lastKnown = List.of();
        if (next.isr().isEmpty() && elr.isEmpty()) {
            lastKnown = inReplicaOrder(next.replicas(), candidates);
            if (lastKnown.isEmpty()) {
                lastKnown = inReplicaOrder(next.replicas(), new HashSet<>(before.lastKnownElr()));
            }
        }
        return next.withEligibleLeaderReplicas(elr, lastKnown);
    }

    /**
     * {@code state} with its ELR cleared, epochs unchanged: when the topic's {@code min.insync.replicas}
     * changes (the ELR was computed against the old minimum, as Kafka clears it). With an empty ISR the
     * cleared members are kept as the last known ELR, for operators.
     */
    public static PartitionState cleared(PartitionState state) {
        if (state.eligibleLeaderReplicas().isEmpty()) {
            return state;
        }
        return state.withEligibleLeaderReplicas(List.of(), state.isr().isEmpty()
                ? state.eligibleLeaderReplicas() : List.of());
    }

    /**
     * {@code state} as the feature off reads it, epochs unchanged: no ELR lists, and an empty ISR takes
     * back the ELR (else the last known ELR): Krill's ISR-only rule keeps an ISR whose members are all
     * gone, since they may hold records the others lack, and ELR members hold every acknowledged record.
     */
    public static PartitionState withoutFeature(PartitionState state) {
        if (!state.hasEligibleLeaderReplicas()) {
            return state;
        }
        List<Integer> isr = state.isr();
        if (isr.isEmpty()) {
            isr = state.eligibleLeaderReplicas().isEmpty() ? state.lastKnownElr() : state.eligibleLeaderReplicas();
        }
        return new PartitionState(state.partition(), state.leader(), state.leaderEpoch(), state.replicas(), isr,
                state.partitionEpoch(), state.addingReplicas(), state.removingReplicas());
    }

    private static List<Integer> inReplicaOrder(List<Integer> replicas, Set<Integer> members) {
        List<Integer> ordered = new ArrayList<>();
        for (int replica : replicas) {
            if (members.contains(replica)) {
                ordered.add(replica);
            }
        }
        return List.copyOf(ordered);
    }
}

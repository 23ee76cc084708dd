package io.krill.controller.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.krill.controller.metadata.PartitionState;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A seeded simulation of one partition with eligible leader replicas on, with a model of the replicas'
 * logs, to check the guarantee rather than the rules: leaders append, followers fetch (truncating to the
 * leader's log first, as epochs make them), the leader's high watermark follows the strict min-ISR rule
 * over the committed ISR, leaders shrink and grow the ISR ({@link EligibleLeaderReplicas#track}, as
 * {@code IsrChangeWriter} writes it), brokers stop cleanly, crash (losing what they had not flushed) and
 * come back (resigning, uncleanly or not, as the store does), and after every step the controller's
 * election ({@link LeaderElection#elect}) runs. Checked after every step: every ISR and ELR member holds
 * every committed record; the ELR is disjoint from the ISR and within the replicas; the last known ELR is
 * set only with both empty; a leader is in the ISR. Elections of the last known leader (which may have
 * lost records in an unclean shutdown, as Kafka accepts) are counted, and commitment starts over from its
 * log.
 */
class EligibleLeaderReplicasSimulationTest {
    private static final int STEPS = 3_000;

    @Test
    void committedRecordsSurviveOnEveryEligibleReplica() {
        int elrElections = 0;
        for (long seed = 1; seed <= 12; seed++) {
            elrElections += new Simulation(seed).run();
        }
        assertTrue(elrElections > 50, "elections from the ELR happened: " + elrElections);
    }

    private static final class Simulation {
        private final long seed;
        private final Random random;
        private final int replicaCount;
        private final ElrSettings settings;
        private final List<Integer> replicas = new ArrayList<>();
        private final List<List<Integer>> logs = new ArrayList<>();
        private final int[] flushed;
        private final boolean[] alive;
        /** What the leader knows of each follower's log end (reset when leadership moves). */
        private final int[] fetched;
        private PartitionState state;
        private int nextRecord;
        /** The committed records: a prefix of every ISR and ELR member's log. */
        private List<Integer> committed = List.of();
        private int step;
        private int elrElections;
        private int lastKnownLeaderElections;

        Simulation(long seed) {
            this.seed = seed;
            this.random = new Random(seed);
            this.replicaCount = 3 + random.nextInt(2);
            this.settings = new ElrSettings(true, 1 + random.nextInt(3));
            for (int b = 0; b < replicaCount; b++) {
                replicas.add(b + 1);
                logs.add(new ArrayList<>());
            }
            logs.add(0, null); // broker ids start at 1
            flushed = new int[replicaCount + 1];
            alive = new boolean[replicaCount + 1];
            fetched = new int[replicaCount + 1];
            for (int b : replicas) {
                alive[b] = true;
            }
            state = new PartitionState(0, 1, 0, replicas, replicas, 0);
        }

        int run() {
            for (step = 0; step < STEPS; step++) {
                switch (random.nextInt(10)) {
                    case 0, 1, 2 -> append();
                    case 3, 4 -> fetch(replicas.get(random.nextInt(replicaCount)));
                    case 5 -> shrinkOrGrowIsr();
                    case 6 -> flush(replicas.get(random.nextInt(replicaCount)));
                    case 7 -> stopOrCrash(replicas.get(random.nextInt(replicaCount)));
                    case 8, 9 -> comeBack(replicas.get(random.nextInt(replicaCount)));
                    default -> throw new IllegalStateException();
                }
                maybeAdvanceHighWatermark();
                elect();
                check();
            }
            return elrElections;
        }

        private List<Integer> log(int broker) {
            return logs.get(broker);
        }

        private void append() {
            if (state.hasLeader()) {
                for (int i = random.nextInt(3); i >= 0; i--) {
                    log(state.leader()).add(nextRecord++);
                }
            }
        }

        /** A follower's fetch: truncate to what it shares with the leader, then copy some of the rest. */
        private void fetch(int follower) {
            int leader = state.leader();
            if (leader == PartitionState.NO_LEADER || follower == leader || !alive[follower]) {
                return;
            }
            List<Integer> mine = log(follower);
            List<Integer> theirs = log(leader);
            int common = 0;
            while (common < mine.size() && common < theirs.size() && mine.get(common).equals(theirs.get(common))) {
                common++;
            }
            mine.subList(common, mine.size()).clear();
            flushed[follower] = Math.min(flushed[follower], common);
            int copy = random.nextInt(theirs.size() - common + 1);
            mine.addAll(theirs.subList(common, common + copy));
            fetched[follower] = mine.size();
        }

        private void maybeAdvanceHighWatermark() {
            int leader = state.leader();
            if (leader == PartitionState.NO_LEADER || state.isr().size() < settings.minInsyncReplicas()) {
                return;
            }
            int hw = log(leader).size();
            for (int member : state.isr()) {
                if (member != leader) {
                    hw = Math.min(hw, fetched[member]);
                }
            }
            if (hw > committed.size()) {
                committed = List.copyOf(log(leader).subList(0, hw));
            }
        }

        private void shrinkOrGrowIsr() {
            int leader = state.leader();
            if (leader == PartitionState.NO_LEADER) {
                return;
            }
            int replica = replicas.get(random.nextInt(replicaCount));
            List<Integer> isr = new ArrayList<>(state.isr());
            if (replica == leader) {
                return;
            }
            if (isr.contains(replica)) {
                isr.remove(Integer.valueOf(replica)); // lagging: the leader drops it
            } else if (alive[replica] && log(replica).equals(log(leader))) {
                isr.add(replica); // caught up with the leader's whole log, its epoch's start included
            } else {
                return;
            }
            state = EligibleLeaderReplicas.track(state, state.withIsr(isr), settings, EligibleLeaderReplicas.NONE);
        }

        private void flush(int broker) {
            flushed[broker] = log(broker).size();
        }

        private void stopOrCrash(int broker) {
            if (!alive[broker]) {
                return;
            }
            if (random.nextBoolean()) {
                PartitionState resigned = LeaderElection.resign(state, broker, this::isLive, settings, false);
                if (resigned != null) {
                    leadershipMayMove(resigned);
                }
            }
            alive[broker] = false;
        }

        private void comeBack(int broker) {
            if (alive[broker]) {
                return;
            }
            boolean uncleanly = random.nextInt(3) == 0;
            if (uncleanly) {
                List<Integer> log = log(broker);
                int kept = flushed[broker] + random.nextInt(log.size() - flushed[broker] + 1);
                log.subList(kept, log.size()).clear();
            }
            PartitionState resigned = LeaderElection.resign(state, broker, this::isLive, settings, uncleanly);
            if (resigned != null) {
                leadershipMayMove(resigned);
            }
            alive[broker] = true;
        }

        private boolean isLive(int broker) {
            return broker >= 1 && broker <= replicaCount && alive[broker];
        }

        private void elect() {
            PartitionState next = LeaderElection.elect(state, this::isLive, false, settings);
            if (next != null) {
                leadershipMayMove(next);
            }
        }

        private void leadershipMayMove(PartitionState next) {
            PartitionState before = state;
            state = next;
            if (next.leader() == before.leader() && next.leaderEpoch() == before.leaderEpoch()) {
                return;
            }
            java.util.Arrays.fill(fetched, 0);
            int leader = next.leader();
            if (leader == PartitionState.NO_LEADER) {
                return;
            }
            if (before.isr().isEmpty() && before.eligibleLeaderReplicas().contains(leader)) {
                elrElections++;
            }
            if (!before.isr().contains(leader) && !before.eligibleLeaderReplicas().contains(leader)) {
                assertEquals(List.of(leader), before.lastKnownElr(), where("only the last known leader is elected "
                        + "from outside the ISR and ELR"));
                lastKnownLeaderElections++;
                committed = List.of(); // Kafka accepts what it lost in an unclean shutdown
                return;
            }
            assertTrue(holdsCommitted(leader), where("new leader " + leader + " lacks committed records"));
        }

        private boolean holdsCommitted(int broker) {
            List<Integer> log = log(broker);
            return log.size() >= committed.size() && log.subList(0, committed.size()).equals(committed);
        }

        private void check() {
            Set<Integer> isr = new HashSet<>(state.isr());
            for (int member : state.isr()) {
                assertTrue(holdsCommitted(member), where("ISR member " + member + " lacks committed records"));
            }
            for (int member : state.eligibleLeaderReplicas()) {
                assertTrue(holdsCommitted(member), where("ELR member " + member + " lacks committed records"));
                assertTrue(!isr.contains(member) && replicas.contains(member), where("ELR " + state));
            }
            if (!state.lastKnownElr().isEmpty() && (!isr.isEmpty() || !state.eligibleLeaderReplicas().isEmpty())) {
                fail(where("a last known ELR beside an ISR or ELR: " + state));
            }
            if (state.hasLeader() && !isr.contains(state.leader())) {
                fail(where("the leader is outside the ISR: " + state));
            }
            if (state.isr().size() >= settings.minInsyncReplicas() && state.hasEligibleLeaderReplicas()) {
                fail(where("an ISR at the minimum keeps an ELR: " + state));
            }
            assertEquals(state.isr().size(), isr.size(), where("duplicate ISR members"));
        }

        private String where(String what) {
            return "seed " + seed + " step " + step + " (min ISR " + settings.minInsyncReplicas() + "): " + what
                    + " " + state;
        }
    }
}

package io.krill.controller.cluster;

import io.krill.controller.metadata.ApiError;
import io.krill.controller.metadata.ElectionType;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import io.krill.controller.metadata.TopicPartitionKey;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka's {@code auto.leader.rebalance.enable}: every {@code leader.imbalance.check.interval.seconds}
 * the active controller looks, per live broker, at the partitions whose preferred (first) replica it
 * is; when more than {@code leader.imbalance.per.broker.percentage} of them are led by another broker,
 * it runs a preferred election for those (not for partitions being reassigned or without a leader).
 * Partitions whose preferred replica is not in the ISR yet stay where they are
 * (PREFERRED_LEADER_NOT_AVAILABLE) and are tried again at the next check. Leadership moves back after
 * a failover without an operator.
 *
 * <p>Thread-safety: {@link #check} runs on the store's controller thread only; {@link #candidates} is
 * pure.
 */
final class PreferredLeaderBalancer {
    private static final Logger LOG = LoggerFactory.getLogger(PreferredLeaderBalancer.class);

    /** How the balancer runs elections: the store's {@code electLeaders}. */
    @FunctionalInterface
    interface Elections {
        Map<TopicPartitionKey, ApiError> elect(ElectionType type, Collection<TopicPartitionKey> partitions);
    }

    private final int imbalancePercentage;
    private final Elections elections;

    PreferredLeaderBalancer(int imbalancePercentage, Elections elections) {
        this.imbalancePercentage = imbalancePercentage;
        this.elections = elections;
    }

    /** Runs the preferred elections {@code image} calls for; returns how many leaders moved. */
    int check(MetadataImage image) {
        List<TopicPartitionKey> candidates = candidates(image, imbalancePercentage);
        if (candidates.isEmpty()) {
            return 0;
        }
        int moved = 0;
        Map<TopicPartitionKey, ApiError> results = elections.elect(ElectionType.PREFERRED, candidates);
        for (Map.Entry<TopicPartitionKey, ApiError> result : results.entrySet()) {
            if (result.getValue().isSuccess()) {
                moved++;
            } else {
                LOG.debug("no preferred election for {}: {}", result.getKey(), result.getValue());
            }
        }
        if (moved > 0) {
            LOG.info("leader imbalance above {}%: moved {} of {} partition(s) back to their preferred leaders",
                    imbalancePercentage, moved, candidates.size());
        }
        return moved;
    }

    /**
     * The partitions not led by their preferred replica, for every live preferred replica that leads
     * fewer than {@code 100 - imbalancePercentage} percent of its preferred partitions; without
     * partitions being reassigned, and without leaderless ones (they count towards the imbalance, but
     * the election rule gives them a leader, the preferred replica first, without help).
     */
    static List<TopicPartitionKey> candidates(MetadataImage image, int imbalancePercentage) {
        Map<Integer, Integer> preferredCounts = new TreeMap<>();
        Map<Integer, List<TopicPartitionKey>> notLed = new TreeMap<>();
        Map<Integer, Integer> notLedCounts = new TreeMap<>();
        for (TopicImage topic : image.topics()) {
            for (PartitionState state : topic.partitions()) {
                int preferred = state.preferredReplica();
                if (preferred == PartitionState.NO_LEADER || image.broker(preferred) == null) {
                    continue;
                }
                preferredCounts.merge(preferred, 1, Integer::sum);
                if (state.leader() != preferred) {
                    notLedCounts.merge(preferred, 1, Integer::sum);
                    if (state.hasLeader() && !state.isReassigning()) {
                        notLed.computeIfAbsent(preferred, b -> new ArrayList<>())
                                .add(new TopicPartitionKey(topic.name(), state.partition()));
                    }
                }
            }
        }
        List<TopicPartitionKey> candidates = new ArrayList<>();
        notLedCounts.forEach((broker, count) -> {
            // count / total > percentage / 100, in integers
            if (count * 100L > (long) imbalancePercentage * preferredCounts.get(broker)) {
                candidates.addAll(notLed.getOrDefault(broker, List.of()));
            }
        });
        return candidates;
    }
}

package io.krill.controller.cluster;

import io.krill.controller.metadata.TopicImage;
import java.util.Set;

/**
 * What {@link IsrLeaderRebalancer}, run by the Helix controller of this JVM, needs from the store:
 * the partition-state records (the image) and a way to declare a partition leaderless.
 * Implementations are thread-safe (called on Helix's pipeline thread).
 */
interface ElectionInputs {
    /** The topic as this broker's image has it, or null. */
    TopicImage topic(String name);

    /** Whether the topic allows electing a replica outside the ISR. */
    boolean uncleanElection(TopicImage topic);

    /**
     * The partition's leader is not live and nobody may replace it: write NO_LEADER (a new epoch), if
     * the fresh record still calls for it. Asynchronous, so the pipeline does not wait on ZooKeeper.
     */
    void declareLeaderless(String topic, int partition, Set<Integer> live);
}

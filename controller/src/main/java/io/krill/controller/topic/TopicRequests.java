package io.krill.controller.topic;

import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.NewTopic;
import io.krill.controller.metadata.TopicImage;
import io.krill.controller.metadata.TopicNames;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Checks a topic creation or partition growth against an image, with KRaft's errors and messages,
 * and places the new replicas on the live brokers ({@link ReplicaPlacer}). Brokers that are not live
 * count as not registered. The one validation path of both metadata stores (ZooKeeper's and the
 * single-node local one), so a handler test against either store sees Kafka's answers.
 *
 * <p>Stateless.
 */
public final class TopicRequests {

    /** Partition count and one replica list per new partition. */
    public record Plan(int partitionCount, List<List<Integer>> assignments) {
        public Plan {
            assignments = List.copyOf(assignments);
        }
    }

    private TopicRequests() {
    }

    public static Plan planNewTopic(MetadataImage image, NewTopic spec, int defaultPartitions, int defaultReplicationFactor,
                             Random random) {
        TopicNames.validate(spec.name());
        if (image.topic(spec.name()) != null) {
            throw new ApiException(Errors.TOPIC_ALREADY_EXISTS, "Topic '" + spec.name() + "' already exists.");
        }
        for (TopicImage existing : image.topics()) {
            if (TopicNames.collide(existing.name(), spec.name())) {
                throw new ApiException(Errors.INVALID_TOPIC_EXCEPTION, "Topic '" + spec.name()
                        + "' collides with existing topic: " + existing.name());
            }
        }
        List<BrokerInfo> brokers = liveBrokers(image);
        if (!spec.assignments().isEmpty()) {
            int count = spec.assignments().size();
            List<List<Integer>> assignments = new ArrayList<>(count);
            for (int p = 0; p < count; p++) {
                List<Integer> replicas = spec.assignments().get(p);
                if (replicas == null) {
                    throw new ApiException(Errors.INVALID_REPLICA_ASSIGNMENT,
                            "partitions should be a consecutive 0-based integer sequence");
                }
                checkAssignment(replicas, brokers);
                assignments.add(List.copyOf(replicas));
            }
            return new Plan(count, assignments);
        }
        int count = spec.numPartitions() == -1 ? defaultPartitions : spec.numPartitions();
        if (count <= 0) {
            throw new ApiException(Errors.INVALID_PARTITIONS, "Number of partitions was set to an invalid non-positive value.");
        }
        int replicationFactor = spec.replicationFactor() == -1 ? defaultReplicationFactor : spec.replicationFactor();
        checkReplicationFactor(replicationFactor, brokers.size());
        return new Plan(count, new ReplicaPlacer(random).place(brokers, count, replicationFactor, 0, -1));
    }

    public static Plan planNewPartitions(MetadataImage image, String name, int totalCount, List<List<Integer>> newAssignments,
                                  Random random) {
        TopicImage topic = image.topic(name);
        if (topic == null) {
            throw new ApiException(Errors.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic: " + name);
        }
        int existing = topic.partitionCount();
        if (totalCount == existing) {
            throw new ApiException(Errors.INVALID_PARTITIONS, "Topic already has " + existing + " partition(s).");
        }
        if (totalCount < existing) {
            throw new ApiException(Errors.INVALID_PARTITIONS, "The topic " + name + " currently has " + existing
                    + " partition(s); " + totalCount + " would not be an increase.");
        }
        int added = totalCount - existing;
        if (!newAssignments.isEmpty() && newAssignments.size() != added) {
            throw new ApiException(Errors.INVALID_REPLICA_ASSIGNMENT, "Attempted to add " + added
                    + " additional partition(s), but only " + newAssignments.size() + " assignment(s) were specified.");
        }
        List<BrokerInfo> brokers = liveBrokers(image);
        int replicationFactor = topic.partition(0).replicas().size();
        if (!newAssignments.isEmpty()) {
            for (List<Integer> replicas : newAssignments) {
                checkAssignment(replicas, brokers);
                if (replicas.size() != replicationFactor) {
                    throw new ApiException(Errors.INVALID_REPLICA_ASSIGNMENT, "The manual partition assignment includes a "
                            + "partition with " + replicas.size() + " replica(s), but this is not consistent with "
                            + "previous partitions, which have " + replicationFactor + " replica(s).");
                }
            }
            return new Plan(totalCount, newAssignments.stream().map(List::copyOf).toList());
        }
        checkReplicationFactor(replicationFactor, brokers.size());
        int start = ReplicaPlacer.startIndexOf(brokers, topic.partition(0).replicas().get(0));
        return new Plan(totalCount, new ReplicaPlacer(random).place(brokers, added, replicationFactor, existing, start));
    }

    /** The live brokers, in node id order. */
    public static List<BrokerInfo> liveBrokers(MetadataImage image) {
        List<BrokerInfo> brokers = new ArrayList<>(image.brokers());
        brokers.sort(Comparator.comparingInt(BrokerInfo::nodeId));
        return brokers;
    }

    private static void checkReplicationFactor(int replicationFactor, int brokers) {
        if (replicationFactor <= 0) {
            throw new ApiException(Errors.INVALID_REPLICATION_FACTOR,
                    "Replication factor must be larger than 0, or -1 to use the default value.");
        }
        if (replicationFactor > brokers) {
            throw new ApiException(Errors.INVALID_REPLICATION_FACTOR, "Unable to replicate the partition "
                    + replicationFactor + " time(s): The target replication factor of " + replicationFactor
                    + " cannot be reached because only " + brokers + " broker(s) are registered.");
        }
    }

    /** Kafka's checks of one manual replica list, in its order and words. */
    public static void checkAssignment(List<Integer> replicas, List<BrokerInfo> brokers) {
        if (replicas.isEmpty()) {
            throw new ApiException(Errors.INVALID_REPLICA_ASSIGNMENT,
                    "The manual partition assignment includes an empty replica list.");
        }
        Set<Integer> live = new HashSet<>();
        for (BrokerInfo broker : brokers) {
            live.add(broker.nodeId());
        }
        List<Integer> sorted = new ArrayList<>(replicas);
        sorted.sort(null);
        Integer previous = null;
        for (Integer replica : sorted) {
            if (!live.contains(replica)) {
                throw new ApiException(Errors.INVALID_REPLICA_ASSIGNMENT, "The manual partition assignment includes broker "
                        + replica + ", but no such broker is registered.");
            }
            if (replica.equals(previous)) {
                throw new ApiException(Errors.INVALID_REPLICA_ASSIGNMENT, "The manual partition assignment includes the broker "
                        + previous + " more than once.");
            }
            previous = replica;
        }
    }
}

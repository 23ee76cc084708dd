package io.krill.controller.topic;

import io.krill.controller.metadata.BrokerInfo;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

/**
 * Places the replicas of new partitions on live brokers with Kafka's algorithm (AdminUtils): the first
 * replica of consecutive partitions goes round-robin over the brokers (so preferred leaders spread
 * evenly), the others follow at a shift that changes every full round. When any broker has a rack,
 * the broker list alternates racks and each partition's replicas go to distinct racks while there
 * are racks left (a broker without a rack counts as a rack of its own, as in KRaft).
 *
 * <p>Not thread-safe (the random source); the store uses one per call.
 */
final class ReplicaPlacer {
    private final Random random;

    ReplicaPlacer(Random random) {
        this.random = random;
    }

    /**
     * Replica lists for partitions {@code firstPartition .. firstPartition + count - 1}.
     *
     * @param startIndex where in the (rack-alternated) broker list the first replica of partition 0
     *                   falls, or -1 for a random start
     */
    List<List<Integer>> place(List<BrokerInfo> brokers, int count, int replicationFactor, int firstPartition,
                              int startIndex) {
        if (replicationFactor > brokers.size()) {
            throw new IllegalArgumentException("replication factor " + replicationFactor + " > " + brokers.size()
                    + " brokers");
        }
        boolean rackAware = brokers.stream().anyMatch(b -> b.rack() != null);
        List<Integer> arranged = rackAware ? rackAlternated(brokers) : sortedIds(brokers);
        Map<Integer, String> racks = new java.util.HashMap<>();
        for (BrokerInfo broker : brokers) {
            racks.put(broker.nodeId(), rackOf(broker));
        }
        int numBrokers = arranged.size();
        int numRacks = (int) racks.values().stream().distinct().count();
        int start = startIndex >= 0 ? startIndex : random.nextInt(numBrokers);
        int shift = startIndex >= 0 ? startIndex : random.nextInt(numBrokers);
        List<List<Integer>> result = new ArrayList<>(count);
        for (int partition = firstPartition; partition < firstPartition + count; partition++) {
            if (partition > 0 && partition % numBrokers == 0) {
                shift++;
            }
            int first = (partition + start) % numBrokers;
            List<Integer> replicas = new ArrayList<>(replicationFactor);
            replicas.add(arranged.get(first));
            if (rackAware) {
                Set<String> usedRacks = new HashSet<>();
                usedRacks.add(racks.get(arranged.get(first)));
                int k = 0;
                while (replicas.size() < replicationFactor) {
                    int broker = arranged.get(replicaIndex(first, shift * numRacks, k++, numBrokers));
                    String rack = racks.get(broker);
                    boolean rackOk = !usedRacks.contains(rack) || usedRacks.size() == numRacks;
                    if (rackOk && !replicas.contains(broker)) {
                        replicas.add(broker);
                        usedRacks.add(rack);
                    }
                }
            } else {
                for (int j = 0; j < replicationFactor - 1; j++) {
                    replicas.add(arranged.get(replicaIndex(first, shift, j, numBrokers)));
                }
            }
            result.add(List.copyOf(replicas));
        }
        return result;
    }

    /** The index in the broker list of the first replica of existing partition 0, for growing a topic. */
    static int startIndexOf(List<BrokerInfo> brokers, int firstReplicaOfPartitionZero) {
        boolean rackAware = brokers.stream().anyMatch(b -> b.rack() != null);
        List<Integer> arranged = rackAware ? rackAlternated(brokers) : sortedIds(brokers);
        for (int i = 0; i < arranged.size(); i++) {
            if (arranged.get(i) >= firstReplicaOfPartitionZero) {
                return i;
            }
        }
        return 0;
    }

    private static int replicaIndex(int firstReplicaIndex, int secondReplicaShift, int replicaIndex, int numBrokers) {
        int shift = 1 + (secondReplicaShift + replicaIndex) % (numBrokers - 1);
        return (firstReplicaIndex + shift) % numBrokers;
    }

    private static List<Integer> sortedIds(List<BrokerInfo> brokers) {
        return brokers.stream().map(BrokerInfo::nodeId).sorted().toList();
    }

    /** Brokers ordered so that consecutive ones are on different racks while possible. */
    private static List<Integer> rackAlternated(List<BrokerInfo> brokers) {
        Map<String, List<Integer>> byRack = new TreeMap<>();
        for (BrokerInfo broker : brokers) {
            byRack.computeIfAbsent(rackOf(broker), r -> new ArrayList<>()).add(broker.nodeId());
        }
        List<Iterator<Integer>> iterators = new ArrayList<>();
        for (List<Integer> ids : byRack.values()) {
            ids.sort(Comparator.naturalOrder());
            iterators.add(ids.iterator());
        }
        List<Integer> result = new ArrayList<>(brokers.size());
        for (int rack = 0; result.size() < brokers.size(); rack = (rack + 1) % iterators.size()) {
            if (iterators.get(rack).hasNext()) {
                result.add(iterators.get(rack).next());
            }
        }
        return result;
    }

    private static String rackOf(BrokerInfo broker) {
        return broker.rack() == null ? "\u0000no-rack-" + broker.nodeId() : broker.rack();
    }
}

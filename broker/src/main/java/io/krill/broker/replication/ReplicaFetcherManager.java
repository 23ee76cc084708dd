package io.krill.broker.replication;

import io.krill.broker.config.BrokerConfig;
import io.krill.broker.partition.Partition;
import io.krill.broker.partition.ReplicaFollowing;
import io.krill.broker.security.InterBrokerConnector;
import io.krill.controller.metadata.MetadataStore;
import io.krill.log.TopicPartition;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * The replica fetchers of this broker: {@code num.replica.fetchers} threads per leader broker, each
 * partition on the one its hash picks, so a leader's partitions share a few connections. Follows the
 * metadata through {@link ReplicaFollowing}: a partition moves to another fetcher when its leader or
 * leader epoch changes (starting again with truncation), and a fetcher left with nothing stops.
 *
 * <p>Thread-safety: all methods are synchronized (the metadata thread calls them; {@link #close} comes
 * from the broker's shutdown).
 */
public final class ReplicaFetcherManager implements ReplicaFollowing, AutoCloseable {

    private record FetcherKey(int sourceBroker, int index) {
    }

    private record Assignment(FetcherKey fetcher, int leaderEpoch) {
    }

    private final ReplicationContext context;
    private final int fetchersPerBroker;
    private final Map<FetcherKey, ReplicaFetcher> fetchers = new HashMap<>();
    private final Map<TopicPartition, Assignment> assigned = new HashMap<>();
    private boolean closed;

    public ReplicaFetcherManager(BrokerConfig config, MetadataStore metadata) {
        this(config, metadata, InterBrokerConnector.plaintext());
    }

    /** @param connector opens the fetchers' connections on the inter-broker listener */
    public ReplicaFetcherManager(BrokerConfig config, MetadataStore metadata, InterBrokerConnector connector) {
        this.context = ReplicationContext.of(config, metadata, connector);
        this.fetchersPerBroker = Math.max(1, config.replication().numReplicaFetchers());
    }

    @Override
    public synchronized void stopFollowing(Collection<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
            Assignment a = assigned.remove(tp);
            if (a != null) {
                fetchers.get(a.fetcher()).remove(tp);
            }
        }
        stopIdleFetchers();
    }

    @Override
    public synchronized void follow(Collection<Partition> followed) {
        if (closed) {
            return;
        }
        Map<TopicPartition, Partition> wanted = new HashMap<>();
        for (Partition p : followed) {
            wanted.put(p.topicPartition(), p);
        }
        for (Iterator<Map.Entry<TopicPartition, Assignment>> it = assigned.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<TopicPartition, Assignment> e = it.next();
            Partition p = wanted.get(e.getKey());
            if (p == null || p.state().leader() != e.getValue().fetcher().sourceBroker()
                    || p.leaderEpoch() != e.getValue().leaderEpoch()) {
                fetchers.get(e.getValue().fetcher()).remove(e.getKey());
                it.remove();
            }
        }
        for (Partition p : wanted.values()) {
            if (assigned.containsKey(p.topicPartition())) {
                continue;
            }
            FetcherKey key = new FetcherKey(p.state().leader(),
                    Math.floorMod(p.topicPartition().hashCode(), fetchersPerBroker));
            ReplicaFetcher fetcher = fetchers.computeIfAbsent(key, k -> {
                ReplicaFetcher created = new ReplicaFetcher(k.sourceBroker(), k.index(), context);
                created.start();
                return created;
            });
            fetcher.add(p, p.leaderEpoch());
            assigned.put(p.topicPartition(), new Assignment(key, p.leaderEpoch()));
        }
        stopIdleFetchers();
    }

    private void stopIdleFetchers() {
        for (Iterator<ReplicaFetcher> it = fetchers.values().iterator(); it.hasNext(); ) {
            ReplicaFetcher fetcher = it.next();
            if (fetcher.isEmpty()) {
                fetcher.shutdown();
                it.remove();
            }
        }
    }

    /** How many partitions the fetchers follow (for metrics and tests). */
    public synchronized int followedPartitions() {
        return assigned.size();
    }

    @Override
    public synchronized void close() {
        closed = true;
        for (ReplicaFetcher fetcher : new ArrayList<>(fetchers.values())) {
            fetcher.shutdown();
        }
        fetchers.clear();
        assigned.clear();
    }
}

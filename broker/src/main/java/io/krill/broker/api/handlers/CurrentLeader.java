package io.krill.broker.api.handlers;

import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.PartitionState;

/**
 * KIP-951: what a client told NOT_LEADER_OR_FOLLOWER (Produce v10+, Fetch v16+, which also tells it for
 * FENCED_LEADER_EPOCH) learns of the partition's leader, so that it can send to the new leader without
 * a Metadata round trip first: the leader's id and epoch, and its endpoint on the listener the request
 * came in by. An unknown partition is leader -1, epoch -1; a leader that is not live or has no endpoint on
 * that listener is named without an endpoint, as Kafka does.
 *
 * @param endpoint null when the client is not told where the leader is
 */
record CurrentLeader(int leaderId, int leaderEpoch, BrokerInfo broker, BrokerInfo.Endpoint endpoint) {
    private static final CurrentLeader UNKNOWN = new CurrentLeader(-1, -1, null, null);

    /** @param state the partition's state as this broker sees it, or null if it does not know the partition */
    static CurrentLeader of(PartitionState state, MetadataImage image, String listenerName) {
        if (state == null) {
            return UNKNOWN;
        }
        int leader = state.leader();
        BrokerInfo broker = leader < 0 ? null : image.broker(leader);
        BrokerInfo.Endpoint endpoint = broker == null ? null : broker.endpoint(listenerName);
        return new CurrentLeader(leader, state.leaderEpoch(), broker, endpoint);
    }

    /**
     * The leader of partition {@code partition} of {@code topic}: this broker's replica's view when it hosts
     * one (it may know a newer epoch than the image), else the metadata image's.
     */
    static CurrentLeader of(io.krill.broker.partition.PartitionManager partitions, MetadataImage image,
                            io.krill.controller.metadata.TopicImage topic, int partition, String listenerName) {
        io.krill.broker.partition.Partition hosted = partitions.partition(topic.name(), partition);
        return of(hosted != null ? hosted.state() : topic.partition(partition), image, listenerName);
    }
}

/**
 * The group coordinator: consumer groups (classic protocol and KIP-848 consumer protocol) and their
 * committed offsets, and share groups (KIP-932).
 *
 * <p>{@link io.krill.broker.group.GroupCoordinator} is the facade the API handlers in
 * {@code io.krill.broker.api.handlers} call (they translate wire versions). Its state, in
 * {@link io.krill.broker.group.GroupContext}, is, for each partition of {@code __consumer_offsets} this
 * broker leads, a {@link io.krill.broker.group.GroupShard} with the groups that hash to it
 * ({@code abs(groupId.hashCode()) % partitions}): {@link io.krill.broker.group.ClassicGroup} (state
 * machine Empty / PreparingRebalance / CompletingRebalance / Stable / Dead, generation, selected
 * protocol, leader, members, offsets), {@link io.krill.broker.group.ClassicMember}, and for consumer
 * groups the attached {@link io.krill.broker.group.ConsumerGroup}, for share groups the attached
 * {@link io.krill.broker.group.ShareGroup} (one monitor per group id whatever its type). The work is
 * split by concern:
 * {@link io.krill.broker.group.GroupPartitionLoader} (leadership, load, unload),
 * {@link io.krill.broker.group.ClassicGroupProtocol} and {@link io.krill.broker.group.ClassicRebalancer}
 * (classic protocol), {@link io.krill.broker.group.ConsumerGroupProtocol} (KIP-848),
 * {@link io.krill.broker.group.OffsetStore} (offsets), {@link io.krill.broker.group.ShareGroupProtocol},
 * {@link io.krill.broker.group.SimpleShareAssignor}, {@link io.krill.broker.group.ShareGroupDescriber} and
 * {@link io.krill.broker.group.ShareGroupOffsets} (share groups; their share-partitions' state is the share
 * coordinator's, reached through {@link io.krill.broker.share.state.ShareStatePersister}) and
 * {@link io.krill.broker.group.GroupAdmin} (describe, list, delete).
 *
 * <p>Durability: group metadata and offsets are records in the group's partition, in the layout of
 * {@link io.krill.broker.group.GroupRecords} (Kafka's records for offsets and classic groups), appended through
 * {@link io.krill.broker.coordinator.CoordinatorLog} ({@link io.krill.broker.coordinator.PartitionCoordinatorLog}:
 * the partition's leader append with acks=all semantics). A partition is replayed when this broker
 * becomes its leader (at startup, or when {@code __consumer_offsets} is created on the first
 * FindCoordinator); requests for its groups get COORDINATOR_LOAD_IN_PROGRESS until then.
 *
 * <p>Threads: requests run on the request threads and never wait; a JoinGroup or SyncGroup that must
 * wait leaves a callback with its member. Deadlines (initial rebalance delay, rebalance timeout,
 * session expiry, pending sync, offsets retention) and partition loads run on the one
 * {@code group-coordinator} thread of {@link io.krill.broker.coordinator.CoordinatorTimer}. Each group is
 * guarded by its own monitor; no code holds two group locks.
 */
package io.krill.broker.group;

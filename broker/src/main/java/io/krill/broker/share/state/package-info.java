/**
 * The durable state of share-partitions (KIP-932): the share coordinator, which keeps each share-partition's
 * start offset and in-flight batches as records of {@code __share_group_state} on the coordinator runtime
 * ({@code io.krill.broker.coordinator}), and the {@link io.krill.broker.share.state.ShareStatePersister}
 * through which partition leaders and the group coordinator reach it.
 */
package io.krill.broker.share.state;

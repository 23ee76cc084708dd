/**
 * Dead-letter queues of share groups (KIP-1191, {@code share.version} 2): records a share-partition
 * archives because a consumer rejected them or their delivery count reached the limit are written, one
 * record per offset, to the group's dead-letter topic ({@code errors.deadletterqueue.topic.name}), with
 * headers that say where they came from and why. The share-partition holds such records in the ARCHIVING
 * state, durable at the share coordinator, until the write is done or given up, so that a leader change
 * resumes it (at least once).
 */
package io.krill.broker.share.dlq;

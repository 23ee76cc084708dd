package io.krill.broker.share.dlq;

import java.util.concurrent.CompletableFuture;

/**
 * Where share-partitions send the records they archive for a consumer's REJECT or the delivery limit.
 *
 * <p>Thread-safety: implementations are thread-safe; {@link #send} never blocks its caller.
 */
public interface DeadLetterQueue {
    /** No dead-letter queue: every group archives without one. */
    DeadLetterQueue NONE = new DeadLetterQueue() {
        @Override
        public boolean enabled(String groupId) {
            return false;
        }

        @Override
        public CompletableFuture<Void> send(DeadLetters letters) {
            return CompletableFuture.completedFuture(null);
        }
    };

    /**
     * Whether {@code groupId}'s archived records go to a dead-letter topic now: the cluster's
     * {@code share.version} is 2 or more and the group has {@code errors.deadletterqueue.topic.name}.
     */
    boolean enabled(String groupId);

    /**
     * Writes one dead-letter record per offset of {@code letters} to the group's dead-letter topic, with
     * acks=all. The future completes normally once they are written, and exceptionally when the write was
     * given up (no valid topic, retries exhausted); either way the records are then archived.
     */
    CompletableFuture<Void> send(DeadLetters letters);
}

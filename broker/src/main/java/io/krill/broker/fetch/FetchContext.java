package io.krill.broker.fetch;

import io.krill.wire.error.Errors;
import io.krill.wire.message.FetchResponse;
import io.krill.wire.protocol.Records;
import java.util.BitSet;
import java.util.List;
import java.util.function.Consumer;

/**
 * What one Fetch request reads and how its answer is made, as its session metadata says (KIP-227):
 * sessionless, a new session, an incremental fetch in a session, or a refusal of the whole request.
 * {@link FetchSessionCache#contextFor} makes one per request.
 *
 * <p>Thread-safety: immutable; the session it may refer to guards itself.
 */
public sealed interface FetchContext {
    /** The partitions to read now, in the order their answers are to be built. */
    List<FetchTarget> targets();

    /**
     * The response to send, from {@code read}, the answer for {@code targets} (as {@link #targets()} gave
     * them to the read) in order: with the session's id and, in an incremental fetch, only the partitions
     * the client must hear about; the records of partitions left out go to {@code dropped}. {@code more}
     * marks the targets with more to read than the answer holds. Called once, when the fetch is answered.
     */
    FetchResponse answer(List<FetchTarget> targets, FetchResponse read, BitSet more, Consumer<Records> dropped);

    /** The empty response of a fetch throttled by a quota (the session learns nothing from it). */
    FetchResponse throttled();

    /** A whole-request error (an unknown session, a wrong epoch): answered at once, no partition read. */
    default Errors error() {
        return Errors.NONE;
    }

    /**
     * Whether the fetch waits in its session rather than on its partitions: a consumer's incremental fetch,
     * which reads only changed partitions and may read none; {@link #park} it to be woken by any change.
     */
    default boolean waitsInSession() {
        return false;
    }

    /** Whether some partition of the session may have news now (a parked fetch must look again). */
    default boolean hasChanges() {
        return false;
    }

    default void park(FetchWaiter waiter) {
    }

    default void unpark(FetchWaiter waiter) {
    }

    /** Epoch -1 (or a version before sessions): every partition asked, every one answered, no session. */
    record Sessionless(List<FetchTarget> targets) implements FetchContext {
        @Override
        public FetchResponse answer(List<FetchTarget> read, FetchResponse response, BitSet more,
                                    Consumer<Records> dropped) {
            return response.setSessionId(0);
        }

        @Override
        public FetchResponse throttled() {
            return new FetchResponse();
        }
    }

    /** Epoch 0: a full fetch that opens a session, if the cache makes room for it, as it is answered. */
    record NewSession(FetchSessionCache cache, List<FetchTarget> targets, boolean follower, boolean usesTopicIds)
            implements FetchContext {
        @Override
        public FetchResponse answer(List<FetchTarget> read, FetchResponse response, BitSet more,
                                    Consumer<Records> dropped) {
            return response.setSessionId(cache.create(follower, usesTopicIds, read, response, more));
        }

        @Override
        public FetchResponse throttled() {
            return new FetchResponse();
        }
    }

    /**
     * Epoch > 0: the session's partitions after this request's changes (a consumer's: those with possible
     * news); the answer leaves out the idle ones.
     */
    final class Incremental implements FetchContext {
        private final FetchSession session;

        Incremental(FetchSession session) {
            this.session = session;
        }

        @Override
        public List<FetchTarget> targets() {
            return session.targets();
        }

        @Override
        public FetchResponse answer(List<FetchTarget> read, FetchResponse response, BitSet more,
                                    Consumer<Records> dropped) {
            return session.answer(read, response, dropped);
        }

        @Override
        public FetchResponse throttled() {
            return new FetchResponse().setSessionId(session.id());
        }

        @Override
        public boolean waitsInSession() {
            return session.tracksChanges();
        }

        @Override
        public boolean hasChanges() {
            return session.hasChanges();
        }

        @Override
        public void park(FetchWaiter waiter) {
            session.park(waiter);
        }

        @Override
        public void unpark(FetchWaiter waiter) {
            session.unpark(waiter);
        }

        @Override
        public String toString() {
            return "Incremental[" + session + "]";
        }
    }

    /** The request cannot be served in the session it names: the error, no partitions. */
    record Refused(Errors error) implements FetchContext {
        @Override
        public List<FetchTarget> targets() {
            return List.of();
        }

        @Override
        public FetchResponse answer(List<FetchTarget> read, FetchResponse response, BitSet more,
                                    Consumer<Records> dropped) {
            return throttled();
        }

        @Override
        public FetchResponse throttled() {
            return new FetchResponse().setErrorCode(error.code()).setSessionId(0);
        }
    }
}

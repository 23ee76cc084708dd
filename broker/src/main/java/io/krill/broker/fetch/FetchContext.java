package io.krill.broker.fetch;

import io.krill.wire.error.Errors;
import io.krill.wire.message.FetchResponse;
import io.krill.wire.protocol.Records;
import java.util.ArrayList;
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
    /** The partitions to read, in the order their answers are to be built. */
    List<FetchTarget> targets();

    /**
     * The response to send, from {@code read}, the whole answer for {@link #targets()} in order: with
     * the session's id and, in an incremental fetch, only the partitions the client must hear about;
     * the records of partitions left out go to {@code dropped}. Called once, when the fetch is answered.
     */
    FetchResponse answer(FetchResponse read, Consumer<Records> dropped);

    /** The empty response of a fetch throttled by a quota (the session learns nothing from it). */
    FetchResponse throttled();

    /** A whole-request error (an unknown session, a wrong epoch): answered at once, no partition read. */
    default Errors error() {
        return Errors.NONE;
    }

    /** Epoch -1 (or a version before sessions): every partition asked, every one answered, no session. */
    record Sessionless(List<FetchTarget> targets) implements FetchContext {
        @Override
        public FetchResponse answer(FetchResponse read, Consumer<Records> dropped) {
            return read.setSessionId(0);
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
        public FetchResponse answer(FetchResponse read, Consumer<Records> dropped) {
            return read.setSessionId(cache.create(follower, usesTopicIds, targets, read));
        }

        @Override
        public FetchResponse throttled() {
            return new FetchResponse();
        }
    }

    /** Epoch > 0: the session's partitions, after this request's changes; the answer leaves out the idle ones. */
    final class Incremental implements FetchContext {
        private final FetchSession session;
        private final List<SessionPartition> partitions;
        private final List<FetchTarget> targets;

        Incremental(FetchSession session, List<SessionPartition> partitions) {
            this.session = session;
            this.partitions = partitions;
            List<FetchTarget> list = new ArrayList<>(partitions.size());
            for (SessionPartition partition : partitions) {
                list.add(partition.target());
            }
            this.targets = list;
        }

        @Override
        public List<FetchTarget> targets() {
            return targets;
        }

        @Override
        public FetchResponse answer(FetchResponse read, Consumer<Records> dropped) {
            return session.answer(partitions, read, dropped);
        }

        @Override
        public FetchResponse throttled() {
            return new FetchResponse().setSessionId(session.id());
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
        public FetchResponse answer(FetchResponse read, Consumer<Records> dropped) {
            return new FetchResponse().setErrorCode(error.code()).setSessionId(0);
        }

        @Override
        public FetchResponse throttled() {
            return answer(null, r -> { });
        }
    }
}

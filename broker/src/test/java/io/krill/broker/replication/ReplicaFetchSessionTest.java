package io.krill.broker.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.krill.log.TopicPartition;
import io.krill.wire.error.Errors;
import io.krill.wire.message.FetchRequest;
import io.krill.wire.message.FetchResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The follower's side of a fetch session: what each request names, and how the leader's answers move it. */
class ReplicaFetchSessionTest {
    private static final UUID ID = UUID.randomUUID();
    private static final TopicPartition P0 = new TopicPartition("t", 0);
    private static final TopicPartition P1 = new TopicPartition("t", 1);

    private final ReplicaFetchSession session = new ReplicaFetchSession();

    private FetchRequest round(long p0, Long p1) {
        session.begin();
        session.add(P0, ID, 3, p0, 0, 1024);
        if (p1 != null) {
            session.add(P1, ID, 3, p1, 0, 1024);
        }
        return session.request(new FetchRequest());
    }

    private static List<String> named(FetchRequest request) {
        List<String> out = new ArrayList<>();
        request.topics().forEach(t -> t.partitions().forEach(p -> out.add(t.topic() + "-" + p.partition() + "@"
                + p.fetchOffset())));
        return out;
    }

    private static List<Integer> forgotten(FetchRequest request) {
        List<Integer> out = new ArrayList<>();
        request.forgottenTopicsData().forEach(t -> out.addAll(t.partitions()));
        return out;
    }

    @Test
    void onlyChangedPartitionsAreNamedOnceASessionIsOpen() {
        FetchRequest first = round(10, 20L);
        assertEquals(List.of(0, 0), List.of(first.sessionId(), first.sessionEpoch()), "full, opening a session");
        assertEquals(List.of("t-0@10", "t-1@20"), named(first));
        assertEquals(Errors.NONE, session.answered(new FetchResponse().setSessionId(42)));

        FetchRequest idle = round(10, 20L);
        assertEquals(List.of(42, 1), List.of(idle.sessionId(), idle.sessionEpoch()));
        assertEquals(List.of(), named(idle), "nothing moved");
        session.answered(new FetchResponse().setSessionId(42));

        FetchRequest moved = round(15, null);
        assertEquals(2, moved.sessionEpoch());
        assertEquals(List.of("t-0@15"), named(moved));
        assertEquals(List.of(1), forgotten(moved), "partition 1 is no longer fetched");
        assertNull(session.sent(P1));
        assertEquals(15, session.sent(P0).fetchOffset);
    }

    @Test
    void aFailureOrALostSessionStartsOverWithAFullRequest() {
        round(10, 20L);
        session.answered(new FetchResponse().setSessionId(42));
        round(10, 20L);
        session.failed();
        FetchRequest after = round(10, 20L);
        assertEquals(List.of(42, 0), List.of(after.sessionId(), after.sessionEpoch()),
                "full, naming the old session so that the leader closes it");
        assertEquals(2, named(after).size());
        session.answered(new FetchResponse().setSessionId(43));

        round(10, 20L);
        assertEquals(Errors.FETCH_SESSION_ID_NOT_FOUND, session.answered(new FetchResponse()
                .setErrorCode(Errors.FETCH_SESSION_ID_NOT_FOUND.code())));
        FetchRequest fresh = round(10, 20L);
        assertEquals(List.of(0, 0), List.of(fresh.sessionId(), fresh.sessionEpoch()));
        assertEquals(2, named(fresh).size());

        session.answered(new FetchResponse().setSessionId(0));
        FetchRequest refused = round(10, 20L);
        assertEquals(List.of(0, 0), List.of(refused.sessionId(), refused.sessionEpoch()),
                "a leader that opened no session gets full requests");
    }
}

package io.krill.wire.error;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.krill.wire.record.CorruptRecordException;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.errors.RetriableException;
import org.junit.jupiter.api.Test;

/** Krill's error codes are kafka-clients' error codes: same set, names, retriability and default messages. */
class ErrorsTest {

    @Test
    void sameCodesNamesRetriabilityAndMessagesAsKafka() {
        Map<Short, org.apache.kafka.common.protocol.Errors> kafka = new TreeMap<>();
        for (org.apache.kafka.common.protocol.Errors error : org.apache.kafka.common.protocol.Errors.values()) {
            kafka.put(error.code(), error);
        }
        Map<Short, Errors> krill = new TreeMap<>();
        for (Errors error : Errors.values()) {
            krill.put(error.code(), error);
        }
        assertEquals(kafka.keySet(), krill.keySet(), "code set");
        for (Map.Entry<Short, org.apache.kafka.common.protocol.Errors> entry : kafka.entrySet()) {
            org.apache.kafka.common.protocol.Errors expected = entry.getValue();
            Errors actual = krill.get(entry.getKey());
            assertEquals(expected.name(), actual.name(), "name of " + entry.getKey());
            assertEquals(expected.exception() instanceof RetriableException, actual.isRetriable(),
                    "retriable " + expected);
            assertEquals(expected.message(), actual.message(), "message of " + expected);
            assertSame(actual, Errors.forCode(entry.getKey()));
        }
        System.out.printf("errors: %d codes match kafka-clients (%d..%d)%n", krill.size(),
                ((TreeMap<Short, Errors>) krill).firstKey(), ((TreeMap<Short, Errors>) krill).lastKey());
    }

    @Test
    void unknownCodesAreUnknownServerError() {
        assertSame(Errors.UNKNOWN_SERVER_ERROR, Errors.forCode((short) 10_000));
        assertSame(Errors.UNKNOWN_SERVER_ERROR, Errors.forCode((short) -2));
        assertSame(Errors.UNKNOWN_SERVER_ERROR, Errors.forCode(Short.MIN_VALUE));
        assertSame(Errors.NONE, Errors.forCode((short) 0));
    }

    @Test
    void exceptionsMapToTheirCodes() {
        assertSame(Errors.CORRUPT_MESSAGE, Errors.forException(new CorruptRecordException("bad crc")));
        assertSame(Errors.NOT_LEADER_OR_FOLLOWER, Errors.forException(Errors.NOT_LEADER_OR_FOLLOWER.exception()));
        assertEquals("custom", Errors.INVALID_RECORD.exception("custom").getMessage());
        assertSame(Errors.UNKNOWN_SERVER_ERROR, Errors.forException(new IllegalStateException()));
        assertSame(Errors.NONE, Errors.forException(null));
        assertNotNull(Errors.CORRUPT_MESSAGE.exception().getMessage());
        assertThrows(IllegalArgumentException.class, () -> new ApiException(Errors.NONE, "no"));
    }
}

package io.krill.broker.console;

import com.fasterxml.jackson.core.JsonGenerator;
import io.krill.wire.error.Errors;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * {@code /console/api/history/topics} and {@code /history/groups/<id>}: the {@link ConsoleHistory}'s
 * rings as docs/console.md draws them, only topics and groups the principal may DESCRIBE.
 *
 * <p>Thread-safety: stateless beyond the thread-safe history.
 */
final class HistoryApi {
    private final ConsoleHistory history;

    HistoryApi(ConsoleHistory history) {
        this.history = history;
    }

    byte[] topics(ConsoleAccess access) {
        HistoryRing.Snapshot snapshot = history.topics().snapshot(access::describeTopic);
        return Json.bytes(json -> {
            json.writeStartObject();
            json.writeNumberField("intervalMs", history.intervalMs());
            times(json, snapshot.timestamps());
            json.writeObjectFieldStart("series");
            for (Map.Entry<String, List<Double>> e : snapshot.series().entrySet()) {
                values(json, e.getKey(), e.getValue());
            }
            json.writeEndObject();
            json.writeEndObject();
        });
    }

    byte[] group(ConsoleAccess access, String groupId) {
        if (!access.describeGroup(groupId)) {
            throw ConsoleException.forbidden(Errors.GROUP_AUTHORIZATION_FAILED, "not authorized to describe group "
                    + groupId);
        }
        HistoryRing.Snapshot[] both = history.groupSnapshots(groupId, access::describeTopic);
        HistoryRing.Snapshot totals = both[0];
        HistoryRing.Snapshot perTopic = both[1];
        String prefix = groupId + ConsoleHistory.SEPARATOR;
        List<Double> total = totals.series().get(groupId);
        return Json.bytes(json -> {
            json.writeStartObject();
            json.writeNumberField("intervalMs", history.intervalMs());
            times(json, totals.timestamps());
            int samples = totals.timestamps().size();
            if (total == null) {
                values(json, "total", java.util.Collections.nCopies(samples, null));
            } else {
                values(json, "total", total);
            }
            json.writeObjectFieldStart("series");
            for (Map.Entry<String, List<Double>> e : perTopic.series().entrySet()) {
                values(json, e.getKey().substring(prefix.length()), e.getValue());
            }
            json.writeEndObject();
            json.writeEndObject();
        });
    }

    private static void times(JsonGenerator json, List<Long> timestamps) throws IOException {
        json.writeArrayFieldStart("timestamps");
        for (long t : timestamps) {
            json.writeNumber(t);
        }
        json.writeEndArray();
    }

    private static void values(JsonGenerator json, String field, List<Double> values) throws IOException {
        json.writeArrayFieldStart(field);
        for (Double v : values) {
            if (v == null) {
                json.writeNull();
            } else if (v == Math.rint(v) && Math.abs(v) < 1e15) {
                json.writeNumber(v.longValue());
            } else {
                json.writeNumber(v);
            }
        }
        json.writeEndArray();
    }
}

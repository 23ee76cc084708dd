package io.krill.broker.console;

import java.util.Map;

/**
 * The routes of the JSON API under {@code /console/api/} (docs/console.md): parses the path and the
 * parameters (400 for bad ones) and hands each to the part that answers it.
 *
 * <p>Thread-safety: thread-safe; stateless beyond its thread-safe parts.
 */
final class ConsoleApi {
    private final TopicsApi topics;
    private final GroupsApi groups;
    private final TransactionsApi transactions;
    private final HistoryApi history;

    ConsoleApi(TopicsApi topics, GroupsApi groups, TransactionsApi transactions, HistoryApi history) {
        this.topics = topics;
        this.groups = groups;
        this.transactions = transactions;
        this.history = history;
    }

    /**
     * The answer to {@code path} (the raw path after {@code /console/api/}).
     *
     * @throws ConsoleException for anything but 200
     */
    byte[] answer(String path, Map<String, String> params, ConsoleAccess access) {
        if (path.equals("cluster")) {
            return topics.cluster(access);
        }
        if (path.equals("me")) {
            return me(access);
        }
        if (path.equals("topics")) {
            return topics.topics(access);
        }
        if (path.startsWith("topics/")) {
            String rest = path.substring("topics/".length());
            int slash = rest.indexOf('/');
            if (slash < 0) {
                return topics.topic(access, name(rest));
            }
            if (rest.substring(slash + 1).equals("records")) {
                return topics.records(access, recordQuery(name(rest.substring(0, slash)), params));
            }
        }
        if (path.equals("groups")) {
            return groups.list(access);
        }
        if (path.startsWith("groups/")) {
            return groups.group(access, name(path.substring("groups/".length())));
        }
        if (path.equals("transactions")) {
            return transactions.list(access);
        }
        if (path.equals("history/topics")) {
            return history.topics(access);
        }
        if (path.startsWith("history/groups/")) {
            return history.group(access, name(path.substring("history/groups/".length())));
        }
        throw new ConsoleException(404, "NOT_FOUND", "no such API: " + path);
    }

    private static byte[] me(ConsoleAccess access) {
        return Json.bytes(json -> {
            json.writeStartObject();
            json.writeStringField("principal", access.principal().toString());
            json.writeBooleanField("authenticated", access.authenticated());
            json.writeEndObject();
        });
    }

    /** A percent-decoded path segment naming a topic, group or transactional id. */
    private static String name(String raw) {
        String name = ConsoleHandler.decode(raw);
        if (name.isEmpty() || name.length() > 32_767) {
            throw ConsoleException.badRequest("empty or overlong name");
        }
        return name;
    }

    static RecordBrowser.Query recordQuery(String topic, Map<String, String> params) {
        Integer partition = intParam(params, "partition");
        if (partition == null || partition < 0) {
            throw ConsoleException.badRequest("partition (0 or more) is required");
        }
        Long offset = longParam(params, "offset");
        Long timestamp = longParam(params, "timestamp");
        if (offset != null && timestamp != null) {
            throw ConsoleException.badRequest("give offset or timestamp, not both");
        }
        if (offset != null && offset < 0) {
            throw ConsoleException.badRequest("offset must be 0 or more");
        }
        if (timestamp != null && timestamp < 0) {
            throw ConsoleException.badRequest("timestamp must be 0 or more (epoch milliseconds)");
        }
        Integer limit = intParam(params, "limit");
        if (limit == null) {
            limit = 50;
        }
        if (limit < 1 || limit > RecordBrowser.MAX_LIMIT) {
            throw ConsoleException.badRequest("limit must be 1 to " + RecordBrowser.MAX_LIMIT);
        }
        String isolation = params.getOrDefault("isolation", "read_uncommitted");
        boolean readCommitted;
        if (isolation.equals("read_committed")) {
            readCommitted = true;
        } else if (isolation.equals("read_uncommitted")) {
            readCommitted = false;
        } else {
            throw ConsoleException.badRequest("isolation must be read_committed or read_uncommitted");
        }
        return new RecordBrowser.Query(topic, partition, offset, timestamp, limit, readCommitted);
    }

    private static Integer intParam(Map<String, String> params, String name) {
        Long value = longParam(params, name);
        if (value == null) {
            return null;
        }
        if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
            throw ConsoleException.badRequest(name + " out of range");
        }
        return value.intValue();
    }

    private static Long longParam(Map<String, String> params, String name) {
        String value = params.get(name);
        if (value == null || value.isEmpty()) {
            return null;
        }
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw ConsoleException.badRequest(name + " is not a number: " + value);
        }
    }
}

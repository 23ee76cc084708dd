package io.krill.broker.console;

import java.util.Map;

/**
 * The routes of the JSON API under {@code /console/api/} (docs/console.md): parses the path and the
 * parameters (400 for bad ones) and hands each to the part that answers it: GETs to the views, POSTs and
 * DELETEs to the actions, which {@code krill.console.read.only} (the default) refuses with 403
 * {@code CONSOLE_READ_ONLY}.
 *
 * <p>Thread-safety: thread-safe; stateless beyond its thread-safe parts.
 */
final class ConsoleApi {
    private final TopicsApi topics;
    private final GroupsApi groups;
    private final TransactionsApi transactions;
    private final HistoryApi history;
    private final TopicActions topicActions;
    private final GroupActions groupActions;
    private final boolean readOnly;

    ConsoleApi(TopicsApi topics, GroupsApi groups, TransactionsApi transactions, HistoryApi history,
               TopicActions topicActions, GroupActions groupActions, boolean readOnly) {
        this.topics = topics;
        this.groups = groups;
        this.transactions = transactions;
        this.history = history;
        this.topicActions = topicActions;
        this.groupActions = groupActions;
        this.readOnly = readOnly;
    }

    boolean readOnly() {
        return readOnly;
    }

    /** 403 CONSOLE_READ_ONLY when the console takes no action; checked before a body is read. */
    void requireWritable() {
        if (readOnly) {
            throw new ConsoleException(403, "CONSOLE_READ_ONLY",
                    "the console is read-only (krill.console.read.only=true): it changes nothing");
        }
    }

    /**
     * The answer to an action: {@code method} POST or DELETE on {@code path} (the raw path after
     * {@code /console/api/}) with its JSON body.
     *
     * @throws ConsoleException for anything but 2xx, 403 CONSOLE_READ_ONLY when read-only
     */
    ConsoleActions.Result act(String method, String path, JsonBody body, ConsoleAccess access) {
        requireWritable();
        String[] parts = path.split("/", -1);
        boolean post = method.equals("POST");
        if (parts.length == 1 && parts[0].equals("topics") && post) {
            return topicActions.create(access, body);
        }
        if (parts.length >= 2 && parts[0].equals("topics")) {
            String topic = name(parts[1]);
            if (parts.length == 2 && !post) {
                return topicActions.delete(access, topic);
            }
            if (parts.length == 3 && post) {
                switch (parts[2]) {
                    case "partitions" -> {
                        return topicActions.addPartitions(access, topic, body);
                    }
                    case "configs" -> {
                        return topicActions.alterConfigs(access, topic, body);
                    }
                    case "delete-records" -> {
                        return topicActions.deleteRecords(access, topic, body);
                    }
                    default -> {
                    }
                }
            }
        }
        if (parts.length >= 2 && parts[0].equals("groups")) {
            String group = name(parts[1]);
            if (parts.length == 2 && !post) {
                return groupActions.deleteGroup(access, group);
            }
            if (parts.length == 4 && parts[2].equals("offsets") && post && parts[3].equals("reset")) {
                return groupActions.resetOffsets(access, group, body);
            }
            if (parts.length == 4 && parts[2].equals("offsets") && !post) {
                return groupActions.deleteOffsets(access, group, name(parts[3]));
            }
        }
        throw new ConsoleException(404, "NOT_FOUND", "no such action: " + method + " " + path);
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

    private byte[] me(ConsoleAccess access) {
        return Json.bytes(json -> {
            json.writeStartObject();
            json.writeStringField("principal", access.principal().toString());
            json.writeBooleanField("authenticated", access.authenticated());
            json.writeBooleanField("readOnly", readOnly);
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

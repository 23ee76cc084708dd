package io.krill.broker.console;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JSON object of an action's request body, read with Jackson's streaming parser into maps, lists,
 * strings, numbers and booleans (the broker has no object mapper), and typed accessors that answer 400
 * for a missing or mistyped field. The body's size is capped by the caller before it is read
 * ({@link #MAX_BYTES}); nesting is capped here.
 *
 * <p>Immutable once parsed.
 */
final class JsonBody {
    static final int MAX_BYTES = 64 * 1024;
    private static final int MAX_DEPTH = 8;
    private static final JsonFactory FACTORY = new JsonFactory();

    private final Map<String, Object> fields;

    private JsonBody(Map<String, Object> fields) {
        this.fields = fields;
    }

    static JsonBody empty() {
        return new JsonBody(Map.of());
    }

    /** The body's JSON object; an empty body is an empty object. */
    static JsonBody parse(byte[] body) {
        if (body.length > MAX_BYTES) {
            throw ConsoleException.badRequest("body longer than " + MAX_BYTES + " bytes");
        }
        if (body.length == 0) {
            return empty();
        }
        try (JsonParser parser = FACTORY.createParser(body)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw ConsoleException.badRequest("the body must be a JSON object");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> fields = (Map<String, Object>) value(parser, 0);
            if (parser.nextToken() != null) {
                throw ConsoleException.badRequest("text after the JSON object");
            }
            return new JsonBody(fields);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw ConsoleException.badRequest("bad JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw ConsoleException.badRequest("bad JSON: " + e.getMessage());
        }
    }

    private static Object value(JsonParser parser, int depth) throws IOException {
        if (depth > MAX_DEPTH) {
            throw ConsoleException.badRequest("JSON nested deeper than " + MAX_DEPTH);
        }
        JsonToken token = parser.currentToken();
        switch (token) {
            case START_OBJECT -> {
                Map<String, Object> map = new LinkedHashMap<>();
                while (parser.nextToken() == JsonToken.FIELD_NAME) {
                    String name = parser.currentName();
                    parser.nextToken();
                    if (map.put(name, value(parser, depth + 1)) != null) {
                        throw ConsoleException.badRequest("field " + name + " given twice");
                    }
                }
                return Collections.unmodifiableMap(map);
            }
            case START_ARRAY -> {
                List<Object> list = new ArrayList<>();
                while (parser.nextToken() != JsonToken.END_ARRAY) {
                    list.add(value(parser, depth + 1));
                }
                return Collections.unmodifiableList(list);
            }
            case VALUE_STRING -> {
                return parser.getText();
            }
            case VALUE_NUMBER_INT -> {
                return parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER ? (Object) Double.NaN
                        : (Object) parser.getLongValue();
            }
            case VALUE_NUMBER_FLOAT -> {
                return parser.getDoubleValue();
            }
            case VALUE_TRUE, VALUE_FALSE -> {
                return parser.getBooleanValue();
            }
            case VALUE_NULL -> {
                return null;
            }
            default -> throw ConsoleException.badRequest("unexpected JSON " + token);
        }
    }

    /** A required string. */
    String string(String name) {
        Object value = fields.get(name);
        if (!(value instanceof String text) || text.isEmpty()) {
            throw ConsoleException.badRequest(name + " (a non-empty string) is required");
        }
        return text;
    }

    /** An optional string, null when absent. */
    String optionalString(String name) {
        Object value = fields.get(name);
        if (value == null) {
            return null;
        }
        if (!(value instanceof String text)) {
            throw ConsoleException.badRequest(name + " must be a string");
        }
        return text.isEmpty() ? null : text;
    }

    /** An optional whole number within [min, max], or {@code absent}. */
    long number(String name, long min, long max, long absent) {
        Object value = fields.get(name);
        if (value == null) {
            return absent;
        }
        return JsonBody.whole(name, value, min, max);
    }

    static long whole(String name, Object value, long min, long max) {
        if (!(value instanceof Long n) || n < min || n > max) {
            throw ConsoleException.badRequest(name + " must be a whole number from " + min + " to " + max);
        }
        return n;
    }

    boolean flag(String name) {
        Object value = fields.get(name);
        if (value == null) {
            return false;
        }
        if (!(value instanceof Boolean b)) {
            throw ConsoleException.badRequest(name + " must be true or false");
        }
        return b;
    }

    /** An optional object of string values (configs), empty when absent. */
    Map<String, String> strings(String name) {
        Object value = fields.get(name);
        if (value == null) {
            return Map.of();
        }
        if (!(value instanceof Map<?, ?> map)) {
            throw ConsoleException.badRequest(name + " must be an object of strings");
        }
        Map<String, String> strings = new LinkedHashMap<>();
        map.forEach((k, v) -> {
            if (!(v instanceof String s)) {
                throw ConsoleException.badRequest(name + "." + k + " must be a string");
            }
            strings.put((String) k, s);
        });
        return strings;
    }

    /** An optional array of strings, empty when absent. */
    List<String> stringList(String name) {
        List<String> strings = new ArrayList<>();
        for (Object v : list(name)) {
            if (!(v instanceof String s)) {
                throw ConsoleException.badRequest(name + " must be an array of strings");
            }
            strings.add(s);
        }
        return strings;
    }

    /** An optional array of objects, empty when absent. */
    List<JsonBody> objects(String name) {
        List<JsonBody> objects = new ArrayList<>();
        for (Object v : list(name)) {
            if (!(v instanceof Map<?, ?> map)) {
                throw ConsoleException.badRequest(name + " must be an array of objects");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> fieldsOf = (Map<String, Object>) map;
            objects.add(new JsonBody(fieldsOf));
        }
        return objects;
    }

    private List<?> list(String name) {
        Object value = fields.get(name);
        if (value == null) {
            return List.of();
        }
        if (!(value instanceof List<?> list)) {
            throw ConsoleException.badRequest(name + " must be an array");
        }
        return list;
    }
}

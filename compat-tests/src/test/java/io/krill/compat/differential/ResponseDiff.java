package io.krill.compat.differential;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The field-by-field comparison of Kafka's and Krill's answers to one request, as JSON trees
 * ({@link ResponseJson}). Objects are compared field by field (a field on one side only is a difference),
 * arrays element by element in order (an element on one side only is a difference: brokers answer in
 * request order), values exactly, except where the {@link AllowList} lets them differ.
 *
 * <p>Immutable once computed; thread-safe.
 */
final class ResponseDiff {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Shown for a path that exists on one side only. */
    private static final String ABSENT = "(absent)";

    /** One path where the answers differ; a value is null where that side has no such path. */
    record Difference(String path, JsonNode kafka, JsonNode krill, AllowList.Entry allowedBy) {
        @Override
        public String toString() {
            return path + ": kafka=" + (kafka == null ? ABSENT : kafka.toString()) + " krill="
                    + (krill == null ? ABSENT : krill.toString());
        }
    }

    private final String title;
    private final JsonNode kafka;
    private final JsonNode krill;
    private final List<Difference> differences;

    private ResponseDiff(String title, JsonNode kafka, JsonNode krill, List<Difference> differences) {
        this.title = title;
        this.kafka = kafka;
        this.krill = krill;
        this.differences = List.copyOf(differences);
    }

    /** Compares the answers of {@code apiName}; {@code title} names the sequence in reports. */
    static ResponseDiff compare(String title, String apiName, JsonNode kafka, JsonNode krill, AllowList allowList) {
        List<Difference> differences = new ArrayList<>();
        walk(apiName, "", kafka, krill, allowList, differences);
        return new ResponseDiff(title, kafka, krill, differences);
    }

    /** The differences the allow-list does not cover: each one fails the comparison. */
    List<Difference> unexpected() {
        return differences.stream().filter(d -> d.allowedBy() == null).toList();
    }

    /** The differences the allow-list covers. */
    List<Difference> allowed() {
        return differences.stream().filter(d -> d.allowedBy() != null).toList();
    }

    /**
     * The report: the unexpected differences one per line (path, Kafka's value, Krill's value), the
     * allowed ones with their reason, then both answers in full.
     */
    String report() {
        StringBuilder sb = new StringBuilder(title).append(": ");
        List<Difference> unexpected = unexpected();
        List<Difference> allowed = allowed();
        sb.append(unexpected.isEmpty() ? "answers match" : unexpected.size() + " difference(s)");
        sb.append(allowed.isEmpty() ? "" : " (" + allowed.size() + " allowed)").append('\n');
        unexpected.forEach(d -> sb.append("  ").append(d).append('\n'));
        if (!allowed.isEmpty()) {
            sb.append("  allowed:\n");
            allowed.forEach(d -> sb.append("    ").append(d).append("  [").append(d.allowedBy().reason()).append("]\n"));
        }
        sb.append("  kafka: ").append(compact(kafka)).append('\n');
        sb.append("  krill: ").append(compact(krill)).append('\n');
        return sb.toString();
    }

    private static void walk(String apiName, String path, JsonNode kafka, JsonNode krill, AllowList allowList,
                             List<Difference> out) {
        if (kafka != null && krill != null && kafka.equals(krill)) {
            return;
        }
        AllowList.Entry allowedBy = allowList.allowing(apiName, path);
        if (kafka == null || krill == null) {
            out.add(new Difference(path, kafka, krill, null));
        } else if (allowedBy != null) {
            out.add(new Difference(path, kafka, krill, allowedBy));
        } else if (kafka.isObject() && krill.isObject()) {
            Set<String> names = new LinkedHashSet<>();
            kafka.properties().forEach(field -> names.add(field.getKey()));
            krill.properties().forEach(field -> names.add(field.getKey()));
            for (String name : names) {
                walk(apiName, path + "/" + name, kafka.get(name), krill.get(name), allowList, out);
            }
        } else if (kafka.isArray() && krill.isArray()) {
            for (int i = 0; i < Math.max(kafka.size(), krill.size()); i++) {
                walk(apiName, path + "/" + i, kafka.get(i), krill.get(i), allowList, out);
            }
        } else {
            out.add(new Difference(path.isEmpty() ? "/" : path, kafka, krill, null));
        }
    }

    private static String compact(JsonNode tree) {
        try {
            return JSON.writeValueAsString(tree);
        } catch (JsonProcessingException e) {
            return String.valueOf(tree);
        }
    }
}

package io.krill.wire.generator;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Reads Kafka's message JSON schemas (which carry {@code //} comments) into {@link MessageSpec}s and
 * rejects attributes it does not know, so that a new schema feature cannot be silently ignored.
 *
 * <p>Stateless; thread-safe.
 */
public final class SchemaLoader {
    private static final ObjectMapper MAPPER = new ObjectMapper()
        .configure(JsonParser.Feature.ALLOW_COMMENTS, true);

    private static final Set<String> MESSAGE_KEYS = Set.of("apiKey", "type", "name", "validVersions",
        "flexibleVersions", "fields", "commonStructs", "listeners", "latestVersionUnstable",
        "deprecatedVersions");
    private static final Set<String> FIELD_KEYS = Set.of("name", "type", "versions", "nullableVersions",
        "taggedVersions", "tag", "default", "ignorable", "mapKey", "zeroCopy", "flexibleVersions",
        "entityType", "about", "fields");
    private static final Set<String> STRUCT_KEYS = Set.of("name", "versions", "fields");

    private SchemaLoader() {
    }

    /** Loads every {@code *.json} file of {@code dir}, sorted by file name. */
    public static List<MessageSpec> loadAll(Path dir) throws IOException {
        List<MessageSpec> specs = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.filter(f -> f.getFileName().toString().endsWith(".json")).sorted().toList()) {
                specs.add(load(p));
            }
        }
        return specs;
    }

    public static MessageSpec load(Path file) throws IOException {
        try {
            return parse(Files.readString(file));
        } catch (SchemaException | IllegalArgumentException e) {
            throw new SchemaException(file.getFileName() + ": " + e.getMessage());
        }
    }

    public static MessageSpec parse(String json) throws IOException {
        JsonNode root = MAPPER.readTree(json);
        checkKeys(root, MESSAGE_KEYS, "message");
        String name = text(root, "name", null);
        Versions valid = Versions.parse(text(root, "validVersions", null), null);
        if (name == null || valid == null) {
            throw new SchemaException("a message needs a name and validVersions");
        }
        Versions flexible = Versions.parse(text(root, "flexibleVersions", "none"), Versions.NONE);
        if (!flexible.isEmpty() && flexible.highest() != Versions.OPEN) {
            throw new SchemaException(name + ": flexibleVersions must be open-ended");
        }
        List<String> listeners = new ArrayList<>();
        if (root.has("listeners")) {
            root.get("listeners").forEach(n -> listeners.add(n.asText()));
        }
        List<StructSpec> common = new ArrayList<>();
        if (root.has("commonStructs")) {
            for (JsonNode s : root.get("commonStructs")) {
                checkKeys(s, STRUCT_KEYS, "common struct");
                common.add(new StructSpec(text(s, "name", null),
                    Versions.parse(text(s, "versions", null), Versions.ALL), fields(s.get("fields"))));
            }
        }
        Integer apiKey = root.has("apiKey") ? root.get("apiKey").asInt() : null;
        return new MessageSpec(apiKey, text(root, "type", ""), name, valid, flexible, fields(root.get("fields")),
            List.copyOf(common), List.copyOf(listeners),
            root.has("latestVersionUnstable") && root.get("latestVersionUnstable").asBoolean());
    }

    private static List<FieldSpec> fields(JsonNode array) {
        List<FieldSpec> out = new ArrayList<>();
        if (array != null) {
            for (JsonNode f : array) {
                out.add(field(f));
            }
        }
        return List.copyOf(out);
    }

    private static FieldSpec field(JsonNode f) {
        checkKeys(f, FIELD_KEYS, "field");
        String name = text(f, "name", null);
        if (name == null || !name.matches("[A-Za-z][A-Za-z0-9]*")) {
            throw new SchemaException("bad field name " + name);
        }
        FieldType type = FieldType.parse(text(f, "type", ""));
        Versions tagged = Versions.parse(text(f, "taggedVersions", null), Versions.NONE);
        Versions versions = Versions.parse(text(f, "versions", null), tagged.isEmpty() ? null : tagged);
        if (versions == null) {
            throw new SchemaException("field " + name + " has no versions");
        }
        Integer tag = f.has("tag") ? f.get("tag").asInt() : null;
        if ((tag == null) != tagged.isEmpty()) {
            throw new SchemaException("field " + name + ": tag and taggedVersions go together");
        }
        if (tag != null && (tag < 0 || tagged.highest() != Versions.OPEN || !versions.containsAll(tagged))) {
            throw new SchemaException("field " + name + ": bad tag or taggedVersions");
        }
        Versions nullable = Versions.parse(text(f, "nullableVersions", null), Versions.NONE);
        Versions flexOverride = Versions.parse(text(f, "flexibleVersions", null), null);
        boolean zeroCopy = bool(f, "zeroCopy");
        FieldType.Kind k = type.kind();
        if (flexOverride != null && k != FieldType.Kind.STRING && k != FieldType.Kind.BYTES) {
            throw new SchemaException("field " + name + ": flexibleVersions override only for string/bytes");
        }
        if (zeroCopy && k != FieldType.Kind.BYTES) {
            throw new SchemaException("field " + name + ": zeroCopy only for bytes");
        }
        boolean nullableType = k == FieldType.Kind.STRING || k == FieldType.Kind.BYTES
            || k == FieldType.Kind.RECORDS || k == FieldType.Kind.ARRAY || k == FieldType.Kind.STRUCT;
        if (!nullable.isEmpty() && !nullableType) {
            throw new SchemaException("field " + name + ": type " + type + " cannot be nullable");
        }
        String dflt = text(f, "default", "");
        if (dflt.equals("null") && !nullable.containsAll(versions)) {
            throw new SchemaException("field " + name + ": null default but not nullable in all versions");
        }
        List<FieldSpec> nested = fields(f.get("fields"));
        if (!nested.isEmpty() && !type.isStruct() && !type.isStructArray()) {
            throw new SchemaException("field " + name + ": only struct types may declare fields");
        }
        return new FieldSpec(name, type, versions, nullable, tagged, tag, dflt, bool(f, "ignorable"),
            bool(f, "mapKey"), zeroCopy, flexOverride, text(f, "entityType", ""), text(f, "about", ""), nested);
    }

    private static void checkKeys(JsonNode node, Set<String> allowed, String what) {
        for (Iterator<Map.Entry<String, JsonNode>> it = node.properties().iterator(); it.hasNext(); ) {
            String key = it.next().getKey();
            if (!allowed.contains(key)) {
                throw new SchemaException("unknown " + what + " attribute '" + key + "'");
            }
        }
    }

    private static String text(JsonNode node, String key, String absent) {
        JsonNode v = node.get(key);
        return v == null || v.isNull() ? absent : v.asText();
    }

    private static boolean bool(JsonNode node, String key) {
        JsonNode v = node.get(key);
        return v != null && v.asBoolean();
    }
}

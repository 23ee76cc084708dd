package io.krill.wire.message;

import io.krill.wire.generator.FieldSpec;
import io.krill.wire.generator.FieldType;
import io.krill.wire.generator.MessageSpec;
import io.krill.wire.generator.SchemaLoader;
import io.krill.wire.generator.StructSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The schemas unpacked from kafka-clients by the build, read with the generator's schema model, and
 * the class names both sides give them. Loaded once; immutable afterwards.
 */
final class SchemaCatalog {
    static final Path DIR = Path.of("target", "kafka-schemas", "common", "message");
    private static List<Schema> all;

    private SchemaCatalog() {
    }

    /** Every schema with at least one valid version, sorted by file name. */
    static synchronized List<Schema> all() {
        if (all == null) {
            try {
                List<Schema> out = new ArrayList<>();
                for (MessageSpec spec : SchemaLoader.loadAll(DIR)) {
                    if (!spec.validVersions().isEmpty()) {
                        out.add(new Schema(spec));
                    }
                }
                all = List.copyOf(out);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return all;
    }

    static Schema named(String name) {
        return all().stream().filter(s -> s.spec().name().equals(name)).findFirst().orElseThrow();
    }

    /** One schema and the structs it declares, by name. */
    record Schema(MessageSpec spec, Map<String, StructSpec> structs) {
        Schema(MessageSpec spec) {
            this(spec, collect(spec));
        }

        private static Map<String, StructSpec> collect(MessageSpec spec) {
            Map<String, StructSpec> structs = new HashMap<>();
            structs.put("", spec.struct());
            for (StructSpec c : spec.commonStructs()) {
                structs.put(c.name(), c);
                collect(c.fields(), structs);
            }
            collect(spec.fields(), structs);
            return structs;
        }

        private static void collect(List<FieldSpec> fields, Map<String, StructSpec> out) {
            for (FieldSpec f : fields) {
                if (!f.fields().isEmpty()) {
                    FieldType t = f.type().isArray() ? f.type().element() : f.type();
                    out.put(t.structName(), new StructSpec(t.structName(), f.versions(), f.fields()));
                    collect(f.fields(), out);
                }
            }
        }

        String name() {
            return spec.name();
        }

        /** The struct named {@code name}; "" is the top-level struct. */
        StructSpec struct(String name) {
            return structs.get(name);
        }

        List<Short> versions() {
            List<Short> v = new ArrayList<>();
            for (int i = spec.validVersions().lowest(); i <= spec.validVersions().highest(); i++) {
                v.add((short) i);
            }
            return v;
        }

        String kafkaClassName() {
            String suffix = switch (spec.type()) {
                case "request", "response", "header" -> "Data";
                default -> "";
            };
            return "org.apache.kafka.common.message." + spec.name() + suffix;
        }

        String krillClassName() {
            return "io.krill.wire.message." + spec.name();
        }

        @Override
        public String toString() {
            return spec.name();
        }
    }
}

package io.krill.wire.generator;

/**
 * The type of a schema field: a primitive, a struct (by name) or an array of either.
 *
 * <p>Immutable.
 */
public record FieldType(Kind kind, FieldType element, String structName) {

    /** The schema's type vocabulary. {@code width} is the fixed encoded size, or -1 if variable. */
    public enum Kind {
        BOOL("bool", 1), INT8("int8", 1), INT16("int16", 2), UINT16("uint16", 2), INT32("int32", 4),
        UINT32("uint32", 4), INT64("int64", 8), FLOAT64("float64", 8), UUID("uuid", 16),
        STRING("string", -1), BYTES("bytes", -1), RECORDS("records", -1), STRUCT(null, -1), ARRAY(null, -1);

        final String schemaName;
        final int width;

        Kind(String schemaName, int width) {
            this.schemaName = schemaName;
            this.width = width;
        }
    }

    public static FieldType parse(String text) {
        if (text.startsWith("[]")) {
            FieldType element = parse(text.substring(2));
            if (element.kind == Kind.ARRAY || element.kind == Kind.RECORDS) {
                throw new SchemaException("unsupported array element type " + text);
            }
            return new FieldType(Kind.ARRAY, element, null);
        }
        for (Kind k : Kind.values()) {
            if (text.equals(k.schemaName)) {
                return new FieldType(k, null, null);
            }
        }
        if (text.isEmpty() || !Character.isUpperCase(text.charAt(0))) {
            throw new SchemaException("unknown type " + text);
        }
        return new FieldType(Kind.STRUCT, null, text);
    }

    public boolean isArray() {
        return kind == Kind.ARRAY;
    }

    public boolean isStruct() {
        return kind == Kind.STRUCT;
    }

    public boolean isStructArray() {
        return kind == Kind.ARRAY && element.kind == Kind.STRUCT;
    }

    /** Fixed encoded width in bytes, or -1 for variable-length types. */
    public int width() {
        return kind.width;
    }

    public boolean isFixed() {
        return kind.width > 0;
    }

    @Override
    public String toString() {
        return switch (kind) {
            case ARRAY -> "[]" + element;
            case STRUCT -> structName;
            default -> kind.schemaName;
        };
    }
}

package io.krill.wire.generator;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.Locale;

/**
 * Java types, literals and identifiers for schema types and defaults.
 *
 * <p>Stateless; thread-safe.
 */
final class JavaNames {
    private JavaNames() {
    }

    /** The Java type of a field. */
    static String type(FieldSpec f) {
        return type(f.type(), f.zeroCopy());
    }

    static String type(FieldType t, boolean zeroCopy) {
        return switch (t.kind()) {
            case BOOL -> "boolean";
            case INT8 -> "byte";
            case INT16 -> "short";
            case UINT16, INT32 -> "int";
            case UINT32, INT64 -> "long";
            case FLOAT64 -> "double";
            case UUID -> "UUID";
            case STRING -> "String";
            case BYTES -> zeroCopy ? "ByteBuf" : "byte[]";
            case RECORDS -> "Records";
            case STRUCT -> t.structName();
            case ARRAY -> "List<" + boxed(t.element()) + ">";
        };
    }

    static String boxed(FieldType t) {
        return switch (t.kind()) {
            case BOOL -> "Boolean";
            case INT8 -> "Byte";
            case INT16 -> "Short";
            case UINT16, INT32 -> "Integer";
            case UINT32, INT64 -> "Long";
            case FLOAT64 -> "Double";
            default -> type(t, false);
        };
    }

    /** The Java expression of a field's schema default. */
    static String defaultValue(FieldSpec f) {
        String d = f.defaultValue();
        FieldType t = f.type();
        if (f.defaultIsNull()) {
            return "null";
        }
        String where = "default of " + f.name() + ": ";
        switch (t.kind()) {
            case BOOL:
                if (d.isEmpty() || d.equalsIgnoreCase("false")) {
                    return "false";
                }
                if (d.equalsIgnoreCase("true")) {
                    return "true";
                }
                throw new SchemaException(where + d);
            case INT8:
                return "(byte) " + integer(d, Byte.MIN_VALUE, Byte.MAX_VALUE, where);
            case INT16:
                return "(short) " + integer(d, Short.MIN_VALUE, Short.MAX_VALUE, where);
            case UINT16:
                return Long.toString(integer(d, 0, 0xffff, where));
            case INT32:
                return Long.toString(integer(d, Integer.MIN_VALUE, Integer.MAX_VALUE, where));
            case UINT32:
                return integer(d, 0, 0xffffffffL, where) + "L";
            case INT64:
                return integer(d, Long.MIN_VALUE, Long.MAX_VALUE, where) + "L";
            case FLOAT64: {
                double v = d.isEmpty() ? 0.0 : Double.parseDouble(d);
                if (Double.isNaN(v)) {
                    return "Double.NaN";
                }
                if (Double.isInfinite(v)) {
                    return v > 0 ? "Double.POSITIVE_INFINITY" : "Double.NEGATIVE_INFINITY";
                }
                return Double.toString(v);
            }
            case UUID: {
                if (d.isEmpty()) {
                    return "ByteBufCodec.ZERO_UUID";
                }
                ByteBuffer b = ByteBuffer.wrap(Base64.getUrlDecoder().decode(d));
                if (b.remaining() != 16) {
                    throw new SchemaException(where + d);
                }
                return "new UUID(" + b.getLong() + "L, " + b.getLong() + "L)";
            }
            case STRING:
                return literal(d);
            case BYTES:
                if (!d.isEmpty()) {
                    throw new SchemaException(where + "bytes default must be empty or null");
                }
                return f.zeroCopy() ? "Unpooled.EMPTY_BUFFER" : "ByteBufCodec.EMPTY_BYTES";
            case RECORDS:
                return "null";
            case STRUCT:
                if (!d.isEmpty()) {
                    throw new SchemaException(where + "struct default must be empty or null");
                }
                return "new " + t.structName() + "()";
            case ARRAY:
                if (!d.isEmpty()) {
                    throw new SchemaException(where + "array default must be empty or null");
                }
                return "new ArrayList<>(0)";
            default:
                throw new SchemaException(where + "unsupported type " + t);
        }
    }

    /** Parses a decimal or {@code 0x} hexadecimal integer default, checking its range. */
    static long integer(String text, long min, long max, String where) {
        if (text.isEmpty()) {
            return 0;
        }
        String s = text.trim();
        boolean negative = s.startsWith("-");
        if (negative) {
            s = s.substring(1);
        }
        BigInteger v;
        try {
            v = s.toLowerCase(Locale.ROOT).startsWith("0x") ? new BigInteger(s.substring(2), 16) : new BigInteger(s);
        } catch (NumberFormatException e) {
            throw new SchemaException(where + text);
        }
        if (negative) {
            v = v.negate();
        }
        if (v.compareTo(BigInteger.valueOf(min)) < 0 || v.compareTo(BigInteger.valueOf(max)) > 0) {
            throw new SchemaException(where + text + " out of range");
        }
        return v.longValue();
    }

    /** A Java string literal. */
    static String literal(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20 || c > 0x7e) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    /** Text safe inside a javadoc comment. */
    static String doc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace("*/", "*&#47;").replace("@", "&#64;").replace("\\u", "\\\\u");
    }

    /** UPPER_SNAKE_CASE of an UpperCamelCase name, as Kafka spells API keys ({@code OffsetForLeaderEpoch}). */
    static String upperSnake(String camel) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < camel.length(); i++) {
            char c = camel.charAt(i);
            if (Character.isUpperCase(c) && i > 0) {
                boolean prevLower = !Character.isUpperCase(camel.charAt(i - 1));
                boolean nextLower = i + 1 < camel.length() && Character.isLowerCase(camel.charAt(i + 1));
                if (prevLower || nextLower) {
                    b.append('_');
                }
            }
            b.append(Character.toUpperCase(c));
        }
        return b.toString();
    }
}

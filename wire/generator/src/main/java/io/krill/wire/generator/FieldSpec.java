package io.krill.wire.generator;

import java.util.List;

/**
 * One field of a schema struct, with every attribute the schemas use.
 *
 * <p>Immutable.
 *
 * @param name             the schema name, upper camel case ({@code "TopicName"})
 * @param type             the field's type
 * @param versions         versions in which the field exists
 * @param nullableVersions versions in which it may be null
 * @param taggedVersions   versions in which it is a tagged field (open-ended or none)
 * @param tag              its tag, or null if never tagged
 * @param defaultValue     the schema's default as text, "" when unspecified
 * @param ignorable        whether a non-default value may be silently dropped in versions without it
 * @param mapKey           whether it is a key of its struct (Kafka builds hash collections; Krill
 *                         keeps lists)
 * @param zeroCopy         for bytes: expose as a buffer slice instead of a copied array
 * @param flexibleVersions a per-field override of the message's flexible versions, or null
 * @param entityType       the schema's entity type annotation, "" if none (informational)
 * @param about            documentation text, "" if none
 * @param fields           the fields of an inline struct type, empty otherwise
 */
public record FieldSpec(String name, FieldType type, Versions versions, Versions nullableVersions,
                        Versions taggedVersions, Integer tag, String defaultValue, boolean ignorable,
                        boolean mapKey, boolean zeroCopy, Versions flexibleVersions, String entityType,
                        String about, List<FieldSpec> fields) {

    /** lowerCamelCase name used for Java fields and getters. */
    public String camelName() {
        return Character.toLowerCase(name.charAt(0)) + name.substring(1);
    }

    /** UpperCamelCase name used after "set" (a few schemas spell field names in lowerCamelCase). */
    public String capitalizedName() {
        return Character.toUpperCase(name.charAt(0)) + name.substring(1);
    }

    /** True when the schema's default is the literal {@code null}. */
    public boolean defaultIsNull() {
        return defaultValue.equals("null");
    }

    public boolean hasTag() {
        return tag != null;
    }
}

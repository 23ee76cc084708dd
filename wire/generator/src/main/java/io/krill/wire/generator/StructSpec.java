package io.krill.wire.generator;

import java.util.List;

/**
 * A struct: the top-level message body, an inline struct declared by a field, or a common struct.
 *
 * <p>Immutable.
 */
public record StructSpec(String name, Versions versions, List<FieldSpec> fields) {
}

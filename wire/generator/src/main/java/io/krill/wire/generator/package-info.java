/**
 * Krill's build-time generator of Kafka protocol codecs: {@link io.krill.wire.generator.SchemaLoader}
 * reads kafka-clients' message JSON schemas (rejecting any attribute it does not know),
 * {@link io.krill.wire.generator.MessageClassEmitter} emits one class per schema and
 * {@link io.krill.wire.generator.ApiKeysEmitter} the {@code ApiKeys} enum.
 *
 * <p>Encoding rules the emitted code follows, matching kafka-clients byte for byte:
 * <ul>
 *   <li>Flexible versions use compact lengths (unsigned varint of length + 1, 0 for null) and end
 *       every struct with a tagged-field section; a field-level {@code flexibleVersions} override
 *       (RequestHeader's ClientId: "none") keeps the classic encoding.</li>
 *   <li>Tagged fields are written only when they differ from their default (a null in a nullable
 *       field whose default is not null counts as different), in tag order, merged with the unknown
 *       tagged fields kept from reading.</li>
 *   <li>Nullable struct fields carry an int8 marker (-1 null, 1 present); tagged ones a varint 0/1.</li>
 *   <li>A field absent from the version being written must hold its default unless it is
 *       {@code ignorable}, in which case it is dropped.</li>
 *   <li>{@code records} fields are {@code io.krill.wire.protocol.Records}: the length prefix comes
 *       from {@code sizeInBytes()}, then the records write themselves, so file-backed records can
 *       leave their bytes to a {@code FileRegion}; they read as {@code ByteBufRecords} slices.</li>
 * </ul>
 * Reading is stricter than kafka-clients only on input Kafka never writes: a negative length other
 * than -1, tags not strictly increasing, a tagged value not filling its declared size, an array
 * count its minimal element size cannot fit, a 5-byte varint over 32 bits.
 */
package io.krill.wire.generator;

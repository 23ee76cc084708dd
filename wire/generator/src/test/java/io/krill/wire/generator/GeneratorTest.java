package io.krill.wire.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The generator on small hand-written schemas: version arithmetic, defaults, nullable structs, tag order. */
class GeneratorTest {

    private static final String SCHEMA = """
        // A comment, as in Kafka's files.
        {
          "apiKey": 99, "type": "request", "name": "TrickyRequest",
          "validVersions": "0-4", "flexibleVersions": "2+",
          "fields": [
            { "name": "Limit", "type": "int32", "versions": "0+", "default": "0x7fffffff" },
            { "name": "Small", "type": "int8", "versions": "1+", "default": -1, "ignorable": true },
            { "name": "Enabled", "type": "bool", "versions": "3+", "default": "true" },
            { "name": "Label", "type": "string", "versions": "0+", "nullableVersions": "1+", "default": "x" },
            { "name": "Later", "type": "int64", "versions": "2+", "taggedVersions": "2+", "tag": 1 },
            { "name": "Earlier", "type": "string", "versions": "2+", "taggedVersions": "2+", "tag": 0,
              "nullableVersions": "2+", "default": "null" },
            { "name": "Cursor", "type": "Cursor", "versions": "1+", "nullableVersions": "1+", "default": "null",
              "fields": [ { "name": "Position", "type": "uint16", "versions": "1+", "default": "7" } ] }
          ]
        }
        """;

    @Test
    void versionsParseAndConditionsSimplify() {
        assertEquals(new Versions(3, Versions.OPEN), Versions.parse("3+", null));
        assertEquals(new Versions(1, 4), Versions.parse("1-4", null));
        assertEquals(new Versions(2, 2), Versions.parse("2", null));
        assertTrue(Versions.parse("none", null).isEmpty());
        Versions valid = new Versions(0, 4);
        assertEquals("true", MessageClassEmitter.cond(Versions.parse("0+", null), valid));
        assertEquals("false", MessageClassEmitter.cond(Versions.parse("5+", null), valid));
        assertEquals("version >= 2", MessageClassEmitter.cond(Versions.parse("2+", null), valid));
        assertEquals("version >= 1 && version <= 3", MessageClassEmitter.cond(Versions.parse("1-3", null), valid));
    }

    @Test
    void defaultsBecomeJavaLiterals() throws IOException {
        String java = new MessageClassEmitter(SchemaLoader.parse(SCHEMA)).emit();
        assertTrue(java.contains("private int limit = 2147483647;"), java);
        assertTrue(java.contains("private byte small = (byte) -1;"));
        assertTrue(java.contains("private boolean enabled = true;"));
        assertTrue(java.contains("private String label = \"x\";"));
        assertTrue(java.contains("private Cursor cursor = null;"));
        assertTrue(java.contains("private int position = 7;"));
    }

    @Test
    void nullableStructsAndFieldsAbsentFromAVersion() throws IOException {
        String java = new MessageClassEmitter(SchemaLoader.parse(SCHEMA)).emit();
        // Cursor exists from v1 and is always nullable there: an int8 marker, read and written.
        assertTrue(java.contains("this.cursor = buf.readByte() < 0 ? null : ByteBufCodec.readStruct(new Cursor(), buf, version);"));
        assertTrue(java.contains("ByteBufCodec.writeStructMarker(buf, this.cursor, true, \"TrickyRequest.cursor\")"));
        // Enabled (3+, not ignorable) must be default below v3; Small (ignorable) is silently dropped.
        assertTrue(java.contains("} else if (!this.enabled) {"));
        assertFalse(java.contains("} else if (this.small != (byte) -1) {"));
        // Label is nullable from v1 only.
        assertTrue(java.contains("ByteBufCodec.readString(buf, version >= 2, version >= 1)"));
    }

    @Test
    void taggedFieldsAreWrittenInTagOrderNotDeclarationOrder() throws IOException {
        String java = new MessageClassEmitter(SchemaLoader.parse(SCHEMA)).emit();
        String write = java.substring(java.indexOf("public void write("), java.indexOf("public int size("));
        int tag0 = write.indexOf("ByteBufCodec.writeUnsignedVarint(buf, 0);");
        int tag1 = write.indexOf("ByteBufCodec.writeUnsignedVarint(buf, 1);");
        assertTrue(tag0 > 0 && tag1 > tag0, write);
        assertTrue(write.indexOf("TaggedFields.writeUnknown(buf, this.unknownTaggedFields, u, 0);") < tag0);
        assertTrue(write.indexOf("TaggedFields.writeUnknown(buf, this.unknownTaggedFields, u, Integer.MAX_VALUE);")
            > tag1);
        String read = java.substring(java.indexOf("public void read("), java.indexOf("public void write("));
        assertTrue(read.contains("case 0 -> {") && read.contains("case 1 -> {"));
    }

    @Test
    void recordsFieldsAreRecordsThatWriteThemselves() throws IOException {
        String java = new MessageClassEmitter(SchemaLoader.parse("""
            { "type": "data", "name": "Batch", "validVersions": "0-1", "flexibleVersions": "1+",
              "fields": [ { "name": "Records", "type": "records", "versions": "0+", "nullableVersions": "0+" } ] }""")).emit();
        assertTrue(java.contains("import io.krill.wire.protocol.Records;"), java);
        assertTrue(java.contains("private Records records = null;"));
        assertTrue(java.contains("this.records = ByteBufCodec.readRecords(buf, version >= 1, true);"));
        assertTrue(java.contains("ByteBufCodec.writeRecords(buf, this.records, version >= 1, true, \"Batch.records\");"));
        assertTrue(java.contains("total += ByteBufCodec.recordsSize(this.records, version >= 1);"));
    }

    @Test
    void badSchemasAreRejected() {
        assertThrows(SchemaException.class, () -> SchemaLoader.parse("""
            { "type": "data", "name": "X", "validVersions": "0", "flexibleVersions": "none",
              "fields": [ { "name": "A", "type": "int32", "versions": "0+", "surprise": 1 } ] }"""));
        assertThrows(SchemaException.class, () -> SchemaLoader.parse("""
            { "type": "data", "name": "X", "validVersions": "0-1", "flexibleVersions": "none",
              "fields": [ { "name": "A", "type": "string", "versions": "0+", "nullableVersions": "1+",
                            "default": "null" } ] }"""));
        assertThrows(SchemaException.class, () -> SchemaLoader.parse("""
            { "type": "data", "name": "X", "validVersions": "0", "flexibleVersions": "0+",
              "fields": [ { "name": "A", "type": "int32", "versions": "0+", "nullableVersions": "0+" } ] }"""));
    }

    @Test
    void apiKeyConstantNamesFollowKafka() {
        assertEquals("OFFSET_FOR_LEADER_EPOCH", JavaNames.upperSnake("OffsetForLeaderEpoch"));
        assertEquals("DESCRIBE_ACLS", JavaNames.upperSnake("DescribeAcls"));
        assertEquals("INIT_PRODUCER_ID", JavaNames.upperSnake("InitProducerId"));
    }

    @Test
    void coordinatorRecordsGoToTheirOwnPackageWithoutApiKeys(@TempDir Path tmp) throws IOException {
        Path schemas = Files.createDirectories(tmp.resolve("schemas"));
        Files.writeString(schemas.resolve("SampleKey.json"), """
            { "apiKey": 7, "type": "coordinator-key", "name": "SampleKey", "validVersions": "0",
              "flexibleVersions": "none",
              "fields": [ { "name": "Group", "type": "string", "versions": "0" } ] }""");
        Files.writeString(schemas.resolve("SampleValue.json"), """
            { "apiKey": 7, "type": "coordinator-value", "name": "SampleValue", "validVersions": "0",
              "flexibleVersions": "0+",
              "fields": [ { "name": "Epoch", "type": "int32", "versions": "0+" } ] }""");
        Path out = tmp.resolve("out");
        assertEquals(3, MessageGenerator.generateRecords(schemas, out, MessageGenerator.COORDINATOR_PACKAGE));
        Path dir = out.resolve("io/krill/wire/coordinator");
        String key = Files.readString(dir.resolve("SampleKey.java"));
        assertTrue(key.contains("package io.krill.wire.coordinator;"), key);
        assertTrue(key.contains("public static final short API_KEY = 7;"));
        assertTrue(key.contains("(record type 7)"));
        assertFalse(Files.exists(dir.resolve("ApiKeys.java")));
        assertTrue(Files.exists(dir.resolve("package-info.java")));

        Files.writeString(schemas.resolve("OtherRequest.json"), """
            { "apiKey": 1, "type": "request", "name": "OtherRequest", "validVersions": "0",
              "flexibleVersions": "none", "fields": [] }""");
        assertThrows(SchemaException.class,
            () -> MessageGenerator.generateRecords(schemas, out, MessageGenerator.COORDINATOR_PACKAGE));
    }
}

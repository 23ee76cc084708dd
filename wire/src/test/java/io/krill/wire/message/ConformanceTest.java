package io.krill.wire.message;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.krill.wire.message.RandomMessages.Flavor;
import io.krill.wire.message.SchemaCatalog.Schema;
import io.krill.wire.protocol.Message;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Byte-exact conformance with kafka-clients for every schema (requests, responses, headers and data)
 * at every valid version, in both directions:
 * <ol>
 *   <li>random kafka-clients instance → Kafka bytes → Krill read → Krill write: same bytes, and
 *       Krill's size() is their length;</li>
 *   <li>random Krill instance → Krill bytes → kafka-clients read → Kafka write: same bytes, and
 *       Krill re-reading them gives an equal instance.</li>
 * </ol>
 * Seeded: {@code -Dkrill.conformance.seed=N} replays a run; every failure names the seed, schema,
 * version, direction and instance.
 */
class ConformanceTest {
    private static final long SEED = Long.getLong("krill.conformance.seed", 20240521L);
    private static final int INSTANCES = Integer.getInteger("krill.conformance.instances", 20);
    private static final int MAX_REPORTED = 25;

    @Test
    void everySchemaAndVersionRoundTripsByteExactly() {
        List<String> failures = new ArrayList<>();
        int pairs = 0;
        int expectedPairs = 0;
        int roundTrips = 0;
        List<Schema> schemas = SchemaCatalog.all();
        for (Schema schema : schemas) {
            expectedPairs += schema.spec().validVersions().count();
            for (short version : schema.versions()) {
                boolean pairOk = true;
                for (int i = 0; i < INSTANCES; i++) {
                    long seed = instanceSeed(schema, version, i);
                    String where = "seed=" + SEED + " schema=" + schema.name() + " version=" + version
                        + " instance=" + i;
                    try {
                        kafkaToKrill(schema, version, new Random(seed));
                        roundTrips++;
                    } catch (AssertionError | RuntimeException e) {
                        pairOk = false;
                        report(failures, where + " kafka->krill: " + e);
                    }
                    try {
                        krillToKafka(schema, version, new Random(~seed));
                        roundTrips++;
                    } catch (AssertionError | RuntimeException e) {
                        pairOk = false;
                        report(failures, where + " krill->kafka: " + e);
                    }
                }
                if (pairOk) {
                    pairs++;
                }
            }
        }
        System.out.printf("conformance: %d (api,version) pairs covered across %d schemas (%d round trips, seed %d)%n",
            pairs, schemas.size(), roundTrips, SEED);
        if (!failures.isEmpty()) {
            fail(failures.size() + " failures:\n" + String.join("\n", failures));
        }
        assertEquals(expectedPairs, pairs, "pairs covered vs (schema, version) pairs in the schema files");
        assertEquals(195, schemas.size(), "schemas with valid versions in kafka-clients 4.4.0");
    }

    private static void report(List<String> failures, String message) {
        if (failures.size() < MAX_REPORTED) {
            failures.add(message);
        } else if (failures.size() == MAX_REPORTED) {
            failures.add("...");
        }
    }

    private static long instanceSeed(Schema schema, short version, int i) {
        return SEED * 31 + schema.name().hashCode() * 1_000_003L + version * 101L + i;
    }

    static void kafkaToKrill(Schema schema, short version, Random rnd) {
        Object kafka = new RandomMessages(Flavor.KAFKA, rnd).build(schema, version);
        byte[] bytes = KafkaCodec.write(kafka, version);
        Message krill = KrillCodec.read(RandomMessages.load(schema.krillClassName()), bytes, version);
        assertEquals(bytes.length, krill.size(version), "krill size()");
        byte[] again = KrillCodec.write(krill, version);
        if (!Arrays.equals(bytes, again)) {
            fail("bytes differ\n kafka " + hex(bytes) + "\n krill " + hex(again) + "\n message " + kafka);
        }
    }

    static void krillToKafka(Schema schema, short version, Random rnd) {
        Message krill = (Message) new RandomMessages(Flavor.KRILL, rnd).build(schema, version);
        byte[] bytes = KrillCodec.write(krill, version);
        Object kafka = KafkaCodec.read(RandomMessages.load(schema.kafkaClassName()), bytes, version);
        byte[] again = KafkaCodec.write(kafka, version);
        if (!Arrays.equals(bytes, again)) {
            fail("bytes differ\n krill " + hex(bytes) + "\n kafka " + hex(again) + "\n message " + krill);
        }
        Message reread = KrillCodec.read(krill.getClass(), bytes, version);
        assertEquals(krill, reread, "krill re-read");
        assertEquals(krill.hashCode(), reread.hashCode(), "krill re-read hashCode");
    }

    static String hex(byte[] b) {
        return b.length > 400 ? HexFormat.of().formatHex(b, 0, 400) + "..." : HexFormat.of().formatHex(b);
    }
}

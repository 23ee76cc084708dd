package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.support.Clients;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Older Java clients (kafka-clients 2.8.2 and 3.6.2, copied by the build into target/old-clients with
 * the codec and slf4j jars their POMs name) against Krill, each in its own class loader whose parent is
 * the platform loader: nothing of kafka-clients 4.4 is visible to it. A small client
 * ({@code src/test/resources/old-client/OldClientRoundTrip.java}) is compiled against the old jar at
 * test time, so it is checked against the old API, and driven through {@code Function<Map, List>}.
 *
 * <p>They ask for older request versions than 4.4 does (2.8: Produce v9, Fetch v12, Metadata v11,
 * ListOffsets v6; 3.6: Produce v9, Fetch v15) and, in 2.8, a non-idempotent producer by default.
 */
class OldJavaClientTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension().with("num.partitions", "1");

    private static final List<String> VERSIONS = List.of("2.8.2", "3.6.2");
    private static final Map<String, ClassLoader> LOADERS = new ConcurrentHashMap<>();

    static Stream<Arguments> versionsAndCodecs() {
        List<Arguments> args = new ArrayList<>();
        for (String version : VERSIONS) {
            for (String codec : List.of("none", "gzip", "snappy", "lz4", "zstd")) {
                args.add(Arguments.of(version, codec));
            }
        }
        return args.stream();
    }

    @ParameterizedTest(name = "kafka-clients {0}, compression {1}")
    @MethodSource("versionsAndCodecs")
    void oldProducerAndConsumerRoundTrip(String version, String codec) {
        String topic = "old-" + version.replace('.', '_') + "-" + codec;
        int count = 2000;
        String prefix = "value-" + codec + "-";
        // 2.8's default is a plain producer, 3.x's an idempotent one: ask for both explicitly.
        String idempotence = codec.equals("lz4") || codec.equals("none") ? "true" : "false";
        List<String> acked = call(version, Map.of("op", "produce", "bootstrap", KRILL.bootstrapServers(), "topic", topic,
                "partition", "0", "count", String.valueOf(count), "compression", codec, "acks", "all",
                "idempotence", idempotence, "prefix", prefix));
        assertEquals(IntStream.range(0, count).mapToObj(i -> "acked " + i).collect(Collectors.toList()), acked,
                "offsets acknowledged to the old producer");

        // The 4.4 consumer reads what the old producer wrote.
        List<ConsumerRecord<String, String>> records = Clients.consume(KRILL.bootstrapServers(), topic, 0, count);
        assertEquals(count, records.size());
        for (int i = 0; i < count; i++) {
            assertEquals("k-" + i, records.get(i).key());
            assertEquals(prefix + i, records.get(i).value());
        }

        // And the old consumer reads it back too.
        List<String> read = call(version, consumeArgs(topic, count));
        List<String> expected = IntStream.range(0, count).mapToObj(i -> i + " k-" + i + " " + prefix + i)
                .collect(Collectors.toCollection(ArrayList::new));
        expected.add("end " + count);
        assertEquals(expected, read, "records and end offset the old consumer saw");
    }

    @ParameterizedTest(name = "kafka-clients {0}")
    @ValueSource(strings = {"2.8.2", "3.6.2"})
    void theOldClientIsTheOneRunning(String version) {
        assertEquals(List.of(version), call(version, Map.of("op", "version")), "AppInfoParser.getVersion() in the "
                + "helper's class loader");
    }

    @ParameterizedTest(name = "kafka-clients {0}")
    @ValueSource(strings = {"2.8.2", "3.6.2"})
    void oldConsumerReadsWhatTheCurrentProducerWrote(String version) {
        String topic = "old-reads-new-" + version.replace('.', '_');
        int count = 3000;
        List<String> values = IntStream.range(0, count).mapToObj(i -> "from-4.4-" + i).collect(Collectors.toList());
        Clients.produce(KRILL.bootstrapServers(), topic, 0, values);
        List<String> read = call(version, consumeArgs(topic, count));
        List<String> expected = IntStream.range(0, count).mapToObj(i -> i + " k-" + i + " from-4.4-" + i)
                .collect(Collectors.toCollection(ArrayList::new));
        expected.add("end " + count);
        assertEquals(expected, read);
    }

    private static Map<String, String> consumeArgs(String topic, int count) {
        return Map.of("op", "consume", "bootstrap", KRILL.bootstrapServers(), "topic", topic, "partition", "0",
                "count", String.valueOf(count));
    }

    /** Runs the helper in the old client's class loader (also as context loader: Kafka loads classes by name). */
    @SuppressWarnings("unchecked")
    private static List<String> call(String version, Map<String, String> input) {
        ClassLoader loader = LOADERS.computeIfAbsent(version, OldJavaClientTest::loaderFor);
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        try {
            Object helper = loader.loadClass("OldClientRoundTrip").getDeclaredConstructor().newInstance();
            return new ArrayList<>(((Function<Map<String, String>, List<String>>) helper).apply(new HashMap<>(input)));
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    private static ClassLoader loaderFor(String version) {
        String dir = System.getProperty("krill.compat.oldClientsDir", "target/old-clients");
        Path jars = Path.of(dir, version);
        assertTrue(Files.isDirectory(jars), jars + " missing: the build's maven-dependency-plugin copies it");
        try {
            List<Path> jarFiles;
            try (Stream<Path> list = Files.list(jars)) {
                jarFiles = list.filter(p -> p.toString().endsWith(".jar")).sorted().toList();
            }
            assertTrue(jarFiles.stream().anyMatch(p -> p.getFileName().toString().equals("kafka-clients-" + version + ".jar")),
                    "kafka-clients " + version + " in " + jars);
            Path work = Files.createDirectories(Path.of(dir).toAbsolutePath().resolveSibling("old-client-classes")
                    .resolve(version));
            Path source = work.resolve("OldClientRoundTrip.java");
            try (InputStream in = OldJavaClientTest.class.getResourceAsStream("/old-client/OldClientRoundTrip.java")) {
                assertNotNull(in, "old-client/OldClientRoundTrip.java on the test class path");
                Files.write(source, in.readAllBytes());
            }
            JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
            assertNotNull(javac, "a JDK (javax.tools compiler) runs the tests");
            String classPath = jarFiles.stream().map(Path::toString).collect(Collectors.joining(":"));
            ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
            int rc = javac.run(null, diagnostics, diagnostics, "--release", "11", "-proc:none", "-nowarn", "-cp",
                    classPath, "-d", work.toString(), source.toString());
            assertEquals(0, rc, "OldClientRoundTrip compiles against kafka-clients " + version + ": "
                    + diagnostics.toString(StandardCharsets.UTF_8));
            List<URL> urls = new ArrayList<>();
            urls.add(work.toUri().toURL());
            for (Path jar : jarFiles) {
                urls.add(jar.toUri().toURL());
            }
            return new URLClassLoader("kafka-clients-" + version, urls.toArray(URL[]::new),
                    ClassLoader.getPlatformClassLoader());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

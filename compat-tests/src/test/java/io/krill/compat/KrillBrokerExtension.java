package io.krill.compat;

import io.krill.broker.Broker;
import io.krill.broker.config.BrokerConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts one Krill broker in-process for a test class, on a free loopback port with its own data
 * folder, and removes both afterwards. Register with {@code @RegisterExtension static}.
 */
public final class KrillBrokerExtension implements BeforeAllCallback, AfterAllCallback {
    private final Map<String, String> overrides = new HashMap<>();
    private Path dataDir;
    private Broker broker;

    public KrillBrokerExtension with(String key, String value) {
        overrides.put(key, value);
        return this;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        dataDir = Files.createTempDirectory("krill-compat");
        Map<String, String> props = new HashMap<>();
        props.put("node.id", "1");
        props.put("listeners", "PLAINTEXT://127.0.0.1:0");
        props.put("log.dirs", dataDir.toString());
        props.put("num.io.threads", "2");
        props.put("num.network.threads", "2");
        props.putAll(overrides);
        broker = Broker.start(BrokerConfig.from(props));
    }

    @Override
    public void afterAll(ExtensionContext context) {
        try {
            if (broker != null) {
                broker.close();
            }
        } finally {
            deleteRecursively(dataDir);
        }
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + broker.boundAddresses().get(0).getPort();
    }

    public Broker broker() {
        return broker;
    }

    private static void deleteRecursively(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

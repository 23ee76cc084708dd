package io.krill.broker.testing;

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

/** A broker in this JVM on a free loopback port with its own data folder; close removes both. */
public final class TestBroker implements AutoCloseable {
    private final Path dataDir;
    private final Broker broker;

    private TestBroker(Path dataDir, Broker broker) {
        this.dataDir = dataDir;
        this.broker = broker;
    }

    public static TestBroker start(Map<String, String> overrides) throws Exception {
        Path dir = Files.createTempDirectory("krill-broker-test");
        Map<String, String> props = new HashMap<>();
        props.put("node.id", "1");
        props.put("listeners", "PLAINTEXT://127.0.0.1:0");
        props.put("log.dirs", dir.toString());
        props.put("num.io.threads", "2");
        props.put("num.network.threads", "2");
        props.putAll(overrides);
        return new TestBroker(dir, Broker.start(BrokerConfig.from(props)));
    }

    public int port() {
        return broker.boundAddresses().get(0).getPort();
    }

    public Broker broker() {
        return broker;
    }

    @Override
    public void close() {
        try {
            broker.close();
        } finally {
            try (Stream<Path> paths = Files.walk(dataDir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}

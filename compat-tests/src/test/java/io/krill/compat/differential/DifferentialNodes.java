package io.krill.compat.differential;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * The two brokers under comparison, started once for every differential test class of the run: the
 * first class that needs them starts them (Kafka 4.4 in its own JVM while Krill starts in-process), and
 * they are stopped when the whole run ends (a resource of the root context's store), after the
 * {@link Coverage} report is written. Starting a Kafka node costs seconds; sharing it keeps the run short,
 * and every sequence uses topics and groups of its own so that sequences do not depend on each other.
 * Kafka's node has {@link DiscardingTelemetryReporter}, without which it would not serve client telemetry.
 *
 * <p>Register with {@code @ExtendWith(DifferentialNodes.class)} (done by {@link DifferentialTest}). A failed
 * test gets both brokers' recent logs attached.
 *
 * <p>Thread-safety: JUnit calls the callbacks on one thread; the started nodes are published through a
 * volatile field and never change afterwards.
 */
public final class DifferentialNodes implements BeforeAllCallback, TestExecutionExceptionHandler {
    private static final String STORE_KEY = DifferentialNodes.class.getName();

    private static volatile Nodes nodes;

    /** Both brokers and what the comparison sends them; the same object for the whole run. */
    record Nodes(NodePair started, BrokerSide kafka, BrokerSide krill) implements ExtensionContext.Store.CloseableResource {
        RequestVersions versions() {
            return started.versions;
        }

        Sequence.Pair pair() {
            return new Sequence.Pair(kafka, krill, started.versions);
        }

        @Override
        public void close() {
            try {
                Coverage.INSTANCE.writeReport();
            } finally {
                started.stop();
            }
        }
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        ExtensionContext root = context.getRoot();
        nodes = root.getStore(ExtensionContext.Namespace.GLOBAL).getOrComputeIfAbsent(STORE_KEY,
                key -> start(root), Nodes.class);
    }

    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable throwable) throws Throwable {
        Nodes started = nodes;
        if (started != null) {
            started.started().attachLogs(context, throwable);
        }
        throw throwable;
    }

    /** The started nodes; only valid once a class registered with this extension has begun. */
    static Nodes nodes() {
        Nodes started = nodes;
        if (started == null) {
            throw new IllegalStateException("the differential nodes are not started: extend DifferentialTest");
        }
        return started;
    }

    private static Nodes start(ExtensionContext root) {
        NodePair pair = NodePair.start(root, new KafkaKraftProcess("PLAINTEXT",
                DiscardingTelemetryReporter.CONFIG, List.of(DiscardingTelemetryReporter.class)),
                NodePair.singleNodeKrill(), "the differential nodes");
        try {
            BrokerSide kafka = new BrokerSide(new ConformanceClient("kafka", pair.kafka.host(), pair.kafka.port()),
                    pair.versions);
            BrokerSide krill = new BrokerSide(new ConformanceClient("krill", "127.0.0.1", pair.krill.port()),
                    pair.versions);
            // Configured alike: the cluster-wide dynamic configs Kafka starts with are given to Krill too.
            Map<String, String> defaults = kafka.clusterDefaults();
            krill.setClusterDefaults(defaults);
            System.out.println("differential conformance, cluster defaults copied from Kafka to Krill: " + defaults);
            System.out.println("differential conformance, version ranges compared: " + pair.versions);
            System.out.println("allow-list:\n  " + String.join("\n  ",
                    AllowList.DEFAULT.entries().stream().map(AllowList.Entry::toString).toList()));
            return new Nodes(pair, kafka, krill);
        } catch (RuntimeException | Error e) {
            pair.stop();
            throw e;
        }
    }
}

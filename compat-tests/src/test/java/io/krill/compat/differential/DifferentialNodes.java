package io.krill.compat.differential;

import io.krill.compat.KrillBrokerExtension;
import io.krill.compat.support.BrokerApis;
import java.time.Duration;
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
 *
 * <p>Register with {@code @ExtendWith(DifferentialNodes.class)} (done by {@link DifferentialTest}). A failed
 * test gets both brokers' recent logs attached.
 *
 * <p>Thread-safety: JUnit calls the callbacks on one thread; the started nodes are published through a
 * volatile field and never change afterwards.
 */
public final class DifferentialNodes implements BeforeAllCallback, TestExecutionExceptionHandler {
    private static final Duration KAFKA_START_TIMEOUT = Duration.ofSeconds(120);
    private static final String STORE_KEY = DifferentialNodes.class.getName();

    private static volatile Nodes nodes;

    /** Both brokers and what the comparison sends them; the same object for the whole run. */
    record Nodes(KafkaKraftProcess kafkaProcess, KrillBrokerExtension krillBroker, BrokerSide kafka,
                 BrokerSide krill, RequestVersions versions) implements ExtensionContext.Store.CloseableResource {
        Sequence.Pair pair() {
            return new Sequence.Pair(kafka, krill, versions);
        }

        @Override
        public void close() {
            try {
                Coverage.INSTANCE.writeReport();
            } finally {
                try {
                    krillBroker.afterAll(null);
                } finally {
                    kafkaProcess.afterAll(null);
                }
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
            try {
                started.kafkaProcess().handleTestExecutionException(context, throwable);
            } catch (Throwable same) {
                // the same throwable, now carrying Kafka's log
            }
            try {
                started.krillBroker().handleTestExecutionException(context, throwable);
            } catch (Throwable same) {
                // the same throwable, now carrying Krill's log
            }
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
        KafkaKraftProcess kafkaProcess = new KafkaKraftProcess();
        // Configured as KafkaKraftProcess configures Kafka where it matters to a single node.
        KrillBrokerExtension krillBroker = new KrillBrokerExtension()
                .with("offsets.topic.replication.factor", "1")
                .with("offsets.topic.num.partitions", "1")
                .with("transaction.state.log.replication.factor", "1")
                .with("transaction.state.log.min.isr", "1")
                .with("transaction.state.log.num.partitions", "1")
                .with("group.initial.rebalance.delay.ms", "0");
        try {
            kafkaProcess.beforeAll(root);
            krillBroker.beforeAll(root);
            kafkaProcess.awaitReady(KAFKA_START_TIMEOUT);
            RequestVersions versions = RequestVersions.negotiate(
                    BrokerApis.probe(kafkaProcess.host(), kafkaProcess.port()), krillBroker.apis());
            BrokerSide kafka = new BrokerSide(new ConformanceClient("kafka", kafkaProcess.host(), kafkaProcess.port()),
                    versions);
            BrokerSide krill = new BrokerSide(new ConformanceClient("krill", "127.0.0.1", krillBroker.port()),
                    versions);
            // Configured alike: the cluster-wide dynamic configs Kafka starts with are given to Krill too.
            Map<String, String> defaults = kafka.clusterDefaults();
            krill.setClusterDefaults(defaults);
            System.out.println("differential conformance, cluster defaults copied from Kafka to Krill: " + defaults);
            System.out.println("differential conformance, version ranges compared: " + versions);
            System.out.println("allow-list:\n  " + String.join("\n  ",
                    AllowList.DEFAULT.entries().stream().map(AllowList.Entry::toString).toList()));
            return new Nodes(kafkaProcess, krillBroker, kafka, krill, versions);
        } catch (Throwable t) {
            try {
                krillBroker.afterAll(root);
            } finally {
                kafkaProcess.afterAll(root);
            }
            throw t instanceof RuntimeException r ? r : new IllegalStateException("the differential nodes did not start", t);
        }
    }
}

package io.krill.compat.differential;

import java.time.Duration;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * A third pair of single nodes, of one test class, whose topic {@value #TOPIC} has records of two leader
 * epochs: three records at its first epoch, then each broker restarted (which gives the partition a new
 * leader epoch on both), then two records at the new epoch. One node never elects a leader otherwise, so
 * the shared pairs ({@link DifferentialNodes}, {@link SecureNodes}) cannot show a stale epoch; restarting
 * them would disturb every other class. Kafka is killed and relaunched on its ports and log dir
 * ({@link KafkaKraftProcess#relaunch}), Krill closed and started again on its port and data folder
 * ({@link io.krill.compat.KrillBrokerExtension#restart}). Register with {@code @RegisterExtension static};
 * the pair is stopped, its folders deleted, after the class.
 *
 * <p>Thread-safety: JUnit calls the callbacks on one thread; the started pair is published before any
 * test runs and never changes afterwards.
 */
final class RestartedNodes implements BeforeAllCallback, AfterAllCallback, TestExecutionExceptionHandler {
    /** The topic with records of two leader epochs: offsets 0-2 at the first, 3-4 at the second. */
    static final String TOPIC = "diff-epochs";
    static final int FIRST_EPOCH_RECORDS = 3;
    static final int SECOND_EPOCH_RECORDS = 2;
    private static final Duration RESTART_TIMEOUT = Duration.ofSeconds(120);

    private NodePair started;
    private Sequence.Pair pair;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        started = NodePair.start(context.getRoot(), new KafkaKraftProcess(), NodePair.singleNodeKrill(),
                "the restarted nodes");
        BrokerSide kafka = new BrokerSide(new ConformanceClient("kafka-restarted", started.kafka.host(),
                started.kafka.port()), started.versions);
        BrokerSide krill = new BrokerSide(new ConformanceClient("krill-restarted", "127.0.0.1",
                started.krill.port()), started.versions);
        krill.setClusterDefaults(kafka.clusterDefaults());
        for (BrokerSide side : new BrokerSide[] {kafka, krill}) {
            side.createTopic(TOPIC, 1);
            side.produce(TOPIC, 0, FIRST_EPOCH_RECORDS);
        }
        started.kafka.relaunch();
        started.krill.restart(); // while Kafka's JVM starts
        started.kafka.awaitReady(RESTART_TIMEOUT);
        for (BrokerSide side : new BrokerSide[] {kafka, krill}) {
            side.awaitNewLeaderEpochs(TOPIC);
            side.produce(TOPIC, 0, SECOND_EPOCH_RECORDS);
        }
        System.out.println("restarted nodes: leader epoch of " + TOPIC + "-0 is " + kafka.leaderEpoch(TOPIC, 0)
                + " on Kafka, " + krill.leaderEpoch(TOPIC, 0) + " on Krill");
        pair = new Sequence.Pair(kafka, krill, started.versions);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (started != null) {
            started.stop();
        }
    }

    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable throwable) throws Throwable {
        if (started != null) {
            started.attachLogs(context, throwable);
        }
        throw throwable;
    }

    /** The pair sequences run on ({@link Sequence#on}). */
    Sequence.Pair pair() {
        return pair;
    }
}

package io.krill.compat.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A killed broker's leaderships move before its ZooKeeper session expires, and a paused one's do not.
 * Sessions here last 30 s: a kill -9 closes the broker's sockets, the active controller's idle
 * connection to it sees that and a new connection is refused, so its partitions are led by other ISR
 * members within seconds while the Admin client still lists it (its session lives on). A SIGSTOP'd
 * broker still accepts connections (the kernel does that), so it keeps its leaderships until it
 * resumes: a slow broker is not a dead one.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class CrashDetectionTest {
    private static final int SESSION_MS = 30_000;
    private static final String TOPIC = "crash-detection";
    private static final int PARTITIONS = 12;

    @RegisterExtension
    static final KrillClusterExtension CLUSTER = new KrillClusterExtension(3)
            .with("zookeeper.session.timeout.ms", Integer.toString(SESSION_MS))
            .with("replica.lag.time.max.ms", "60000"); // a paused follower stays in the ISR meanwhile

    @Test
    void aKilledBrokerIsReplacedBeforeItsSessionExpiresAndAPausedOneIsNot() throws Exception {
        KrillCluster cluster = CLUSTER.cluster();
        cluster.createTopic(TOPIC, PARTITIONS, 3, Map.of("min.insync.replicas", "2"));
        int controller = cluster.admin().describeCluster().controller().get(30, TimeUnit.SECONDS).id();
        int paused = cluster.brokerIds().stream().filter(id -> id != controller).findFirst().orElseThrow();
        int killed = cluster.brokerIds().stream().filter(id -> id != controller && id != paused).findFirst()
                .orElseThrow();
        await().atMost(Duration.ofSeconds(60)).until(() -> ledBy(cluster, paused) > 0 && ledBy(cluster, killed) > 0);

        // Paused for 5 s, far less than the session: nothing moves.
        long pausedLeads = ledBy(cluster, paused);
        cluster.pause(paused);
        try {
            await().during(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(20))
                    .until(() -> ledBy(cluster, paused) == pausedLeads);
        } finally {
            cluster.resume(paused);
        }

        long killedAt = System.nanoTime();
        cluster.kill9(killed);
        await("partitions led by broker " + killed + " move to another ISR member")
                .atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                .until(() -> cluster.describe(TOPIC).partitions().stream().allMatch(p -> p.leader() != null
                        && !p.leader().isEmpty() && p.leader().id() != killed
                        && p.isr().stream().noneMatch(n -> n.id() == killed)));
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
        Set<Integer> listed = cluster.admin().describeCluster().nodes().get(30, TimeUnit.SECONDS).stream()
                .map(Node::id).collect(Collectors.toSet());
        assertTrue(listed.contains(killed), "broker " + killed + " is still live in ZooKeeper (" + listed
                + "), so its session had not expired: the moves after " + tookMs + " ms came from crash detection");

        cluster.start(killed);
        cluster.awaitFullIsr(TOPIC);
    }

    private static long ledBy(KrillCluster cluster, int broker) {
        return cluster.describe(TOPIC).partitions().stream().map(TopicPartitionInfo::leader)
                .filter(n -> n != null && n.id() == broker).count();
    }
}

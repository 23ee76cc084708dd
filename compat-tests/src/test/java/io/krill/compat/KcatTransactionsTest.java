package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.krill.compat.support.Clients;
import io.krill.compat.support.IsolatedRead;
import io.krill.compat.support.Processes;
import io.krill.compat.support.RunningProcess;
import io.krill.compat.support.TransactionApis;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * kcat's transactional producer (-X transactional.id: all of its input in one transaction, committed at
 * the end of input, aborted on SIGTERM) and its consumer's read_committed isolation (librdkafka's
 * default), judged by the stock Java consumer. Skipped only without kcat; a broker that does not advertise the
 * transaction APIs fails it.
 */
class KcatTransactionsTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension()
            .with("num.partitions", "1")
            .with("offsets.topic.num.partitions", "3")
            .with("transaction.state.log.num.partitions", "3");

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @BeforeAll
    static void kcatInstalled() {
        assumeTrue(Processes.onPath("kcat"), "kcat is not on the PATH (apt-get install kcat)");
    }

    /** Per test: each one fails, naming the missing APIs, if the broker does not advertise transactions. */
    @BeforeEach
    void transactionsAdvertised() {
        TransactionApis.assertServed(KRILL.apis());
    }

    @Test
    void inputCommittedAtItsEndAndReadCommittedByBothClients() {
        String topic = "kcat-txn-commit";
        List<String> values = IntStream.range(0, 20).mapToObj(i -> "v" + i).toList();
        Processes.Result produced = Processes.run(producer(topic, "kcat-txn-commit-id"),
                String.join("\n", values) + "\n", TIMEOUT).assertSuccess();
        assertTrue(produced.err().contains("Transaction successfully committed"), produced.describe());

        assertEquals(values, javaRead(topic, "read_committed"));
        Processes.Result consumed = Processes.run(consumer(topic, "read_committed"), "", TIMEOUT).assertSuccess();
        assertEquals(values, consumed.outLines(), consumed.describe());
        // 20 records and the commit marker.
        assertEquals(21L, Clients.endOffsets(KRILL.bootstrapServers(), topic, 1).get(0));
    }

    @Test
    void sigtermAbortsTheOpenTransaction() {
        String topic = "kcat-txn-abort";
        Clients.autoCreate(KRILL.bootstrapServers(), topic);
        List<String> open = IntStream.range(0, 5).mapToObj(KcatTransactionsTest::line1024).toList();
        try (RunningProcess kcat = RunningProcess.start(producer(topic, "kcat-txn-abort-id"))) {
            open.forEach(kcat::send);
            RunningProcess.waitFor("the open transaction's records in the log", TIMEOUT,
                    () -> javaRead(topic, "read_uncommitted").size() == 5, kcat);
            assertEquals(List.of(), javaRead(topic, "read_committed"), "an open transaction is not read_committed");
            // SIGTERM, then the end of input (kcat's read of its input restarts after the signal).
            kcat.terminate();
            kcat.closeInput();
            assertEquals(0, kcat.awaitExit(TIMEOUT), kcat.describe());
            assertTrue(kcat.err().contains("Aborting transaction due to termination signal"), kcat.describe());
        }
        // The abort marker follows the five records; read_committed consumers skip them and reach the end.
        RunningProcess.waitFor("the abort marker", TIMEOUT,
                () -> Clients.endOffsets(KRILL.bootstrapServers(), topic, 1).get(0) == 6L);
        assertEquals(List.of(), javaRead(topic, "read_committed"));
        Processes.Result committed = Processes.run(consumer(topic, "read_committed"), "", TIMEOUT).assertSuccess();
        assertEquals(List.of(), committed.outLines(), committed.describe());
        Processes.Result uncommitted = Processes.run(consumer(topic, "read_uncommitted"), "", TIMEOUT)
                .assertSuccess();
        assertEquals(open, uncommitted.outLines(), uncommitted.describe());
    }

    /**
     * A value that makes a line of exactly 1024 bytes with its newline. kcat 1.7 reads its input in blocks
     * (waiting until a block is full or the input ends) and splits lines out of them; lines of this size
     * are produced as soon as they are written, shorter ones only once enough input has come.
     */
    private static String line1024(int i) {
        String prefix = "open-" + i + "-";
        return prefix + "x".repeat(1023 - prefix.length());
    }

    private static List<String> producer(String topic, String transactionalId) {
        return List.of("kcat", "-b", KRILL.bootstrapServers(), "-P", "-t", topic, "-p", "0",
                "-X", "transactional.id=" + transactionalId, "-X", "linger.ms=5", "-X", "socket.timeout.ms=20000");
    }

    private static List<String> consumer(String topic, String isolation) {
        return List.of("kcat", "-b", KRILL.bootstrapServers(), "-C", "-t", topic, "-p", "0", "-o", "beginning",
                "-e", "-f", "%s\\n", "-X", "isolation.level=" + isolation, "-X", "socket.timeout.ms=20000");
    }

    private static List<String> javaRead(String topic, String isolation) {
        return IsolatedRead.values(KRILL.bootstrapServers(), topic, 0, isolation);
    }
}

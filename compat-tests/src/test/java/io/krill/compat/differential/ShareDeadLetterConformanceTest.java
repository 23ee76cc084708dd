package io.krill.compat.differential;

import static io.krill.compat.support.DeadLetters.EXCEEDED;
import static io.krill.compat.support.DeadLetters.GROUP_COPY_RECORD;
import static io.krill.compat.support.DeadLetters.GROUP_TOPIC_NAME;
import static io.krill.compat.support.DeadLetters.REJECTED;
import static io.krill.compat.support.DeadLetters.TOPIC_GROUP_ENABLE;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.krill.compat.support.DeadLetters;
import io.krill.compat.support.DeadLetters.Letter;
import io.krill.compat.support.DeadLetters.Source;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Share-group dead-letter queues (KIP-1191) compared between Kafka 4.4 and Krill: unlike the other
 * differential classes, not one request and its answer but what the stock 4.4 clients see after a scenario
 * run against each side's bootstrap address. The same topics, groups and records on both; a share consumer
 * rejects some records, releases one until its delivery limit and accepts the rest; the letters read back
 * from the DLQ topics (partition, headers in order with their values, key and value; not their timestamps
 * or offsets, which are each broker's) must be the same. Kafka's letters are checked against what is
 * expected first, so that the comparison is not one of two empty topics.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ShareDeadLetterConformanceTest extends DifferentialTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Duration SETTLE = Duration.ofMillis(1000);
    private static final String TOPIC = "diff-dlq-source";
    private static final String PLAIN_GROUP = "diff-dlq-plain";
    private static final String COPY_GROUP = "diff-dlq-copy";
    private static final String PLAIN_DLQ = "dlq.diff-dlq-plain";
    private static final String COPY_DLQ = "dlq.diff-dlq-copy";

    private static String bootstrap(BrokerSide side) {
        NodePair pair = DifferentialNodes.nodes().started();
        return side == kafka() ? pair.kafka.bootstrapServers() : pair.krill.bootstrapServers();
    }

    /** The letters {@code side} wrote to each DLQ topic, once the expected ones came (or the wait ended). */
    private record Outcome(List<Letter> plain, List<Letter> copied) {
    }

    @Test
    void rejectedAndExceededRecordsAreWrittenAlike() throws Exception {
        Outcome kafka = run(kafka());
        assertEquals(expectedPlain(), kafka.plain(), "Kafka 4.4's letters without copy.record (the reference)");
        assertEquals(expectedCopied(), kafka.copied(), "Kafka 4.4's letters with copy.record (the reference)");
        Outcome krill = run(krill());
        assertEquals(kafka.plain(), krill.plain(), "letters of the group without copy.record: Kafka 4.4 vs Krill");
        assertEquals(kafka.copied(), krill.copied(), "letters of the group with copy.record: Kafka 4.4 vs Krill");
    }

    /**
     * Source: 3 partitions of 4 records each (with headers, and a null key at offset 2); per partition,
     * offset 1 rejected, offset 3 released at both its deliveries (limit 2), 0 and 2 accepted. Each group
     * has a DLQ topic of 2 partitions.
     */
    private static Outcome run(BrokerSide side) throws Exception {
        String bootstrap = bootstrap(side);
        DeadLetters.createTopic(bootstrap, TOPIC, 3, Map.of());
        DeadLetters.createTopic(bootstrap, PLAIN_DLQ, 2, Map.of(TOPIC_GROUP_ENABLE, "true"));
        DeadLetters.createTopic(bootstrap, COPY_DLQ, 2, Map.of(TOPIC_GROUP_ENABLE, "true"));
        DeadLetters.groupConfigs(bootstrap, PLAIN_GROUP, Map.of("share.auto.offset.reset", "earliest",
                GROUP_TOPIC_NAME, PLAIN_DLQ, "share.delivery.count.limit", "2"));
        DeadLetters.groupConfigs(bootstrap, COPY_GROUP, Map.of("share.auto.offset.reset", "earliest",
                GROUP_TOPIC_NAME, COPY_DLQ, GROUP_COPY_RECORD, "true", "share.delivery.count.limit", "2"));
        List<Source> sources = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
            for (int i = 0; i < 4; i++) {
                sources.add(new Source(p, i == 2 ? null : key(p, i), value(p, i),
                        List.of(Map.entry("origin", "h-" + p + "-" + i))));
            }
        }
        DeadLetters.produce(bootstrap, TOPIC, sources);
        for (String group : List.of(PLAIN_GROUP, COPY_GROUP)) {
            DeadLetters.shareConsume(bootstrap, group, TOPIC, 12, 2, (r, count) -> switch ((int) r.offset()) {
                case 1 -> AcknowledgeType.REJECT;
                case 3 -> AcknowledgeType.RELEASE;
                default -> AcknowledgeType.ACCEPT;
            }, WAIT);
        }
        List<Letter> plain = DeadLetters.readAtLeast(bootstrap, PLAIN_DLQ, expectedPlain(), WAIT, SETTLE);
        List<Letter> copied = DeadLetters.readAtLeast(bootstrap, COPY_DLQ, expectedCopied(), WAIT, SETTLE);
        return new Outcome(plain, copied);
    }

    private static String key(int p, int i) {
        return "k-" + p + "-" + i;
    }

    private static String value(int p, int i) {
        return "v-" + p + "-" + i;
    }

    private static List<Letter> expectedPlain() {
        return expected(PLAIN_GROUP, false);
    }

    private static List<Letter> expectedCopied() {
        return expected(COPY_GROUP, true);
    }

    private static List<Letter> expected(String group, boolean copy) {
        List<Letter> letters = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
            letters.add(Letter.expected(2, TOPIC, p, 1, group, 1, REJECTED, copy ? key(p, 1) : null,
                    copy ? value(p, 1) : null));
            letters.add(Letter.expected(2, TOPIC, p, 3, group, 2, EXCEEDED, copy ? key(p, 3) : null,
                    copy ? value(p, 3) : null));
        }
        letters.sort(DeadLetters.ORDER);
        return letters;
    }
}

package io.krill.compat.differential;

import io.krill.wire.message.ApiKeys;
import java.util.UUID;
import java.util.function.Consumer;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What every differential test class shares: the two brokers ({@link DifferentialNodes}, started once for
 * the run), set-up on both sides, and {@link Sequence}s to compare. Each subclass is one API family; its
 * tests are sequences, each with topics, groups and ids of its own so that they do not depend on their
 * order.
 *
 * <p>Where Krill really differs, the sequence stays strict and is {@code @Disabled("KNOWN DIFFERENCE: ...")}
 * with the diff in its reason, until Krill is fixed.
 */
@ExtendWith(DifferentialNodes.class)
abstract class DifferentialTest {
    /** A topic id neither cluster has: the same bytes to both sides. */
    static final UUID UNKNOWN_TOPIC_ID = UUID.fromString("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0");

    static BrokerSide kafka() {
        return DifferentialNodes.nodes().kafka();
    }

    static BrokerSide krill() {
        return DifferentialNodes.nodes().krill();
    }

    /** Runs {@code setUp} on Kafka, then on Krill. */
    static void both(Consumer<BrokerSide> setUp) {
        setUp.accept(kafka());
        setUp.accept(krill());
    }

    static Sequence sequence(String title, ApiKeys api) {
        return Sequence.of(title, api);
    }

    /** The highest version of {@code api} compared (the one a 4.4 client sends). */
    static short highest(ApiKeys api) {
        return DifferentialNodes.nodes().versions().of(api);
    }
}

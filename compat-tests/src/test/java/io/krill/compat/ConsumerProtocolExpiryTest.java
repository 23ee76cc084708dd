package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Properties;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * KIP-848: the session timeout is the broker's ({@code group.consumer.session.timeout.ms}); a static
 * member that goes away without leaving keeps its partitions until then, and they go to the survivor after.
 */
class ConsumerProtocolExpiryTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension()
            .with("num.partitions", "6")
            .with("group.initial.rebalance.delay.ms", "0")
            .with("group.consumer.session.timeout.ms", "6000")
            .with("group.consumer.min.session.timeout.ms", "1000")
            .with("group.consumer.heartbeat.interval.ms", "500")
            .with("group.consumer.min.heartbeat.interval.ms", "100");

    @Test
    void memberThatStopsWithoutLeavingIsFencedAfterTheSessionTimeout() throws Exception {
        String topic = "kip848-expiry";
        String group = "kip848-expiry-group";
        ConsumerGroupTest.produce(KRILL.bootstrapServers(), topic, 0, 1);
        Consumer<Properties> consumerProtocol = props -> props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        ConsumerGroupTest.PollingConsumer survivor =
                new ConsumerGroupTest.PollingConsumer(KRILL.bootstrapServers(), group, topic, consumerProtocol);
        // A static member (KIP-848 epoch -2 on close): the broker keeps its partitions for it until the
        // session timeout, then gives them away. (A dynamic member always leaves on close.)
        ConsumerGroupTest.PollingConsumer victim = new ConsumerGroupTest.PollingConsumer(KRILL.bootstrapServers(), group,
                topic, consumerProtocol.andThen(props -> props.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "victim")));
        try {
            ConsumerGroupTest.awaitAssignments(List.of(survivor, victim), 3, 3);
            long stopped = System.nanoTime();
            victim.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP));
            ConsumerGroupTest.await(() -> survivor.assignment().size() == 6, "the survivor takes over every partition");
            long tookMs = (System.nanoTime() - stopped) / 1_000_000;
            assertTrue(tookMs >= 4000, "removed by session expiry, not by a leave (" + tookMs + " ms)");
        } finally {
            victim.close();
            survivor.close();
        }
    }

    @Test
    void staticMemberComingBackWithinTheSessionTimeoutKeepsItsPartitions() throws Exception {
        String topic = "kip848-static";
        String group = "kip848-static-group";
        ConsumerGroupTest.produce(KRILL.bootstrapServers(), topic, 0, 1);
        Consumer<Properties> asStatic = props -> {
            props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
            props.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "returning");
        };
        Consumer<Properties> dynamic = props -> props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        ConsumerGroupTest.PollingConsumer other =
                new ConsumerGroupTest.PollingConsumer(KRILL.bootstrapServers(), group, topic, dynamic);
        ConsumerGroupTest.PollingConsumer first =
                new ConsumerGroupTest.PollingConsumer(KRILL.bootstrapServers(), group, topic, asStatic);
        ConsumerGroupTest.PollingConsumer second = null;
        try {
            ConsumerGroupTest.awaitAssignments(List.of(other, first), 3, 3);
            java.util.Set<org.apache.kafka.common.TopicPartition> owned = first.assignment();
            java.util.Set<org.apache.kafka.common.TopicPartition> othersBefore = other.assignment();
            first.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP));
            second = new ConsumerGroupTest.PollingConsumer(KRILL.bootstrapServers(), group, topic, asStatic);
            ConsumerGroupTest.PollingConsumer restarted = second;
            ConsumerGroupTest.await(() -> restarted.assignment().equals(owned), "the instance gets its partitions back");
            org.junit.jupiter.api.Assertions.assertEquals(othersBefore, other.assignment(), "nothing moved meanwhile");
        } finally {
            if (second != null) {
                second.close();
            }
            first.close();
            other.close();
        }
    }
}

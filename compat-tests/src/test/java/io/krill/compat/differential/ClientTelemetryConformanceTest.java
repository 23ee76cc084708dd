package io.krill.compat.differential;

import static io.krill.compat.differential.TelemetryRequests.APPEND;
import static io.krill.compat.differential.TelemetryRequests.BROKER;
import static io.krill.compat.differential.TelemetryRequests.BROKER_LOGGER;
import static io.krill.compat.differential.TelemetryRequests.CLIENT_METRICS;
import static io.krill.compat.differential.TelemetryRequests.GROUP;
import static io.krill.compat.differential.TelemetryRequests.NO_COMPRESSION;
import static io.krill.compat.differential.TelemetryRequests.SUBTRACT;
import static io.krill.compat.differential.TelemetryRequests.TOPIC;

import io.krill.compat.differential.TelemetryRequests.Op;
import io.krill.wire.message.ApiKeys;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.GetTelemetrySubscriptionsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * Client telemetry (KIP-714): client metrics subscriptions (ConfigResource CLIENT_METRICS) set, refused,
 * described and deleted; ListConfigResources with and without type filters; GetTelemetrySubscriptions with
 * no matching subscription, a matching one, one for all metrics, a zero instance id (the broker assigns one)
 * and again; PushTelemetry's error paths. Every request is on a connection of its own, and Kafka 4.4
 * forgets a client instance when the connection that created it closes. Kafka serves the telemetry APIs through
 * {@link DiscardingTelemetryReporter}.
 *
 * <p>Every subscription selects only instance ids of this class ({@link TelemetryRequests#instanceId}) or a
 * client id no client has, so that no other client of the nodes is subscribed. Each sequence uses instance ids
 * of its own (a client may pick one), which makes the answers, subscription ids included, the same on both
 * sides; only a broker-assigned id and the subscription id hashed from it are named or masked.
 */
class ClientTelemetryConformanceTest extends DifferentialTest {
    private static final String NOBODY = "client_id=diff-cm-nobody";
    private static final int MAX_BYTES = 1024 * 1024;
    private static final long CLOSE_SEEN_MS = 300;

    @Test
    void setDescribeAppendAndDeleteASubscription() {
        sequence("IncrementalAlterConfigs of a new subscription", ApiKeys.INCREMENTAL_ALTER_CONFIGS)
                .request((side, version) -> TelemetryRequests.subscribe("diff-cm-set-v" + version,
                        "org.apache.kafka.producer., org.apache.kafka.consumer.", 1000, NOBODY))
                .expect("/responses/0/errorCode", Errors.NONE)
                .run();
        sequence("DescribeConfigs of a subscription", ApiKeys.DESCRIBE_CONFIGS)
                .from(3)
                .request((side, version) -> TelemetryRequests.describeSubscription(
                        "diff-cm-set-v" + highest(ApiKeys.INCREMENTAL_ALTER_CONFIGS)))
                .unordered("/results/0/configs", "name")
                .expect("/results/0/errorCode", Errors.NONE)
                .run();
        short alterAt = highest(ApiKeys.INCREMENTAL_ALTER_CONFIGS);
        String name = "diff-cm-set-v" + alterAt;
        sequence("IncrementalAlterConfigs APPEND to metrics (no LIST type known)", ApiKeys.INCREMENTAL_ALTER_CONFIGS)
                .from(alterAt)
                .request((side, version) -> TelemetryRequests.alterSubscription(name, false,
                        new Op(APPEND, "metrics", "org.apache.kafka.admin.")))
                .expect("/responses/0/errorCode", Errors.INVALID_CONFIG)
                .run();
        sequence("IncrementalAlterConfigs SUBTRACT from metrics (no LIST type known)",
                ApiKeys.INCREMENTAL_ALTER_CONFIGS)
                .from(alterAt)
                .request((side, version) -> TelemetryRequests.alterSubscription(name, false,
                        new Op(SUBTRACT, "metrics", "org.apache.kafka.consumer.")))
                .expect("/responses/0/errorCode", Errors.INVALID_CONFIG)
                .run();
        sequence("IncrementalAlterConfigs with metrics twice", ApiKeys.INCREMENTAL_ALTER_CONFIGS)
                .from(alterAt)
                .request((side, version) -> TelemetryRequests.alterSubscription(name, false,
                        new Op(APPEND, "metrics", "org.apache.kafka.a."), new Op(SUBTRACT, "metrics", "org.apache.")))
                .expect("/responses/0/errorCode", Errors.INVALID_REQUEST)
                .run();
        sequence("IncrementalAlterConfigs DELETE interval.ms", ApiKeys.INCREMENTAL_ALTER_CONFIGS)
                .from(alterAt)
                .request((side, version) -> TelemetryRequests.alterSubscription(name, false, Op.delete("interval.ms")))
                .expect("/responses/0/errorCode", Errors.NONE)
                .run();
        sequence("DescribeConfigs after the refused APPEND and SUBTRACT and a DELETE", ApiKeys.DESCRIBE_CONFIGS)
                .from(3)
                .request((side, version) -> TelemetryRequests.describeSubscription(name))
                .unordered("/results/0/configs", "name")
                .expect("/results/0/errorCode", Errors.NONE)
                .run();
        sequence("IncrementalAlterConfigs DELETE of every key", ApiKeys.INCREMENTAL_ALTER_CONFIGS)
                .from(alterAt)
                .request((side, version) -> TelemetryRequests.alterSubscription(name, false, Op.delete("metrics"),
                        Op.delete("match")))
                .expect("/responses/0/errorCode", Errors.NONE)
                .run();
        sequence("DescribeConfigs of a deleted subscription", ApiKeys.DESCRIBE_CONFIGS)
                .from(3)
                .request((side, version) -> TelemetryRequests.describeSubscription(name))
                .unordered("/results/0/configs", "name")
                .run();
    }

    @Test
    void describeAnUnknownSubscription() {
        sequence("DescribeConfigs of a subscription that was never set", ApiKeys.DESCRIBE_CONFIGS)
                .from(3)
                .request((side, version) -> TelemetryRequests.describeSubscription("diff-cm-unknown"))
                .unordered("/results/0/configs", "name")
                .run();
        sequence("DescribeConfigs of subscription \"\"", ApiKeys.DESCRIBE_CONFIGS)
                .from(3)
                .request((side, version) -> TelemetryRequests.describeSubscription(""))
                .unordered("/results/0/configs", "name")
                .run();
    }

    @Test
    void validateOnlyAndLegacyAlterConfigs() {
        sequence("IncrementalAlterConfigs validate_only of a subscription", ApiKeys.INCREMENTAL_ALTER_CONFIGS)
                .request((side, version) -> TelemetryRequests.alterSubscription("diff-cm-validate", true,
                        Op.set("metrics", "*"), Op.set("match", NOBODY)))
                .expect("/responses/0/errorCode", Errors.NONE)
                .run();
        sequence("DescribeConfigs after validate_only", ApiKeys.DESCRIBE_CONFIGS)
                .from(3)
                .request((side, version) -> TelemetryRequests.describeSubscription("diff-cm-validate"))
                .unordered("/results/0/configs", "name")
                .run();
        sequence("AlterConfigs (legacy) of a subscription", ApiKeys.ALTER_CONFIGS)
                .request((side, version) -> TelemetryRequests.replaceSubscription("diff-cm-legacy-v" + version,
                        Map.of("metrics", "org.apache.kafka.", "interval.ms", "60000", "match", NOBODY)))
                .expect("/responses/0/errorCode", Errors.NONE)
                .run();
        sequence("AlterConfigs (legacy) with an unknown key", ApiKeys.ALTER_CONFIGS)
                .request((side, version) -> TelemetryRequests.replaceSubscription("diff-cm-legacy-bad",
                        Map.of("no.such.key", "1")))
                .expect("/responses/0/errorCode", Errors.INVALID_REQUEST)
                .run();
    }

    @Test
    void invalidAndOddSubscriptions() {
        alter("interval.ms below 100", Errors.INVALID_REQUEST, Op.set("interval.ms", "50"));
        alter("interval.ms above an hour", Errors.INVALID_REQUEST, Op.set("interval.ms", "3600001"));
        alter("interval.ms not a number", Errors.INVALID_CONFIG, Op.set("interval.ms", "often"));
        alter("a metric prefix twice (accepted)", Errors.NONE, Op.set("metrics", "org.apache.,org.apache."));
        alter("a match selector twice (accepted)", Errors.NONE,
                Op.set("match", NOBODY + ",client_id=diff-cm-nobody-either"));
        alter("match without =", Errors.INVALID_CONFIG, Op.set("match", "client_id"));
        alter("match with an unknown selector", Errors.INVALID_CONFIG, Op.set("match", "client_colour=blue"));
        alter("match with a bad regex", Errors.INVALID_CONFIG, Op.set("match", "client_id=diff["));
        alter("an unknown key", Errors.INVALID_REQUEST, Op.set("no.such.key", "1"));
        alter("APPEND to interval.ms", Errors.INVALID_CONFIG, new Op(APPEND, "interval.ms", "1000"));
        alter("APPEND to an unknown key", Errors.INVALID_CONFIG, new Op(APPEND, "no.such.key", "1"));
        sequence("IncrementalAlterConfigs of subscription \"\"", ApiKeys.INCREMENTAL_ALTER_CONFIGS)
                .request((side, version) -> TelemetryRequests.alterSubscription("", false, Op.set("match", NOBODY)))
                .expect("/responses/0/errorCode", Errors.INVALID_REQUEST)
                .run();
    }

    /**
     * IncrementalAlterConfigs of {@code op} on a subscription of its own, with a match no client meets (unless
     * {@code op} sets the match: a key once per request).
     */
    private static void alter(String what, Errors expected, Op op) {
        Op[] ops = op.name().equals("match") ? new Op[] {op} : new Op[] {Op.set("match", NOBODY), op};
        sequence("IncrementalAlterConfigs of a subscription: " + what, ApiKeys.INCREMENTAL_ALTER_CONFIGS)
                .request((side, version) -> TelemetryRequests.alterSubscription("diff-cm-alter", false, ops))
                .expect("/responses/0/errorCode", expected)
                .run();
    }

    @Test
    void listConfigResources() {
        both(side -> {
            side.send(ApiKeys.INCREMENTAL_ALTER_CONFIGS, TelemetryRequests.subscribe("diff-lcr-subscription",
                    "org.apache.kafka.", 5000, NOBODY));
            side.send(ApiKeys.INCREMENTAL_ALTER_CONFIGS, ClientRequests.incrementalAlterGroupConfig("diff-lcr-group",
                    "consumer.session.timeout.ms", "50000", false));
            side.createTopic("diff-lcr-topic", 1);
        });
        sequence("ListConfigResources (v0: the subscriptions)", ApiKeys.LIST_CONFIG_RESOURCES)
                .request((side, version) -> TelemetryRequests.listConfigResources())
                .onlyOwn("/configResources", "resourceName", "diff-lcr-")
                .expect("/errorCode", Errors.NONE)
                .run();
        listOf("CLIENT_METRICS", "diff-lcr-", CLIENT_METRICS);
        listOf("TOPIC", "diff-lcr-", TOPIC);
        listOf("GROUP", "diff-lcr-", GROUP);
        listOf("TOPIC, GROUP and CLIENT_METRICS", "diff-lcr-", TOPIC, GROUP, CLIENT_METRICS);
        listOf("BROKER and BROKER_LOGGER", "", BROKER, BROKER_LOGGER);
        sequence("ListConfigResources of every type", ApiKeys.LIST_CONFIG_RESOURCES)
                .from(1)
                .request((side, version) -> TelemetryRequests.listConfigResources())
                .onlyOwn("/configResources", "resourceName", "diff-lcr-")
                .expect("/errorCode", Errors.NONE)
                .run();
        sequence("ListConfigResources of type UNKNOWN", ApiKeys.LIST_CONFIG_RESOURCES)
                .from(1)
                .request((side, version) -> TelemetryRequests.listConfigResources((byte) 0))
                .expect("/errorCode", Errors.UNSUPPORTED_VERSION)
                .run();
        sequence("ListConfigResources of an undefined type", ApiKeys.LIST_CONFIG_RESOURCES)
                .from(1)
                .request((side, version) -> TelemetryRequests.listConfigResources((byte) 99))
                .expect("/errorCode", Errors.UNSUPPORTED_VERSION)
                .run();
    }

    private static void listOf(String what, String prefix, Byte... types) {
        sequence("ListConfigResources of " + what, ApiKeys.LIST_CONFIG_RESOURCES)
                .from(1)
                .request((side, version) -> TelemetryRequests.listConfigResources(types))
                .onlyOwn("/configResources", "resourceName", prefix)
                .unordered("/configResources", "resourceType")
                .expect("/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void getSubscriptionsWithoutAMatchingSubscription() {
        UUID id = TelemetryRequests.instanceId("unsubscribed");
        sequence("GetTelemetrySubscriptions of a client no subscription matches", ApiKeys.GET_TELEMETRY_SUBSCRIPTIONS)
                .request((side, version) -> TelemetryRequests.getSubscriptions(id))
                .expect("/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void getSubscriptionsWithMatchingSubscriptions() {
        UUID id = TelemetryRequests.instanceId("subscribed");
        both(side -> {
            side.send(ApiKeys.INCREMENTAL_ALTER_CONFIGS, TelemetryRequests.subscribe("diff-tm-producer",
                    "org.apache.kafka.producer.", 2000, TelemetryRequests.matchingOnly(id)));
            side.send(ApiKeys.INCREMENTAL_ALTER_CONFIGS, TelemetryRequests.subscribe("diff-tm-consumer",
                    "org.apache.kafka.consumer.node., org.apache.kafka.producer.", 5000,
                    TelemetryRequests.matchingOnly(id)));
        });
        sequence("GetTelemetrySubscriptions of a client two subscriptions match", ApiKeys.GET_TELEMETRY_SUBSCRIPTIONS)
                .request((side, version) -> TelemetryRequests.getSubscriptions(id))
                .expect("/errorCode", Errors.NONE)
                .run();
        UUID all = TelemetryRequests.instanceId("all-metrics");
        both(side -> side.send(ApiKeys.INCREMENTAL_ALTER_CONFIGS, TelemetryRequests.subscribe("diff-tm-all",
                "*", 3000, TelemetryRequests.matchingOnly(all) + ",client_id=krill-differential")));
        sequence("GetTelemetrySubscriptions of a client subscribed to every metric",
                ApiKeys.GET_TELEMETRY_SUBSCRIPTIONS)
                .request((side, version) -> TelemetryRequests.getSubscriptions(all))
                .expect("/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void getSubscriptionsWithTheZeroInstanceId() {
        sequence("GetTelemetrySubscriptions with the zero instance id", ApiKeys.GET_TELEMETRY_SUBSCRIPTIONS)
                .request((side, version) -> TelemetryRequests.getSubscriptions(new UUID(0, 0)))
                .learn((side, version, response) -> {
                    Uuid assigned = ((GetTelemetrySubscriptionsResponseData) response.data()).clientInstanceId();
                    side.name(assigned.equals(Uuid.ZERO_UUID) ? null : assigned.toString(),
                            "<instance id the broker assigned>");
                })
                .masked("/subscriptionId", "hashed from the assigned instance id")
                .expect("/errorCode", Errors.NONE)
                .run();
    }

    /**
     * A second GetTelemetrySubscriptions right after the first, on a connection of its own: answered in full, as
     * Kafka forgets an instance when the connection that created it closes (on one connection it would be
     * THROTTLING_QUOTA_EXCEEDED; ClientMetricsManagerTest covers that).
     */
    @Test
    void getSubscriptionsAgainOnANewConnection() {
        UUID id = TelemetryRequests.instanceId("get-twice");
        sequence("GetTelemetrySubscriptions again, on a new connection", ApiKeys.GET_TELEMETRY_SUBSCRIPTIONS)
                .setUp((side, version) -> {
                    subscriptionId(side, id);
                    awaitClosed();
                })
                .request((side, version) -> TelemetryRequests.getSubscriptions(id))
                .expect("/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void pushes() {
        push("an empty push after GetTelemetrySubscriptions", "empty", Errors.NONE, 0, false, NO_COMPRESSION, 0);
        push("a push with another subscription id", "other-subscription", Errors.UNKNOWN_SUBSCRIPTION_ID, 1, false,
                NO_COMPRESSION, 0);
        push("a push of an unknown compression type", "compression", Errors.UNSUPPORTED_COMPRESSION_TYPE, 0, false,
                (byte) 9, 10);
        push("a push over telemetry.max.bytes", "too-large", Errors.TELEMETRY_TOO_LARGE, 0, false, NO_COMPRESSION,
                MAX_BYTES + 1);
        push("a terminating push", "terminating", Errors.NONE, 0, true, NO_COMPRESSION, 0);
    }

    /**
     * A push by a client that got its subscription: {@code subscriptionOffset} added to the subscription id it
     * got, {@code size} bytes of metrics (not decoded by either broker before the checks).
     */
    private static void push(String what, String label, Errors expected, int subscriptionOffset, boolean terminating,
                             byte compression, int size) {
        UUID id = TelemetryRequests.instanceId("push-" + label);
        sequence("PushTelemetry: " + what, ApiKeys.PUSH_TELEMETRY)
                .setUp((side, version) -> side.remember("subscription of " + label,
                        Integer.toString(subscriptionId(side, id))))
                .request((side, version) -> TelemetryRequests.push(id,
                        Integer.parseInt(side.remembered("subscription of " + label)) + subscriptionOffset,
                        terminating, compression, new byte[size]))
                .expect("/errorCode", expected)
                .run();
    }

    /**
     * Pushes by instances this connection did not create: never given, zero, or created on a connection now
     * closed (Kafka forgot it, so neither the interval nor a terminating push binds the new connection).
     */
    @Test
    void pushesOutOfTurn() {
        UUID unknown = TelemetryRequests.instanceId("push-unknown");
        sequence("PushTelemetry of an instance id the broker never gave", ApiKeys.PUSH_TELEMETRY)
                .request((side, version) -> TelemetryRequests.push(unknown, 0, false, NO_COMPRESSION, new byte[0]))
                .expect("/errorCode", Errors.UNKNOWN_SUBSCRIPTION_ID)
                .run();
        sequence("PushTelemetry with the zero instance id", ApiKeys.PUSH_TELEMETRY)
                .request((side, version) -> TelemetryRequests.push(new UUID(0, 0), 0, false, NO_COMPRESSION,
                        new byte[0]))
                .expect("/errorCode", Errors.INVALID_REQUEST)
                .run();
        pushAfterAPush("again", "push-twice", false);
        pushAfterAPush("after a terminating push", "push-after-terminating", true);
    }

    /**
     * A push on a new connection after a push ({@code terminating} or not) on the connection that created the
     * instance: both brokers forgot the instance, so neither the push interval nor the end binds the new one.
     */
    private static void pushAfterAPush(String what, String label, boolean terminating) {
        UUID id = TelemetryRequests.instanceId(label);
        sequence("PushTelemetry " + what + ", on a new connection", ApiKeys.PUSH_TELEMETRY)
                .setUp((side, version) -> {
                    int subscription = subscriptionId(side, id);
                    side.remember("subscription of " + label, Integer.toString(subscription));
                    side.send(ApiKeys.PUSH_TELEMETRY, TelemetryRequests.push(id, subscription, terminating,
                            NO_COMPRESSION, new byte[0]));
                    awaitClosed();
                })
                .request((side, version) -> TelemetryRequests.push(id,
                        Integer.parseInt(side.remembered("subscription of " + label)), terminating, NO_COMPRESSION,
                        new byte[0]))
                .expect("/errorCode", Errors.NONE)
                .run();
    }

    /**
     * Gives the broker time to see the set-up's connections closed: both forget an instance when the connection
     * that created it closes, Kafka on its network thread once it notices, after the answer was read (a request
     * on the next connection may come first). No answer tells when that happened, hence a pause.
     */
    private static void awaitClosed() {
        try {
            Thread.sleep(CLOSE_SEEN_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Asks {@code side} for the subscriptions of instance {@code id}; fails unless it answers them. */
    private static int subscriptionId(BrokerSide side, UUID id) {
        GetTelemetrySubscriptionsResponseData got = (GetTelemetrySubscriptionsResponseData) side.send(
                ApiKeys.GET_TELEMETRY_SUBSCRIPTIONS, TelemetryRequests.getSubscriptions(id)).data();
        if (got.errorCode() != Errors.NONE.code()) {
            throw new IllegalStateException(side.name() + ": GetTelemetrySubscriptions of " + id + " answered "
                    + Errors.forCode(got.errorCode()));
        }
        return got.subscriptionId();
    }
}

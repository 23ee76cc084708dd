package io.krill.compat.differential;

import io.krill.wire.message.AlterConfigsRequest;
import io.krill.wire.message.DescribeConfigsRequest;
import io.krill.wire.message.GetTelemetrySubscriptionsRequest;
import io.krill.wire.message.IncrementalAlterConfigsRequest;
import io.krill.wire.message.ListConfigResourcesRequest;
import io.krill.wire.message.PushTelemetryRequest;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.common.Uuid;

/**
 * Client telemetry request bodies (KIP-714) as the 4.4 clients and tools fill them: client metrics
 * subscriptions (ConfigResource CLIENT_METRICS) as kafka-configs {@code --entity-type client-metrics} and
 * kafka-client-metrics send them, ListConfigResources as {@code Admin.listConfigResources}, and the
 * telemetry requests of a client's telemetry reporter.
 *
 * <p>Stateless; thread-safe.
 */
final class TelemetryRequests {
    static final byte TOPIC = ClientRequests.TOPIC_RESOURCE_TYPE;
    static final byte BROKER = ClientRequests.BROKER_RESOURCE_TYPE;
    static final byte BROKER_LOGGER = 8;
    static final byte CLIENT_METRICS = 16;
    static final byte GROUP = ClientRequests.GROUP_RESOURCE_TYPE;
    static final byte SET = 0;
    static final byte DELETE = 1;
    static final byte APPEND = 2;
    static final byte SUBTRACT = 3;
    static final byte NO_COMPRESSION = 0;

    private TelemetryRequests() {
    }

    /** One op of an IncrementalAlterConfigs: {@code op} on {@code name} with {@code value} (null for DELETE). */
    record Op(byte op, String name, String value) {
        static Op set(String name, String value) {
            return new Op(SET, name, value);
        }

        static Op delete(String name) {
            return new Op(DELETE, name, null);
        }
    }

    /** IncrementalAlterConfigs of subscription {@code name}: {@code ops} in order. */
    static IncrementalAlterConfigsRequest alterSubscription(String name, boolean validateOnly, Op... ops) {
        List<IncrementalAlterConfigsRequest.AlterableConfig> configs = new ArrayList<>();
        for (Op op : ops) {
            configs.add(new IncrementalAlterConfigsRequest.AlterableConfig().setName(op.name())
                    .setConfigOperation(op.op()).setValue(op.value()));
        }
        return new IncrementalAlterConfigsRequest().setValidateOnly(validateOnly)
                .setResources(List.of(new IncrementalAlterConfigsRequest.AlterConfigsResource()
                        .setResourceType(CLIENT_METRICS).setResourceName(name).setConfigs(configs)));
    }

    /** A subscription of {@code metrics} every {@code intervalMs} for the clients {@code match} selects. */
    static IncrementalAlterConfigsRequest subscribe(String name, String metrics, int intervalMs, String match) {
        return alterSubscription(name, false, Op.set("metrics", metrics), Op.set("interval.ms",
                Integer.toString(intervalMs)), Op.set("match", match));
    }

    /** AlterConfigs (legacy, the whole set) of subscription {@code name}. */
    static AlterConfigsRequest replaceSubscription(String name, Map<String, String> configs) {
        List<AlterConfigsRequest.AlterableConfig> alterable = new ArrayList<>();
        configs.forEach((key, value) -> alterable.add(new AlterConfigsRequest.AlterableConfig().setName(key)
                .setValue(value)));
        return new AlterConfigsRequest().setValidateOnly(false)
                .setResources(List.of(new AlterConfigsRequest.AlterConfigsResource().setResourceType(CLIENT_METRICS)
                        .setResourceName(name).setConfigs(alterable)));
    }

    /** DescribeConfigs of subscription {@code name}, every key, with synonyms and documentation. */
    static DescribeConfigsRequest describeSubscription(String name) {
        return new DescribeConfigsRequest().setIncludeSynonyms(true).setIncludeDocumentation(true)
                .setResources(List.of(new DescribeConfigsRequest.DescribeConfigsResource()
                        .setResourceType(CLIENT_METRICS).setResourceName(name).setConfigurationKeys(null)));
    }

    /** ListConfigResources of {@code types} (v1+; none: every type the version lists). */
    static ListConfigResourcesRequest listConfigResources(Byte... types) {
        return new ListConfigResourcesRequest().setResourceTypes(List.of(types));
    }

    static GetTelemetrySubscriptionsRequest getSubscriptions(UUID clientInstanceId) {
        return new GetTelemetrySubscriptionsRequest().setClientInstanceId(clientInstanceId);
    }

    static PushTelemetryRequest push(UUID clientInstanceId, int subscriptionId, boolean terminating,
                                     byte compression, byte[] metrics) {
        return new PushTelemetryRequest().setClientInstanceId(clientInstanceId).setSubscriptionId(subscriptionId)
                .setTerminating(terminating).setCompressionType(compression)
                .setMetrics(Unpooled.wrappedBuffer(metrics));
    }

    /** A client instance id of the sequence's own, the same on both sides: a client may pick its id. */
    static UUID instanceId(String label) {
        return UUID.nameUUIDFromBytes(("krill-differential-telemetry-" + label).getBytes(StandardCharsets.UTF_8));
    }

    /** A {@code match} value that selects only the client instance {@code id} (as Kafka prints it). */
    static String matchingOnly(UUID id) {
        return "client_instance_id=" + new Uuid(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }
}

package io.krill.broker.console;

import com.fasterxml.jackson.core.JsonGenerator;
import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import io.krill.log.TopicPartition;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.DescribeConfigsRequest;
import io.krill.wire.message.DescribeConfigsResponse;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * The cluster, topic and record answers of the console API ({@code /console/api/cluster},
 * {@code /topics}, {@code /topics/<name>}, {@code /topics/<name>/records}), filtered by what the
 * request's principal may see.
 *
 * <p>Thread-safety: stateless beyond its collaborators; thread-safe.
 */
final class TopicsApi {
    static final short DESCRIBE_CONFIGS_VERSION = 4;
    private static final String[] CONFIG_SOURCES = {"UNKNOWN", "DYNAMIC_TOPIC", "DYNAMIC_BROKER",
        "DYNAMIC_DEFAULT_BROKER", "STATIC_BROKER", "DEFAULT", "DYNAMIC_BROKER_LOGGER", "CLIENT_METRICS", "GROUP"};

    private final ClusterView cluster;
    private final RecordBrowser browser;
    private final String brokerListener;

    /** @param brokerListener the listener whose address the brokers are shown with */
    TopicsApi(ClusterView cluster, String brokerListener) {
        this.cluster = cluster;
        this.browser = new RecordBrowser(cluster);
        this.brokerListener = brokerListener;
    }

    byte[] cluster(ConsoleAccess access) {
        MetadataImage image = cluster.image();
        List<TopicImage> topics = visibleTopics(image, access);
        return Json.bytes(json -> {
            json.writeStartObject();
            json.writeStringField("clusterId", image.clusterId());
            json.writeNumberField("controllerId", image.controllerId());
            json.writeNumberField("self", cluster.client().nodeId());
            json.writeArrayFieldStart("brokers");
            if (access.cluster()) {
                List<BrokerInfo> brokers = new ArrayList<>(image.brokers());
                brokers.sort(Comparator.comparingInt(BrokerInfo::nodeId));
                for (BrokerInfo broker : brokers) {
                    BrokerInfo.Endpoint endpoint = broker.endpoint(brokerListener);
                    if (endpoint == null && !broker.endpoints().isEmpty()) {
                        endpoint = broker.endpoints().values().iterator().next();
                    }
                    json.writeStartObject();
                    json.writeNumberField("id", broker.nodeId());
                    json.writeStringField("host", endpoint == null ? null : endpoint.host());
                    if (endpoint == null) {
                        json.writeNullField("port");
                    } else {
                        json.writeNumberField("port", endpoint.port());
                    }
                    json.writeStringField("rack", broker.rack());
                    json.writeEndObject();
                }
            }
            json.writeEndArray();
            int partitions = 0;
            int underReplicated = 0;
            int offline = 0;
            for (TopicImage topic : topics) {
                for (PartitionState p : topic.partitions()) {
                    partitions++;
                    underReplicated += underReplicated(p) ? 1 : 0;
                    offline += p.hasLeader() ? 0 : 1;
                }
            }
            json.writeNumberField("topics", topics.size());
            json.writeNumberField("partitions", partitions);
            json.writeNumberField("underReplicatedPartitions", underReplicated);
            json.writeNumberField("offlinePartitions", offline);
            json.writeEndObject();
        });
    }

    byte[] topics(ConsoleAccess access) {
        MetadataImage image = cluster.image();
        List<TopicImage> topics = visibleTopics(image, access);
        PartitionStats stats = cluster.stats();
        return Json.bytes(json -> {
            json.writeStartObject();
            json.writeArrayFieldStart("topics");
            for (TopicImage topic : topics) {
                long size = 0;
                long records = 0;
                int underReplicated = 0;
                for (PartitionState p : topic.partitions()) {
                    TopicPartition tp = new TopicPartition(topic.name(), p.partition());
                    var replicas = stats.sizes().get(tp);
                    if (replicas != null) {
                        for (long s : replicas.values()) {
                            size += s;
                        }
                    }
                    Long start = stats.startOffsets().get(tp);
                    Long end = stats.endOffsets().get(tp);
                    if (start != null && end != null) {
                        records += Math.max(0, end - start);
                    }
                    underReplicated += underReplicated(p) ? 1 : 0;
                }
                json.writeStartObject();
                json.writeStringField("name", topic.name());
                json.writeBooleanField("internal", topic.internal());
                json.writeNumberField("partitions", topic.partitionCount());
                json.writeNumberField("replicationFactor",
                        topic.partitions().isEmpty() ? 0 : topic.partitions().get(0).replicas().size());
                json.writeNumberField("sizeBytes", size);
                json.writeNumberField("records", records);
                json.writeNumberField("underReplicatedPartitions", underReplicated);
                json.writeEndObject();
            }
            json.writeEndArray();
            unavailable(json, stats.unavailable());
            json.writeEndObject();
        });
    }

    byte[] topic(ConsoleAccess access, String name) {
        TopicImage topic = describable(access, name);
        CompletableFuture<List<String[]>> configs = configs(name);
        PartitionStats stats = cluster.stats();
        Answers answers = new Answers(cluster.client().timeoutMs());
        List<String[]> configList = answers.get(cluster.client().nodeId(), configs);
        return Json.bytes(json -> {
            json.writeStartObject();
            json.writeStringField("name", topic.name());
            json.writeBooleanField("internal", topic.internal());
            json.writeStringField("topicId", uuid(topic.id()));
            json.writeArrayFieldStart("configs");
            if (configList != null) {
                for (String[] c : configList) {
                    json.writeStartObject();
                    json.writeStringField("name", c[0]);
                    json.writeStringField("value", c[1]);
                    json.writeStringField("source", c[2]);
                    json.writeEndObject();
                }
            }
            json.writeEndArray();
            json.writeArrayFieldStart("partitions");
            for (PartitionState p : topic.partitions()) {
                TopicPartition tp = new TopicPartition(topic.name(), p.partition());
                json.writeStartObject();
                json.writeNumberField("partition", p.partition());
                json.writeNumberField("leader", p.leader());
                json.writeNumberField("leaderEpoch", p.leaderEpoch());
                Json.intArray(json, "replicas", p.replicas());
                Json.intArray(json, "isr", p.isr());
                List<Integer> offlineReplicas = new ArrayList<>();
                for (int r : p.replicas()) {
                    if (cluster.image().broker(r) == null) {
                        offlineReplicas.add(r);
                    }
                }
                Json.intArray(json, "offlineReplicas", offlineReplicas);
                Json.longOrNull(json, "startOffset", stats.startOffsets().get(tp));
                Json.longOrNull(json, "endOffset", stats.endOffsets().get(tp));
                Json.longOrNull(json, "sizeBytes", p.hasLeader() ? stats.size(tp, p.leader()) : null);
                json.writeEndObject();
            }
            json.writeEndArray();
            if (configList == null) {
                answers.markUnavailable(cluster.client().nodeId());
            }
            java.util.Set<Integer> missing = new java.util.TreeSet<>(stats.unavailable());
            missing.addAll(answers.unavailable());
            unavailable(json, missing);
            json.writeEndObject();
        });
    }

    byte[] records(ConsoleAccess access, RecordBrowser.Query query) {
        describable(access, query.topic());
        if (!access.readTopic(query.topic())) {
            throw ConsoleException.forbidden(Errors.TOPIC_AUTHORIZATION_FAILED,
                    "not authorized to read topic " + query.topic());
        }
        RecordBrowser.Result result = browser.browse(query);
        return Json.bytes(json -> {
            json.writeStartObject();
            json.writeStringField("topic", result.topic());
            json.writeNumberField("partition", result.partition());
            json.writeNumberField("startOffset", result.startOffset());
            json.writeNumberField("endOffset", result.endOffset());
            json.writeNumberField("nextOffset", result.nextOffset());
            json.writeArrayFieldStart("records");
            for (RecordPage.Entry entry : result.records()) {
                json.writeStartObject();
                json.writeNumberField("offset", entry.offset());
                json.writeNumberField("timestamp", entry.timestamp());
                json.writeStringField("timestampType", entry.timestampType());
                field(json, "key", "keyEncoding", "keyTruncated", entry.key());
                field(json, "value", "valueEncoding", "valueTruncated", entry.value());
                json.writeArrayFieldStart("headers");
                for (RecordPage.HeaderEntry header : entry.headers()) {
                    json.writeStartObject();
                    json.writeStringField("key", header.key());
                    json.writeStringField("value", header.value().text());
                    json.writeStringField("valueEncoding", header.value().encoding());
                    json.writeEndObject();
                }
                json.writeEndArray();
                json.writeEndObject();
            }
            json.writeEndArray();
            json.writeEndObject();
        });
    }

    private static void field(JsonGenerator json, String name, String encodingName, String truncatedName,
                              RecordPage.Field field) throws IOException {
        json.writeStringField(name, field.text());
        json.writeStringField(encodingName, field.encoding());
        json.writeBooleanField(truncatedName, field.truncated());
    }

    /** The topic, if it exists and the principal may describe it (403 first, so existence is not told). */
    private TopicImage describable(ConsoleAccess access, String name) {
        if (!access.describeTopic(name)) {
            throw ConsoleException.forbidden(Errors.TOPIC_AUTHORIZATION_FAILED, "not authorized to describe topic " + name);
        }
        TopicImage topic = cluster.image().topic(name);
        if (topic == null) {
            throw ConsoleException.notFound(Errors.UNKNOWN_TOPIC_OR_PARTITION, "no topic " + name);
        }
        return topic;
    }

    static List<TopicImage> visibleTopics(MetadataImage image, ConsoleAccess access) {
        List<TopicImage> topics = new ArrayList<>();
        for (TopicImage topic : image.topics()) {
            if (access.describeTopic(topic.name())) {
                topics.add(topic);
            }
        }
        topics.sort(Comparator.comparing(TopicImage::name));
        return topics;
    }

    private static boolean underReplicated(PartitionState p) {
        return p.isr().size() < p.replicas().size();
    }

    static void unavailable(JsonGenerator json, Set<Integer> brokers) throws IOException {
        if (!brokers.isEmpty()) {
            Json.intArray(json, "unavailableBrokers", brokers);
        }
    }

    /** The topic's configs (name, value or null when sensitive, source) from this broker's DescribeConfigs. */
    private CompletableFuture<List<String[]>> configs(String topic) {
        DescribeConfigsRequest request = new DescribeConfigsRequest();
        request.resources().add(new DescribeConfigsRequest.DescribeConfigsResource().setResourceType((byte) 2)
                .setResourceName(topic).setConfigurationKeys(null));
        return cluster.client().call(cluster.client().nodeId(), ApiKeys.DESCRIBE_CONFIGS, DESCRIBE_CONFIGS_VERSION,
                request, (DescribeConfigsResponse response) -> {
                    List<String[]> configs = new ArrayList<>();
                    for (DescribeConfigsResponse.DescribeConfigsResult result : response.results()) {
                        if (result.errorCode() != Errors.NONE.code()) {
                            continue;
                        }
                        for (DescribeConfigsResponse.DescribeConfigsResourceResult c : result.configs()) {
                            int source = c.configSource();
                            configs.add(new String[] {c.name(), c.isSensitive() ? null : c.value(),
                                source >= 0 && source < CONFIG_SOURCES.length ? CONFIG_SOURCES[source] : "UNKNOWN"});
                        }
                    }
                    configs.sort(Comparator.comparing(c -> c[0]));
                    return configs;
                });
    }

    /** Kafka's text form of a topic id: URL-safe base64 without padding. */
    static String uuid(UUID id) {
        if (id == null) {
            return null;
        }
        ByteBuffer bytes = ByteBuffer.allocate(16).putLong(id.getMostSignificantBits())
                .putLong(id.getLeastSignificantBits());
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.array());
    }
}

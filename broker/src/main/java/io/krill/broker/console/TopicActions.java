package io.krill.broker.console;

import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.ResourceType;
import io.krill.log.TopicPartition;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.CreatePartitionsRequest;
import io.krill.wire.message.CreatePartitionsResponse;
import io.krill.wire.message.CreateTopicsRequest;
import io.krill.wire.message.CreateTopicsResponse;
import io.krill.wire.message.DeleteRecordsRequest;
import io.krill.wire.message.DeleteRecordsResponse;
import io.krill.wire.message.DeleteTopicsRequest;
import io.krill.wire.message.DeleteTopicsResponse;
import io.krill.wire.message.IncrementalAlterConfigsRequest;
import io.krill.wire.message.IncrementalAlterConfigsResponse;
import io.krill.wire.protocol.ApiMessage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * The console's topic actions, each done as Kafka's tools do it, by Kafka's own request: create
 * (kafka-topics --create: CreateTopics), delete (DeleteTopics), add partitions (CreatePartitions), alter
 * configs (kafka-configs --alter: IncrementalAlterConfigs SET/DELETE), all sent to the controller, and
 * delete records before an offset (kafka-delete-records: DeleteRecords to each partition's leader). Each
 * first checks the ACLs Kafka would check for the viewer.
 *
 * <p>Thread-safety: thread-safe; stateless beyond its collaborators.
 */
final class TopicActions {
    static final short CREATE_TOPICS_VERSION = 7;
    static final short DELETE_TOPICS_VERSION = 5;
    static final short CREATE_PARTITIONS_VERSION = 3;
    static final short INCREMENTAL_ALTER_CONFIGS_VERSION = 1;
    static final short DELETE_RECORDS_VERSION = 2;
    private static final byte TOPIC_RESOURCE = 2;
    private static final byte SET = 0;
    private static final byte DELETE = 1;

    private final ConsoleActions actions;

    TopicActions(ConsoleActions actions) {
        this.actions = actions;
    }

    /** {@code POST topics}: CREATE on the cluster or on the topic, as Kafka checks it. */
    ConsoleActions.Result create(ConsoleAccess access, JsonBody body) {
        String name = body.string("name");
        int partitions = (int) body.number("partitions", 1, 1_000_000, -1);
        short replication = (short) body.number("replicationFactor", 1, Short.MAX_VALUE, -1);
        Map<String, String> configs = body.strings("configs");
        return actions.audited(access, "create topic " + name + " (partitions " + partitions + ", replication "
                + replication + ", configs " + configs + ")", () -> {
                    if (!access.allowed(AclOperation.CREATE, ResourceType.CLUSTER, ResourceType.CLUSTER_NAME)) {
                        access.require(AclOperation.CREATE, ResourceType.TOPIC, name, Errors.TOPIC_AUTHORIZATION_FAILED);
                    }
                    CreateTopicsRequest.CreatableTopic topic = new CreateTopicsRequest.CreatableTopic().setName(name)
                            .setNumPartitions(partitions).setReplicationFactor(replication);
                    configs.forEach((k, v) -> topic.configs().add(
                            new CreateTopicsRequest.CreatableTopicConfig().setName(k).setValue(v)));
                    CreateTopicsRequest request = new CreateTopicsRequest().setTimeoutMs(actions.requestTimeoutMs());
                    request.topics().add(topic);
                    CreateTopicsResponse.CreatableTopicResult result = callController(ApiKeys.CREATE_TOPICS,
                            CREATE_TOPICS_VERSION, request, (CreateTopicsResponse response) -> response.topics().get(0));
                    ConsoleActions.check(result.errorCode(), result.errorMessage());
                    return new ConsoleActions.Result(201, Json.bytes(json -> {
                        json.writeStartObject();
                        json.writeStringField("name", name);
                        json.writeStringField("topicId", TopicsApi.uuid(result.topicId()));
                        json.writeNumberField("partitions", result.numPartitions());
                        json.writeNumberField("replicationFactor", result.replicationFactor());
                        json.writeEndObject();
                    }));
                });
    }

    /** {@code DELETE topics/<name>}: DELETE on the topic. */
    ConsoleActions.Result delete(ConsoleAccess access, String name) {
        return actions.audited(access, "delete topic " + name, () -> {
            access.require(AclOperation.DELETE, ResourceType.TOPIC, name, Errors.TOPIC_AUTHORIZATION_FAILED);
            DeleteTopicsRequest request = new DeleteTopicsRequest().setTimeoutMs(actions.requestTimeoutMs())
                    .setTopicNames(new ArrayList<>(List.of(name)));
            DeleteTopicsResponse.DeletableTopicResult result = callController(ApiKeys.DELETE_TOPICS,
                    DELETE_TOPICS_VERSION, request, (DeleteTopicsResponse response) -> response.responses().get(0));
            ConsoleActions.check(result.errorCode(), result.errorMessage());
            return ConsoleActions.ok(json -> {
                json.writeStringField("name", name);
                json.writeBooleanField("deleted", true);
            });
        });
    }

    /** {@code POST topics/<name>/partitions} {"count": n}: ALTER on the topic. */
    ConsoleActions.Result addPartitions(ConsoleAccess access, String name, JsonBody body) {
        int count = (int) body.number("count", 1, 1_000_000, -1);
        if (count < 0) {
            throw ConsoleException.badRequest("count (the new number of partitions) is required");
        }
        return actions.audited(access, "increase partitions of " + name + " to " + count, () -> {
            access.require(AclOperation.ALTER, ResourceType.TOPIC, name, Errors.TOPIC_AUTHORIZATION_FAILED);
            CreatePartitionsRequest request = new CreatePartitionsRequest().setTimeoutMs(actions.requestTimeoutMs());
            request.topics().add(new CreatePartitionsRequest.CreatePartitionsTopic().setName(name).setCount(count)
                    .setAssignments(null));
            CreatePartitionsResponse.CreatePartitionsTopicResult result = callController(ApiKeys.CREATE_PARTITIONS,
                    CREATE_PARTITIONS_VERSION, request, (CreatePartitionsResponse response) -> response.results().get(0));
            ConsoleActions.check(result.errorCode(), result.errorMessage());
            return ConsoleActions.ok(json -> {
                json.writeStringField("name", name);
                json.writeNumberField("partitions", count);
            });
        });
    }

    /** {@code POST topics/<name>/configs} {"set": {k: v}, "delete": [k]}: ALTER_CONFIGS on the topic. */
    ConsoleActions.Result alterConfigs(ConsoleAccess access, String name, JsonBody body) {
        Map<String, String> set = body.strings("set");
        List<String> delete = body.stringList("delete");
        if (set.isEmpty() && delete.isEmpty()) {
            throw ConsoleException.badRequest("give configs to set or to delete");
        }
        return actions.audited(access, "alter configs of topic " + name + ": set " + set + ", delete " + delete, () -> {
            access.require(AclOperation.ALTER_CONFIGS, ResourceType.TOPIC, name, Errors.TOPIC_AUTHORIZATION_FAILED);
            IncrementalAlterConfigsRequest.AlterConfigsResource resource =
                    new IncrementalAlterConfigsRequest.AlterConfigsResource().setResourceType(TOPIC_RESOURCE)
                            .setResourceName(name);
            set.forEach((k, v) -> resource.configs().add(new IncrementalAlterConfigsRequest.AlterableConfig()
                    .setName(k).setConfigOperation(SET).setValue(v)));
            delete.forEach(k -> resource.configs().add(new IncrementalAlterConfigsRequest.AlterableConfig()
                    .setName(k).setConfigOperation(DELETE).setValue(null)));
            IncrementalAlterConfigsRequest request = new IncrementalAlterConfigsRequest();
            request.resources().add(resource);
            IncrementalAlterConfigsResponse.AlterConfigsResourceResponse result = callController(
                    ApiKeys.INCREMENTAL_ALTER_CONFIGS, INCREMENTAL_ALTER_CONFIGS_VERSION, request,
                    (IncrementalAlterConfigsResponse response) -> response.responses().get(0));
            ConsoleActions.check(result.errorCode(), result.errorMessage());
            return ConsoleActions.ok(json -> {
                json.writeStringField("name", name);
                json.writeArrayFieldStart("set");
                for (String k : set.keySet()) {
                    json.writeString(k);
                }
                json.writeEndArray();
                json.writeArrayFieldStart("deleted");
                for (String k : delete) {
                    json.writeString(k);
                }
                json.writeEndArray();
            });
        });
    }

    /**
     * {@code POST topics/<name>/delete-records} {"partitions": [{"partition": 0, "offset": 10}]}: DELETE on the
     * topic; offset -1 is the high watermark, as in kafka-delete-records. One DeleteRecords per leader; the
     * first partition that failed is the answer's error (the others may have been deleted).
     */
    ConsoleActions.Result deleteRecords(ConsoleAccess access, String name, JsonBody body) {
        Map<Integer, Long> offsets = new TreeMap<>();
        for (JsonBody p : body.objects("partitions")) {
            int partition = (int) p.number("partition", 0, Integer.MAX_VALUE, -1);
            long offset = p.number("offset", -1, Long.MAX_VALUE, Long.MIN_VALUE);
            if (partition < 0 || offset == Long.MIN_VALUE) {
                throw ConsoleException.badRequest("each of partitions needs partition and offset");
            }
            if (offsets.put(partition, offset) != null) {
                throw ConsoleException.badRequest("partition " + partition + " given twice");
            }
        }
        if (offsets.isEmpty()) {
            throw ConsoleException.badRequest("partitions (at least one) is required");
        }
        return actions.audited(access, "delete records of " + name + " before " + offsets, () -> {
            access.require(AclOperation.DELETE, ResourceType.TOPIC, name, Errors.TOPIC_AUTHORIZATION_FAILED);
            Map<Integer, DeleteRecordsRequest> byLeader = new LinkedHashMap<>();
            offsets.forEach((partition, offset) -> {
                int leader = actions.leader(new TopicPartition(name, partition));
                DeleteRecordsRequest request = byLeader.computeIfAbsent(leader, l -> {
                    DeleteRecordsRequest r = new DeleteRecordsRequest().setTimeoutMs(actions.requestTimeoutMs());
                    r.topics().add(new DeleteRecordsRequest.DeleteRecordsTopic().setName(name));
                    return r;
                });
                request.topics().get(0).partitions().add(new DeleteRecordsRequest.DeleteRecordsPartition()
                        .setPartitionIndex(partition).setOffset(offset));
            });
            Map<Integer, CompletableFuture<List<long[]>>> futures = new LinkedHashMap<>();
            byLeader.forEach((leader, request) -> futures.put(leader, actions.cluster().client().call(leader,
                    ApiKeys.DELETE_RECORDS, DELETE_RECORDS_VERSION, request, (DeleteRecordsResponse response) -> {
                        List<long[]> results = new ArrayList<>();
                        for (DeleteRecordsResponse.DeleteRecordsTopicResult t : response.topics()) {
                            for (DeleteRecordsResponse.DeleteRecordsPartitionResult p : t.partitions()) {
                                results.add(new long[] {p.partitionIndex(), p.lowWatermark(), p.errorCode()});
                            }
                        }
                        return results;
                    })));
            Map<Integer, Long> lowWatermarks = new TreeMap<>();
            futures.forEach((leader, future) -> {
                for (long[] r : actions.await(leader, future)) {
                    ConsoleActions.check((short) r[2], "partition " + r[0] + ": " + Errors.forCode((short) r[2]).message());
                    lowWatermarks.put((int) r[0], r[1]);
                }
            });
            return ConsoleActions.ok(json -> {
                json.writeStringField("name", name);
                json.writeArrayFieldStart("partitions");
                for (Map.Entry<Integer, Long> e : lowWatermarks.entrySet()) {
                    json.writeStartObject();
                    json.writeNumberField("partition", e.getKey());
                    json.writeNumberField("lowWatermark", e.getValue());
                    json.writeEndObject();
                }
                json.writeEndArray();
            });
        });
    }

    private <T extends ApiMessage, R> R callController(ApiKeys api, short version, ApiMessage request, BrokerClient.Reader<T, R> reader) {
        int controller = actions.controller();
        return actions.await(controller, actions.cluster().client().call(controller, api, version, request, reader));
    }
}

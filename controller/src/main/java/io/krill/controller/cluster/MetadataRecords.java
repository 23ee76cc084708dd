package io.krill.controller.cluster;

import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.PartitionState;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.helix.model.InstanceConfig;
import org.apache.helix.zookeeper.datamodel.ZNRecord;
import org.apache.helix.zookeeper.datamodel.serializer.ZNRecordSerializer;

/**
 * The byte formats of Krill's ZooKeeper nodes: Helix ZNRecords (JSON with {@code simpleFields},
 * {@code listFields} and {@code mapFields}), so that Helix's tools and {@code zkCli} show them readably,
 * except the partition records, which change far more often than anything else and are binary
 * ({@link #encodePartition}). Field names are part of the on-disk format: add fields, never rename them.
 *
 * <p>Thread-safe: one serializer per thread (Helix's serializer reconfigures its Jackson mapper on use).
 */
final class MetadataRecords {
    static final String LEADER = "leader";
    static final String LEADER_EPOCH = "leaderEpoch";
    static final String PARTITION_EPOCH = "partitionEpoch";
    static final String REPLICAS = "replicas";
    static final String ISR = "isr";
    static final String ADDING_REPLICAS = "addingReplicas";
    static final String REMOVING_REPLICAS = "removingReplicas";
    static final String TOPIC_ID = "topicId";
    static final String PARTITIONS = "partitions";
    static final String INTERNAL = "internal";
    static final String CONFIGS = "configs";
    static final String CLUSTER_ID = "clusterId";
    static final String NEXT_PRODUCER_ID = "nextProducerId";
    static final String NODE_ID = "krill.nodeId";
    static final String RACK = "krill.rack";
    static final String ENDPOINTS = "krill.endpoints";

    /**
     * The first four bytes of a binary partition record in {@link PartitionStateCodec#LAYOUT_1}, "KPR1";
     * a JSON record starts with '{'.
     */
    static final int PARTITION_RECORD_MAGIC = 0x4b505231;
    /** The same in {@link PartitionStateCodec#LAYOUT_2} (with eligible leader replicas), "KPR2". */
    static final int PARTITION_RECORD_MAGIC_2 = 0x4b505232;

    private static final ThreadLocal<ZNRecordSerializer> SERIALIZER = ThreadLocal.withInitial(ZNRecordSerializer::new);

    /**
     * The partitions' states as created, kept in a topic node when it is created (field
     * {@code initialStates}, one entry per partition, {@code <replicas>/<leader>/<isr>} with
     * comma-separated broker ids, epochs 0, no reassignment), so that a broker learning of a new topic
     * need not read its partition nodes: they were created in the same multi, so while the topic node is
     * unmodified (czxid = mzxid) each partition node's creation zxid is the topic's, and any later change
     * of one comes with its own watch event. Only for topics of at most this many partitions, which
     * bounds the node's size; larger ones are read partition by partition.
     */
    static final String INITIAL_STATES = "initialStates";
    static final int MAX_INITIAL_STATES = 5_000;

    /**
     * A topic node: everything about a topic except its partitions' current states; {@code initialStates}
     * holds their states at creation (empty when the node does not carry them: see {@link #INITIAL_STATES}).
     */
    record TopicRecord(String name, UUID id, int partitionCount, boolean internal, Map<String, String> configs,
                       List<PartitionState> initialStates) {
        TopicRecord {
            configs = Map.copyOf(configs);
            initialStates = List.copyOf(initialStates);
        }

        /** A topic record without initial states: what every rewrite of a topic node (growth, configs) writes. */
        TopicRecord(String name, UUID id, int partitionCount, boolean internal, Map<String, String> configs) {
            this(name, id, partitionCount, internal, configs, List.of());
        }
    }

    private MetadataRecords() {
    }

    static byte[] serialize(ZNRecord record) {
        return SERIALIZER.get().serialize(record);
    }

    static ZNRecord deserialize(byte[] bytes) {
        Object record = SERIALIZER.get().deserialize(bytes);
        if (!(record instanceof ZNRecord znRecord)) {
            throw new IllegalStateException("not a ZNRecord: " + (bytes == null ? "no data" : bytes.length + " bytes"));
        }
        return znRecord;
    }

    /**
     * A partition's state record: {@link #PARTITION_RECORD_MAGIC} (or {@link #PARTITION_RECORD_MAGIC_2} when
     * it has eligible leader replicas), then the state as {@link PartitionStateCodec} lays it out (68 bytes for three replicas; its JSON form took about 300, and every
     * leadership or ISR change rewrites one, so a failover or a controlled shutdown of thousands of
     * partitions sends ZooKeeper a sixth of the bytes and spends no time in Jackson). It names its
     * topic's id, so a re-created topic's records are told apart.
     */
    static byte[] encodePartition(String topic, UUID topicId, PartitionState state) {
        int layout = PartitionStateCodec.layoutOf(state);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(4 + PartitionStateCodec.size(state, layout));
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(layout == PartitionStateCodec.LAYOUT_1 ? PARTITION_RECORD_MAGIC : PARTITION_RECORD_MAGIC_2);
            PartitionStateCodec.write(out, topicId, state, layout);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
        }
        return bytes.toByteArray();
    }

    /** A partition's state; records written before reassignments existed have no adding or removing lists. */
    static PartitionState decodePartition(int partition, byte[] bytes) {
        return decodePartitionRecord(partition, bytes).state();
    }

    /** A partition record and the id of the topic it names, decoded once. */
    record PartitionRecord(UUID topicId, PartitionState state) {
    }

    /**
     * Decodes either form: the binary record, or the JSON ZNRecord that brokers before it wrote (a
     * cluster's records are rewritten in the binary form as they change).
     *
     * @throws IllegalStateException when the bytes are neither, or name another partition
     */
    static PartitionRecord decodePartitionRecord(int partition, byte[] bytes) {
        int magic = bytes != null && bytes.length >= 4 ? ByteBuffer.wrap(bytes).getInt() : 0;
        if (magic == PARTITION_RECORD_MAGIC || magic == PARTITION_RECORD_MAGIC_2) {
            ByteBuffer in = ByteBuffer.wrap(bytes, 4, bytes.length - 4);
            PartitionStateCodec.Decoded decoded = PartitionStateCodec.read(in, magic == PARTITION_RECORD_MAGIC
                    ? PartitionStateCodec.LAYOUT_1 : PartitionStateCodec.LAYOUT_2);
            if (decoded == null || in.hasRemaining()) {
                throw new IllegalStateException("partition record of " + bytes.length + " bytes does not parse");
            }
            if (decoded.state().partition() != partition) {
                throw new IllegalStateException("the record of partition " + decoded.state().partition()
                        + " is at the node of partition " + partition);
            }
            return new PartitionRecord(decoded.topicId(), decoded.state());
        }
        ZNRecord record = deserialize(bytes);
        return new PartitionRecord(UUID.fromString(required(record, TOPIC_ID)), decodePartition(partition, record));
    }

    private static PartitionState decodePartition(int partition, ZNRecord record) {
        return new PartitionState(partition, requiredInt(record, LEADER), requiredInt(record, LEADER_EPOCH),
                ints(record.getListField(REPLICAS)), ints(record.getListField(ISR)),
                requiredInt(record, PARTITION_EPOCH), ints(record.getListField(ADDING_REPLICAS)),
                ints(record.getListField(REMOVING_REPLICAS)));
    }

    static byte[] encodeTopic(TopicRecord topic) {
        ZNRecord record = new ZNRecord(topic.name());
        record.setSimpleField(TOPIC_ID, topic.id().toString());
        record.setIntField(PARTITIONS, topic.partitionCount());
        record.setBooleanField(INTERNAL, topic.internal());
        record.setMapField(CONFIGS, new TreeMap<>(topic.configs()));
        if (!topic.initialStates().isEmpty()) {
            List<String> states = new ArrayList<>(topic.initialStates().size());
            for (PartitionState state : topic.initialStates()) {
                states.add(csv(state.replicas()) + "/" + state.leader() + "/" + csv(state.isr()));
            }
            record.setListField(INITIAL_STATES, states);
        }
        return serialize(record);
    }

    static TopicRecord decodeTopic(String name, byte[] bytes) {
        ZNRecord record = deserialize(bytes);
        Map<String, String> configs = record.getMapField(CONFIGS);
        int partitionCount = requiredInt(record, PARTITIONS);
        List<String> encoded = record.getListField(INITIAL_STATES);
        List<PartitionState> initial = List.of();
        if (encoded != null && encoded.size() == partitionCount) {
            List<PartitionState> states = new ArrayList<>(partitionCount);
            for (int p = 0; p < partitionCount; p++) {
                String[] parts = encoded.get(p).split("/", -1);
                if (parts.length != 3) {
                    throw new IllegalStateException("topic " + name + ": bad initial state of partition " + p + ": "
                            + encoded.get(p));
                }
                states.add(new PartitionState(p, Integer.parseInt(parts[1]), 0, ints(parts[0]), ints(parts[2]), 0));
            }
            initial = states;
        }
        return new TopicRecord(name, UUID.fromString(required(record, TOPIC_ID)), partitionCount,
                record.getBooleanField(INTERNAL, false), configs == null ? Map.of() : configs, initial);
    }

    private static String csv(List<Integer> ids) {
        StringBuilder out = new StringBuilder(ids.size() * 3);
        for (int id : ids) {
            if (out.length() > 0) {
                out.append(',');
            }
            out.append(id);
        }
        return out.toString();
    }

    private static List<Integer> ints(String csv) {
        if (csv.isEmpty()) {
            return List.of();
        }
        String[] parts = csv.split(",");
        List<Integer> ids = new ArrayList<>(parts.length);
        for (String part : parts) {
            ids.add(Integer.parseInt(part));
        }
        return ids;
    }

    static byte[] encodeEntityConfigs(String entity, Map<String, String> configs) {
        ZNRecord record = new ZNRecord(entity.isEmpty() ? ZkPaths.DEFAULT_BROKER_ENTITY : entity);
        record.setMapField(CONFIGS, new TreeMap<>(configs));
        return serialize(record);
    }

    static Map<String, String> decodeEntityConfigs(byte[] bytes) {
        Map<String, String> configs = deserialize(bytes).getMapField(CONFIGS);
        return configs == null ? Map.of() : Map.copyOf(configs);
    }

    static byte[] encodeClusterId(String clusterId) {
        ZNRecord record = new ZNRecord("cluster-id");
        record.setSimpleField(CLUSTER_ID, clusterId);
        return serialize(record);
    }

    static String decodeClusterId(byte[] bytes) {
        return required(deserialize(bytes), CLUSTER_ID);
    }

    static byte[] encodeNextProducerId(long next) {
        ZNRecord record = new ZNRecord("producer-ids");
        record.setLongField(NEXT_PRODUCER_ID, next);
        return serialize(record);
    }

    static long decodeNextProducerId(byte[] bytes) {
        return Long.parseLong(required(deserialize(bytes), NEXT_PRODUCER_ID));
    }

    /**
     * A broker's Helix instance config: Helix's host and port (the first advertised endpoint, shown by
     * Helix's tools) plus Krill's node id, rack and every advertised endpoint.
     */
    static InstanceConfig instanceConfig(BrokerInfo broker) {
        InstanceConfig config = new InstanceConfig(ZkPaths.instanceName(broker.nodeId()));
        BrokerInfo.Endpoint first = broker.endpoints().values().stream()
                .min(java.util.Comparator.comparing(BrokerInfo.Endpoint::listenerName)).orElse(null);
        config.setHostName(first == null ? "unknown" : first.host());
        config.setPort(first == null ? "0" : Integer.toString(first.port()));
        writeBroker(config.getRecord(), broker);
        return config;
    }

    /** Writes Krill's fields of {@code broker} into an instance config record, replacing earlier ones. */
    static void writeBroker(ZNRecord record, BrokerInfo broker) {
        record.setIntField(NODE_ID, broker.nodeId());
        if (broker.rack() != null) {
            record.setSimpleField(RACK, broker.rack());
        } else {
            record.getSimpleFields().remove(RACK);
        }
        Map<String, String> endpoints = new TreeMap<>();
        for (BrokerInfo.Endpoint endpoint : broker.endpoints().values()) {
            endpoints.put(endpoint.listenerName(), endpoint.host() + ":" + endpoint.port());
        }
        record.setMapField(ENDPOINTS, endpoints);
    }

    /** The broker in an instance config record, or null when the record has no Krill fields. */
    static BrokerInfo readBroker(ZNRecord record) {
        String nodeId = record.getSimpleField(NODE_ID);
        Map<String, String> endpoints = record.getMapField(ENDPOINTS);
        if (nodeId == null || endpoints == null) {
            return null;
        }
        Map<String, BrokerInfo.Endpoint> parsed = new HashMap<>();
        for (Map.Entry<String, String> entry : endpoints.entrySet()) {
            String hostPort = entry.getValue();
            int colon = hostPort.lastIndexOf(':');
            parsed.put(entry.getKey(), new BrokerInfo.Endpoint(entry.getKey(), hostPort.substring(0, colon),
                    Integer.parseInt(hostPort.substring(colon + 1))));
        }
        return new BrokerInfo(Integer.parseInt(nodeId), record.getSimpleField(RACK), parsed);
    }

    private static String required(ZNRecord record, String field) {
        String value = record.getSimpleField(field);
        if (value == null) {
            throw new IllegalStateException("record " + record.getId() + " has no " + field);
        }
        return value;
    }

    private static int requiredInt(ZNRecord record, String field) {
        return Integer.parseInt(required(record, field));
    }

    private static List<String> strings(List<Integer> ids) {
        List<String> result = new ArrayList<>(ids.size());
        for (int id : ids) {
            result.add(Integer.toString(id));
        }
        return result;
    }

    private static List<Integer> ints(List<String> values) {
        if (values == null) {
            return List.of();
        }
        List<Integer> result = new ArrayList<>(values.size());
        for (String value : values) {
            result.add(Integer.parseInt(value));
        }
        return result;
    }
}

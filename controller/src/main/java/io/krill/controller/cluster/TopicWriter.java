package io.krill.controller.cluster;

import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.NewTopic;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.apache.helix.model.IdealState;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates, deletes and grows topics and replaces their configs: each topic with its partition records
 * and its Helix resource (ideal state) in single ZooKeeper multi-ops, or version-checked writes of the
 * topic's znode. Each change returns once this broker's image shows it.
 *
 * <p>Thread-safe: no state of its own; concurrent writers are ordered by ZooKeeper's versions.
 */
final class TopicWriter {
    private static final Logger LOG = LoggerFactory.getLogger(TopicWriter.class);
    private static final int MAX_ATTEMPTS = 10;

    private final StoreContext context;
    private final ZkSession session;
    private final ZkPaths paths;
    private final MetadataWatcher watcher;

    TopicWriter(StoreContext context) {
        this.context = context;
        this.session = context.session();
        this.paths = context.paths();
        this.watcher = context.watcher();
    }

    TopicImage createTopic(NewTopic spec) {
        context.ensureOpen();
        MetadataImage current = context.image();
        TopicRequests.Plan plan = plan(current, spec);
        UUID id = newTopicId(current);
        List<Op> ops = new ArrayList<>();
        MetadataRecords.TopicRecord topic = new MetadataRecords.TopicRecord(spec.name(), id, plan.partitionCount(),
                spec.internal(), spec.configs());
        ops.add(create(paths.topic(spec.name()), MetadataRecords.encodeTopic(topic)));
        addPartitionOps(ops, spec.name(), id, 0, plan.assignments(), current);
        ops.add(create(paths.idealState(spec.name()),
                MetadataRecords.serialize(MetadataRecords.idealState(spec.name(), plan.assignments()).getRecord())));
        context.guarded(() -> {
            try {
                session.call(zk -> zk.multi(ops));
            } catch (KeeperException.NodeExistsException e) {
                byte[] existing = session.readOrNull(paths.topic(spec.name()), new Stat());
                if (existing == null) {
                    throw new IllegalStateException("Helix resource " + spec.name() + " exists without its topic", e);
                }
                if (!MetadataRecords.decodeTopic(spec.name(), existing).id().equals(id)) {
                    throw new ApiException(Errors.TOPIC_ALREADY_EXISTS, "Topic '" + spec.name() + "' already exists.");
                }
                // our own create, retried after a lost connection
            } catch (KeeperException e) {
                throw ZkSession.unexpected(e);
            }
            return null;
        });
        LOG.info("created topic {} ({}) with {} partition(s): {}", spec.name(), id, plan.partitionCount(),
                plan.assignments());
        MetadataImage after = context.await(watcher.refreshTopic(spec.name()));
        TopicImage created = after.topic(spec.name());
        if (created == null || !created.id().equals(id)) {
            throw new ApiException(Errors.UNKNOWN_TOPIC_OR_PARTITION, "Topic " + spec.name()
                    + " was deleted right after it was created");
        }
        return created;
    }

    void checkCreateTopic(NewTopic spec) {
        plan(context.image(), spec);
    }

    private TopicRequests.Plan plan(MetadataImage current, NewTopic spec) {
        ZooKeeperStoreConfig config = context.config();
        return TopicRequests.planNewTopic(current, spec, config.defaultPartitions(), config.defaultReplicationFactor(),
                new Random(context.random().nextLong()));
    }

    void deleteTopic(String name) {
        context.ensureOpen();
        context.guarded(() -> {
            for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
                List<String> children;
                try {
                    children = session.call(zk -> zk.getChildren(paths.topic(name), false));
                } catch (KeeperException.NoNodeException e) {
                    throw unknownTopic(name);
                } catch (KeeperException e) {
                    throw ZkSession.unexpected(e);
                }
                List<Op> ops = new ArrayList<>();
                for (String child : children) {
                    ops.add(Op.delete(paths.topic(name) + "/" + child, -1));
                }
                ops.add(Op.delete(paths.topic(name), -1));
                if (session.readOrNull(paths.idealState(name), new Stat()) != null) {
                    ops.add(Op.delete(paths.idealState(name), -1));
                }
                try {
                    session.call(zk -> zk.multi(ops));
                    return null;
                } catch (KeeperException.NotEmptyException | KeeperException.NoNodeException e) {
                    // partitions added or the topic deleted meanwhile: look again
                } catch (KeeperException e) {
                    throw ZkSession.unexpected(e);
                }
            }
            throw new ApiException(Errors.REQUEST_TIMED_OUT, "topic " + name + " kept changing while being deleted");
        });
        LOG.info("deleted topic {}", name);
        context.await(watcher.refreshTopic(name));
    }

    TopicImage createPartitions(String name, int totalCount, List<List<Integer>> newAssignments) {
        context.ensureOpen();
        return context.guarded(() -> {
            for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
                MetadataImage current = imageWithTopic(name);
                TopicRequests.Plan plan = TopicRequests.planNewPartitions(current, name, totalCount, newAssignments,
                        new Random(context.random().nextLong()));
                Stat topicStat = new Stat();
                byte[] topicData = session.readOrNull(paths.topic(name), topicStat);
                if (topicData == null) {
                    throw unknownTopic(name);
                }
                MetadataRecords.TopicRecord topic = MetadataRecords.decodeTopic(name, topicData);
                int existing = topic.partitionCount();
                if (existing != current.topic(name).partitionCount() || !topic.id().equals(current.topic(name).id())) {
                    context.await(watcher.refreshTopic(name)); // our image was behind: plan again
                    continue;
                }
                Stat idealStateStat = new Stat();
                byte[] idealStateData = session.readOrNull(paths.idealState(name), idealStateStat);
                if (idealStateData == null) {
                    throw new IllegalStateException("topic " + name + " has no Helix resource");
                }
                IdealState idealState = new IdealState(MetadataRecords.deserialize(idealStateData));
                MetadataRecords.addPartitions(idealState, name, existing, plan.assignments());
                MetadataRecords.TopicRecord grown = new MetadataRecords.TopicRecord(name, topic.id(), totalCount,
                        topic.internal(), topic.configs());
                List<Op> ops = new ArrayList<>();
                ops.add(Op.setData(paths.topic(name), MetadataRecords.encodeTopic(grown), topicStat.getVersion()));
                addPartitionOps(ops, name, topic.id(), existing, plan.assignments(), current);
                ops.add(Op.setData(paths.idealState(name), MetadataRecords.serialize(idealState.getRecord()),
                        idealStateStat.getVersion()));
                try {
                    session.call(zk -> zk.multi(ops));
                } catch (KeeperException.BadVersionException | KeeperException.NodeExistsException e) {
                    context.await(watcher.refreshTopic(name)); // changed meanwhile: plan again
                    continue;
                } catch (KeeperException.NoNodeException e) {
                    throw unknownTopic(name);
                } catch (KeeperException e) {
                    throw ZkSession.unexpected(e);
                }
                LOG.info("topic {} grown to {} partitions: {}", name, totalCount, plan.assignments());
                return context.await(watcher.refreshTopic(name)).topic(name);
            }
            throw new ApiException(Errors.REQUEST_TIMED_OUT, "topic " + name + " kept changing while being grown");
        });
    }

    void checkCreatePartitions(String name, int totalCount, List<List<Integer>> newAssignments) {
        TopicRequests.planNewPartitions(imageWithTopic(name), name, totalCount, newAssignments,
                new Random(context.random().nextLong()));
    }

    /**
     * The image, read again for {@code name} when it does not have the topic: another broker may just
     * have created it, and this broker's watch event may still be on its way.
     */
    private MetadataImage imageWithTopic(String name) {
        MetadataImage current = context.image();
        return current.topic(name) != null ? current : context.await(watcher.refreshTopic(name));
    }

    TopicImage alterTopicConfigs(String name, Map<String, String> overrides) {
        context.ensureOpen();
        return context.guarded(() -> {
            for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
                Stat stat = new Stat();
                byte[] data = session.readOrNull(paths.topic(name), stat);
                if (data == null) {
                    throw unknownTopic(name);
                }
                MetadataRecords.TopicRecord topic = MetadataRecords.decodeTopic(name, data);
                MetadataRecords.TopicRecord altered = new MetadataRecords.TopicRecord(name, topic.id(),
                        topic.partitionCount(), topic.internal(), overrides);
                byte[] encoded = MetadataRecords.encodeTopic(altered);
                try {
                    session.call(zk -> zk.setData(paths.topic(name), encoded, stat.getVersion()));
                } catch (KeeperException.BadVersionException e) {
                    continue;
                } catch (KeeperException.NoNodeException e) {
                    throw unknownTopic(name);
                } catch (KeeperException e) {
                    throw ZkSession.unexpected(e);
                }
                TopicImage result = context.await(watcher.refreshTopic(name)).topic(name);
                if (result == null) {
                    throw unknownTopic(name);
                }
                return result;
            }
            throw new ApiException(Errors.REQUEST_TIMED_OUT, "topic " + name + " kept changing");
        });
    }

    private void addPartitionOps(List<Op> ops, String topic, UUID topicId, int first, List<List<Integer>> assignments,
                                 MetadataImage current) {
        for (int i = 0; i < assignments.size(); i++) {
            List<Integer> replicas = assignments.get(i);
            List<Integer> isr = new ArrayList<>();
            for (int replica : replicas) {
                if (current.broker(replica) != null) {
                    isr.add(replica);
                }
            }
            // Like Kafka's controller, the first live replica leads at once (epoch 0): clients can use
            // the partition as soon as the creation returns. Helix's transition to LEADER later finds
            // the record already naming that broker and writes nothing.
            PartitionState initial = new PartitionState(first + i, isr.isEmpty() ? PartitionState.NO_LEADER : isr.get(0),
                    0, replicas, isr.isEmpty() ? replicas : isr, 0);
            ops.add(create(paths.partition(topic, first + i), MetadataRecords.encodePartition(topic, topicId, initial)));
        }
    }

    private static Op create(String path, byte[] data) {
        return Op.create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    }

    private static UUID newTopicId(MetadataImage current) {
        UUID id;
        do {
            id = UUID.randomUUID();
        } while (current.topic(id) != null);
        return id;
    }

    private static ApiException unknownTopic(String name) {
        return new ApiException(Errors.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic: " + name);
    }
}

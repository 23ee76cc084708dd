package io.krill.controller.cluster;

import io.krill.controller.metadata.ApiError;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.NewTopic;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicCreation;
import io.krill.controller.metadata.TopicImage;
import io.krill.controller.metadata.TopicNames;
import io.krill.controller.topic.TopicRequests;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates, deletes and grows topics: each topic with its partition records in single ZooKeeper multi-ops
 * (many topics' multi-ops in flight at once). Each change completes once this broker's image shows it.
 * Config overrides are {@link TopicConfigWriter}'s.
 *
 * <p>Thread-safe: no state of its own; concurrent writers are ordered by ZooKeeper's versions.
 */
final class TopicWriter {
    private static final Logger LOG = LoggerFactory.getLogger(TopicWriter.class);
    private static final int MAX_ATTEMPTS = 10;
    private static final int IMAGE_WAIT_FACTOR = 6;
    /**
     * Ops per multi when several topics are created together: a partition record is about 350 bytes, so
     * a multi stays well below ZooKeeper's jute.maxbuffer (1 MB).
     */
    static final int OPS_PER_CREATE_MULTI = 1_000;

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
        TopicCreation outcome = context.guarded(() -> MetadataWatcher.awaitValue(createTopics(List.of(spec)),
                context.config().operationTimeoutMs() * (IMAGE_WAIT_FACTOR + 2))).get(0);
        if (!outcome.error().isSuccess()) {
            throw new ApiException(outcome.error().error(), outcome.error().message());
        }
        return outcome.topic();
    }

    /**
     * Plans every topic against the current image (and the topics planned before it in the list: two
     * names that collide cannot both be created), sends the creations in multi-ops of up to
     * {@link #OPS_PER_CREATE_MULTI} ops (a topic is created whole or not at all), all in flight at once,
     * and completes once this
     * broker's image shows them (its listeners may still be creating the logs). Never blocks: the ZooKeeper
     * callbacks only hand over to the watcher thread, which completes the future with its next image.
     */
    CompletableFuture<List<TopicCreation>> createTopics(List<NewTopic> specs) {
        context.ensureOpen();
        MetadataImage current = context.image();
        TopicCreation[] outcomes = new TopicCreation[specs.size()];
        UUID[] ids = new UUID[specs.size()];
        List<CompletableFuture<?>> writes = new ArrayList<>();
        List<String> planned = new ArrayList<>();
        boolean[] confirmed = new boolean[specs.size()]; // written, or known not to be
        Set<UUID> newIds = new HashSet<>();
        List<Creation> creations = new ArrayList<>();
        for (int i = 0; i < specs.size(); i++) {
            NewTopic spec = specs.get(i);
            TopicRequests.Plan plan;
            try {
                plan = plan(current, spec);
                for (String other : planned) {
                    if (other.equals(spec.name())) {
                        throw new ApiException(Errors.TOPIC_ALREADY_EXISTS, "Topic '" + spec.name() + "' already exists.");
                    }
                    if (TopicNames.collide(other, spec.name())) {
                        throw new ApiException(Errors.INVALID_TOPIC_EXCEPTION, "Topic '" + spec.name()
                                + "' collides with existing topic: " + other);
                    }
                }
            } catch (ApiException e) {
                outcomes[i] = TopicCreation.failed(spec.name(), ApiError.of(e));
                continue;
            }
            planned.add(spec.name());
            UUID id = newTopicId(current, newIds);
            ids[i] = id;
            List<Op> ops = new ArrayList<>(plan.partitionCount() + 1);
            ops.add(null); // the topic node, once its partitions' initial states are known
            List<PartitionState> initial = addPartitionOps(ops, spec.name(), id, 0, plan.assignments(), current);
            // Brokers learn the new partitions from the topic node alone (MetadataRecords.INITIAL_STATES).
            ops.set(0, create(paths.topic(spec.name()), MetadataRecords.encodeTopic(new MetadataRecords.TopicRecord(
                    spec.name(), id, plan.partitionCount(), spec.internal(), spec.configs(),
                    initial.size() <= MetadataRecords.MAX_INITIAL_STATES ? initial : List.of()))));
            creations.add(new Creation(i, spec, id, plan, ops));
        }
        for (List<Creation> group : groups(creations)) {
            writes.add(write(group, outcomes, confirmed));
        }
        if (planned.isEmpty()) {
            return CompletableFuture.completedFuture(List.of(outcomes));
        }
        long timeoutMs = context.config().operationTimeoutMs();
        return CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new))
                .orTimeout(timeoutMs, TimeUnit.MILLISECONDS)
                .handle((ignored, timeout) -> timeout == null)
                // Every write answered: its watch events reached the watcher before the answer did
                // (ZooKeeper orders a session's notifications before its replies), so the next image
                // after a no-op task shows them. A write not answered may or may not have landed: read.
                .thenCompose(answered -> {
                    List<String> uncertain = new ArrayList<>();
                    for (int i = 0; i < specs.size(); i++) {
                        if (ids[i] != null && !(answered && confirmed[i])) {
                            uncertain.add(specs.get(i).name());
                        }
                    }
                    // Answered once the image shows the topics, not once this broker has created its
                    // replicas' logs (thousands for a large request), as Kafka answers on commit: a
                    // produce that comes first gets a retriable error.
                    return uncertain.isEmpty() ? watcher.publishedBarrier() : watcher.refreshTopicsPublished(uncertain);
                })
                // the image waits for the watcher's batch in progress: allow more than one round trip
                .orTimeout(IMAGE_WAIT_FACTOR * timeoutMs, TimeUnit.MILLISECONDS)
                .handle((after, failure) -> {
                    for (int i = 0; i < specs.size(); i++) {
                        if (outcomes[i] != null) {
                            continue;
                        }
                        TopicImage created = after == null ? null : after.topic(specs.get(i).name());
                        outcomes[i] = created != null && created.id().equals(ids[i])
                                ? TopicCreation.created(created)
                                : TopicCreation.failed(specs.get(i).name(), new ApiError(Errors.REQUEST_TIMED_OUT,
                                        "The creation of topic " + specs.get(i).name() + " was not confirmed by"
                                                + " ZooKeeper in time; it may still exist."));
                    }
                    return List.of(outcomes);
                });
    }

    /** One topic to create: its place in the request and its ops (the topic node first). */
    private record Creation(int index, NewTopic spec, UUID id, TopicRequests.Plan plan, List<Op> ops) {
    }

    /**
     * Consecutive creations in groups of at most {@link #OPS_PER_CREATE_MULTI} ops (a topic larger than
     * that alone): ZooKeeper then handles a few large requests rather than one per topic, which on a busy
     * machine, where every request waits for its server threads to be scheduled, was most of a large
     * CreateTopics.
     */
    private static List<List<Creation>> groups(List<Creation> creations) {
        List<List<Creation>> groups = new ArrayList<>();
        List<Creation> group = new ArrayList<>();
        int ops = 0;
        for (Creation creation : creations) {
            if (!group.isEmpty() && ops + creation.ops().size() > OPS_PER_CREATE_MULTI) {
                groups.add(group);
                group = new ArrayList<>();
                ops = 0;
            }
            group.add(creation);
            ops += creation.ops().size();
        }
        if (!group.isEmpty()) {
            groups.add(group);
        }
        return groups;
    }

    /**
     * Sends a group's creations as one multi. A multi is all or nothing: when it fails because a node
     * exists (another broker created one of its topics meanwhile), each topic is sent again alone, so
     * that only the one that exists fails.
     */
    private CompletableFuture<Void> write(List<Creation> group, TopicCreation[] outcomes, boolean[] confirmed) {
        List<Op> ops = new ArrayList<>();
        for (Creation creation : group) {
            ops.addAll(creation.ops());
        }
        return session.multiAsync(ops).handle((results, failure) -> {
            Throwable cause = failure instanceof java.util.concurrent.CompletionException c ? c.getCause() : failure;
            if (group.size() > 1 && cause instanceof KeeperException.NodeExistsException) {
                List<CompletableFuture<Void>> alone = new ArrayList<>(group.size());
                for (Creation creation : group) {
                    alone.add(write(List.of(creation), outcomes, confirmed));
                }
                return CompletableFuture.allOf(alone.toArray(CompletableFuture[]::new));
            }
            for (Creation creation : group) {
                answered(creation, cause, outcomes, confirmed);
            }
            return CompletableFuture.<Void>completedFuture(null);
        }).thenCompose(next -> next);
    }

    private static void answered(Creation creation, Throwable cause, TopicCreation[] outcomes, boolean[] confirmed) {
        NewTopic spec = creation.spec();
        int index = creation.index();
        if (cause == null) {
            LOG.info("created topic {} ({}) with {} partition(s): {}", spec.name(), creation.id(),
                    creation.plan().partitionCount(), creation.plan().assignments());
        } else if (cause instanceof KeeperException.NodeExistsException) {
            outcomes[index] = TopicCreation.failed(spec.name(), new ApiError(Errors.TOPIC_ALREADY_EXISTS,
                    "Topic '" + spec.name() + "' already exists."));
        } else if (!(cause instanceof KeeperException keeper && ZkSession.isRetriable(keeper.code()))
                && !(cause instanceof ZkUnavailableException)) {
            LOG.error("creating topic {} failed", spec.name(), cause);
            outcomes[index] = TopicCreation.failed(spec.name(), new ApiError(Errors.UNKNOWN_SERVER_ERROR,
                    "Creating the topic failed: " + cause));
        }
        // a lost connection: the creation may have landed; the image tells
        confirmed[index] = cause == null || outcomes[index] != null;
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
                MetadataRecords.TopicRecord grown = new MetadataRecords.TopicRecord(name, topic.id(), totalCount,
                        topic.internal(), topic.configs());
                List<Op> ops = new ArrayList<>();
                ops.add(Op.setData(paths.topic(name), MetadataRecords.encodeTopic(grown), topicStat.getVersion()));
                addPartitionOps(ops, name, topic.id(), existing, plan.assignments(), current);
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

    /** Adds the creation of each new partition's node; returns their states. */
    private List<PartitionState> addPartitionOps(List<Op> ops, String topic, UUID topicId, int first,
                                                 List<List<Integer>> assignments, MetadataImage current) {
        List<PartitionState> states = new ArrayList<>(assignments.size());
        for (int i = 0; i < assignments.size(); i++) {
            List<Integer> replicas = assignments.get(i);
            List<Integer> isr = new ArrayList<>();
            for (int replica : replicas) {
                if (current.broker(replica) != null) {
                    isr.add(replica);
                }
            }
            // Like Kafka's controller, the first live replica leads at once (epoch 0), with the live
            // replicas in sync (their logs are all empty): clients can use the partition as soon as the
            // creation returns.
            PartitionState initial = new PartitionState(first + i, isr.isEmpty() ? PartitionState.NO_LEADER : isr.get(0),
                    0, replicas, isr.isEmpty() ? replicas : isr, 0);
            ops.add(create(paths.partition(topic, first + i), MetadataRecords.encodePartition(topic, topicId, initial)));
            states.add(initial);
        }
        return states;
    }

    private static Op create(String path, byte[] data) {
        return Op.create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    }

    private static UUID newTopicId(MetadataImage current, Set<UUID> taken) {
        UUID id;
        do {
            id = UUID.randomUUID();
        } while (current.topic(id) != null || !taken.add(id));
        return id;
    }

    private static ApiException unknownTopic(String name) {
        return new ApiException(Errors.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic: " + name);
    }
}

package io.krill.broker.share.dlq;

import io.krill.broker.BrokerContext;
import io.krill.broker.config.BrokerConfig;
import io.krill.broker.config.ConfigException;
import io.krill.broker.config.GroupConfigLookup;
import io.krill.broker.config.TopicConfig;
import io.krill.broker.partition.Partition;
import io.krill.broker.partition.PartitionManager;
import io.krill.broker.security.InterBrokerChannel;
import io.krill.broker.security.InterBrokerConnector;
import io.krill.broker.share.dlq.DeadLetterRecords.Batch;
import io.krill.broker.share.dlq.DeadLetterRecords.Originals;
import io.krill.controller.metadata.ApiError;
import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.FinalizedFeatures;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.MetadataStore;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicCreation;
import io.krill.controller.metadata.TopicImage;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.ProduceRequest;
import io.krill.wire.message.ProduceResponse;
import io.krill.wire.protocol.ByteBufRecords;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The share groups' dead-letter queue (KIP-1191, {@code share.version} 2): writes the dead-letter records of
 * archived offsets to the group's dead-letter topic, as Kafka 4.4's {@code ShareGroupDLQStateManager} does, so
 * that a record a consumer rejected or that reached the delivery limit can be found, with where it came from
 * and why, instead of being lost silently.
 *
 * <p>Each {@link #send} is validated against the metadata image and configurations of that moment
 * ({@link DeadLetterTopics#refusal}: a refused topic gives up at once with a {@link ConfigException}); a
 * missing topic is created ({@link DeadLetterTopics#spec}; one created meanwhile by someone else is fine).
 * The records ({@link DeadLetterRecords}; the originals' keys and values read back from this broker's log of
 * the source partition by {@link OriginalRecords} when the group copies them) go in batches of at most the
 * topic's {@code max.message.bytes}, each in a Produce request (acks=all, timeout 30 s) to the leader of the
 * destination partition ({@link DeadLetterTopics#partitionFor}) over the inter-broker listener, this broker
 * included, as Kafka's sender goes through its network client to itself too. A batch is tried at most
 * {@value #MAX_ATTEMPTS} times, the leader read again from the image each time, with Kafka's exponential backoff
 * after a retriable error (1 s times 2 to the number of attempts made, at most 30 s, jitter 20%: about 2, 4, 8
 * and 16 s): NOT_LEADER_OR_FOLLOWER, LEADER_NOT_AVAILABLE, UNKNOWN_TOPIC_OR_PARTITION,
 * NOT_ENOUGH_REPLICAS(_AFTER_APPEND), REQUEST_TIMED_OUT or a network error (Kafka 4.4 retries only
 * NOT_LEADER_OR_FOLLOWER, REQUEST_TIMED_OUT and network errors; the others are transient too, and are
 * retried as well); another error gives up at once. A creation is tried as often, on its retriable errors. The
 * future completes once every batch is written, or exceptionally with the reason (an {@link ApiException} or a
 * {@link ConfigException}) when the write is given up; batches already written stay written (at least once).
 *
 * <p>Threads: every step runs on the {@code share-dlq-writer} thread (a single-threaded scheduler, daemon),
 * backoffs as scheduled tasks; a Produce waits for its answer on that thread (sends are rare: records
 * archived by REJECT or at the delivery limit), so the broker's Produce requests to dead-letter topics go one
 * at a time; a send waiting out a backoff lets the others go on. Topic creations complete on the metadata
 * store's thread and hand back to this one.
 *
 * <p>Thread-safety: {@link #send}, {@link #enabled} and {@link #close} may be called from any thread; a send's
 * state is touched only on the writer thread; the channels (one per destination broker, reconnected after an
 * I/O error) belong to the writer thread, and {@link #close} closes them from its own to unblock it.
 */
public final class DeadLetterWriter implements DeadLetterQueue, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DeadLetterWriter.class);
    static final int MAX_ATTEMPTS = 5;
    static final int PRODUCE_TIMEOUT_MS = 30_000;
    private static final int MAX_RESPONSE_BYTES = 1024 * 1024;
    private static final Set<Errors> RETRIABLE = Set.of(Errors.NOT_LEADER_OR_FOLLOWER, Errors.LEADER_NOT_AVAILABLE,
            Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.NOT_ENOUGH_REPLICAS, Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
            Errors.REQUEST_TIMED_OUT, Errors.NETWORK_EXCEPTION);

    /**
     * Kafka's exponential backoff ({@code ExponentialBackoffManager}, whose count of attempts is raised before it
     * is asked): {@code initialMs * multiplier^attempts}, times a random factor in {@code [1 - jitter, 1 + jitter]},
     * at most {@code maxMs}.
     */
    record Backoff(long initialMs, int multiplier, long maxMs, double jitter) {
        static final Backoff KAFKA = new Backoff(1000, 2, 30_000, 0.2);

        /** The wait after {@code attempts} attempts, the last of which failed. */
        long afterAttempt(int attempts) {
            double term = initialMs * Math.pow(multiplier, Math.max(0, attempts));
            double factor = jitter <= 0 ? 1 : ThreadLocalRandom.current().nextDouble(1 - jitter, 1 + jitter);
            return Math.min(maxMs, (long) (term * factor));
        }
    }

    private final int nodeId;
    private final MetadataStore metadata;
    private final Supplier<BrokerConfig> broker;
    private final GroupConfigLookup groups;
    private final PartitionManager partitions;
    private final InterBrokerConnector connector;
    private final Backoff backoff;
    private final ScheduledExecutorService executor;
    /** Per destination broker id: its address and the open channel (writer thread; closed by close()). */
    private final Map<Integer, Connection> connections = new ConcurrentHashMap<>();
    private final Set<Job> pending = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    private record Connection(InetSocketAddress address, InterBrokerChannel channel) {
    }

    DeadLetterWriter(int nodeId, MetadataStore metadata, Supplier<BrokerConfig> broker, GroupConfigLookup groups,
                     PartitionManager partitions, InterBrokerConnector connector, Backoff backoff) {
        this.nodeId = nodeId;
        this.metadata = metadata;
        this.broker = broker;
        this.groups = groups;
        this.partitions = partitions;
        this.connector = connector;
        this.backoff = backoff;
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "share-dlq-writer");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * The writer of a running broker: its metadata, current configuration, hosted partitions (the originals
     * are read from them), the groups' settings and the inter-broker connector (the Produce requests).
     */
    public static DeadLetterWriter forBroker(BrokerContext context, GroupConfigLookup groupConfigs,
                                             InterBrokerConnector interBroker) {
        return new DeadLetterWriter(context.nodeId(), context.metadata(), context.configs()::current, groupConfigs,
                context.partitions(), interBroker, Backoff.KAFKA);
    }

    @Override
    public boolean enabled(String groupId) {
        return metadata.image().finalizedFeatures().level(FinalizedFeatures.SHARE_VERSION) >= 2
                && groups.deadLetter(groupId).enabled();
    }

    @Override
    public CompletableFuture<Void> send(DeadLetters letters) {
        Job job = new Job(letters);
        pending.add(job);
        job.future.whenComplete((ok, failure) -> pending.remove(job));
        if (closed) {
            job.stopped();
        } else {
            run(job, job::start, 0);
        }
        return job.future;
    }

    /** Runs {@code step} of {@code job} on the writer thread after {@code delayMs}; a step that throws gives the job up. */
    private void run(Job job, Runnable step, long delayMs) {
        try {
            executor.schedule(() -> {
                if (job.future.isDone()) {
                    return;
                }
                try {
                    step.run();
                } catch (RuntimeException e) {
                    job.giveUp(e instanceof ApiException || e instanceof ConfigException ? e
                            : new ApiException(Errors.UNKNOWN_SERVER_ERROR, e.toString(), e));
                }
            }, delayMs, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            job.stopped();
        }
    }

    /** One send: its place in the range and its attempts. Touched only on the writer thread. */
    private final class Job {
        final DeadLetters letters;
        final CompletableFuture<Void> future = new CompletableFuture<>();
        String topic;
        boolean copy;
        int createAttempts;
        /** The first offset not written yet. */
        long next;
        /** The batch being written, kept across its attempts; null between batches. */
        Batch batch;
        int produceAttempts;

        Job(DeadLetters letters) {
            this.letters = letters;
            this.next = letters.firstOffset();
        }

        /** Checks the group's topic now; creates it when missing, else writes. */
        void start() {
            GroupConfigLookup.DeadLetterConfig config = groups.deadLetter(letters.groupId());
            MetadataImage image = metadata.image();
            BrokerConfig brokerConfig = broker.get();
            ConfigException refusal = DeadLetterTopics.refusal(letters.groupId(), config.topic(), image, brokerConfig);
            if (refusal != null) {
                giveUp(refusal);
                return;
            }
            topic = config.topic();
            copy = config.copyRecords();
            if (image.topic(topic) == null) {
                create(image, brokerConfig);
            } else {
                attempt();
            }
        }

        void create(MetadataImage image, BrokerConfig brokerConfig) {
            createAttempts++;
            LOG.debug("Creating dead-letter topic {} for share group {}", topic, letters.groupId());
            CompletableFuture<List<TopicCreation>> creation;
            try {
                creation = metadata.createTopics(List.of(DeadLetterTopics.spec(topic, brokerConfig,
                        image.brokers().size())));
            } catch (ApiException e) {
                creation = CompletableFuture.failedFuture(e);
            }
            creation.whenComplete((outcomes, failure) -> run(this, () -> created(outcomes, failure), 0));
        }

        void created(List<TopicCreation> outcomes, Throwable failure) {
            ApiError error;
            if (failure != null) {
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure;
                error = new ApiError(Errors.forException(cause), String.valueOf(cause.getMessage()));
            } else {
                error = outcomes.get(0).error();
            }
            if (error.isSuccess() || error.error() == Errors.TOPIC_ALREADY_EXISTS) {
                attempt();
            } else if (error.error().isRetriable() && createAttempts < MAX_ATTEMPTS) {
                LOG.debug("Creating dead-letter topic {} of share group {} failed ({}: {}); retrying", topic,
                        letters.groupId(), error.error(), error.message());
                run(this, this::start, backoff.afterAttempt(createAttempts));
            } else {
                giveUp(new ApiException(error.error(), "Unable to create DLQ topic " + topic + ": " + error.message()));
            }
        }

        /** One attempt to write the current batch (built first if there is none). */
        void attempt() {
            if (next > letters.lastOffset()) {
                LOG.debug("Wrote the dead-letter records of share group {} for {} offsets {}..{} to {}",
                        letters.groupId(), letters.source(), letters.firstOffset(), letters.lastOffset(), topic);
                future.complete(null);
                return;
            }
            produceAttempts++;
            MetadataImage image = metadata.image();
            TopicImage target = image.topic(topic);
            if (target == null) {
                retry(Errors.UNKNOWN_TOPIC_OR_PARTITION, "DLQ topic " + topic + " is not in the metadata");
                return;
            }
            if (batch == null) {
                batch = nextBatch(TopicConfig.resolve(target.configs(), broker.get()).maxMessageBytes());
            }
            int index = DeadLetterTopics.partitionFor(letters.source().partition(), target.partitionCount());
            PartitionState state = target.partition(index);
            if (state == null || !state.hasLeader()) {
                retry(Errors.LEADER_NOT_AVAILABLE, topic + "-" + index + " has no leader");
                return;
            }
            String listener = broker.get().listeners().interBrokerListenerName();
            BrokerInfo leader = image.broker(state.leader());
            BrokerInfo.Endpoint endpoint = leader == null ? null : leader.endpoint(listener);
            if (endpoint == null) {
                retry(Errors.LEADER_NOT_AVAILABLE, "the leader " + state.leader() + " of " + topic + "-" + index
                        + " has no endpoint on " + listener);
                return;
            }
            ProduceResponse response;
            try {
                response = produce(leader.nodeId(), new InetSocketAddress(endpoint.host(), endpoint.port()), target,
                        index, batch);
            } catch (IOException e) {
                disconnect(leader.nodeId());
                retry(Errors.NETWORK_EXCEPTION, "Produce to broker " + leader.nodeId() + " failed: " + e.getMessage());
                return;
            }
            ProduceResponse.PartitionProduceResponse answer = answerOf(response, index);
            Errors error = answer == null ? Errors.UNKNOWN_SERVER_ERROR : Errors.forCode(answer.errorCode());
            if (error == Errors.NONE) {
                next = batch.lastOffset() + 1;
                batch = null;
                produceAttempts = 0;
                attempt();
            } else if (RETRIABLE.contains(error)) {
                retry(error, messageOf(answer, error));
            } else {
                giveUp(new ApiException(error, "Unable to produce to DLQ topic " + topic + "-" + index + ": "
                        + (answer == null ? "no answer for the partition" : messageOf(answer, error))));
            }
        }

        Batch nextBatch(int maxBytes) {
            Originals originals = Originals.none(letters.lastOffset());
            if (copy) {
                Partition source = partitions.partition(letters.source().topic(), letters.source().partition());
                if (source != null && source.topicId().equals(letters.topicId())) {
                    originals = OriginalRecords.read(source.log(), source.highWatermark(), next, letters.lastOffset(),
                            maxBytes);
                } else {
                    LOG.info("{} is not hosted here: the dead-letter records of share group {} for offsets {}..{} "
                            + "carry the headers alone", letters.source(), letters.groupId(), next, letters.lastOffset());
                }
            }
            return DeadLetterRecords.nextBatch(letters, next, originals, System.currentTimeMillis(), maxBytes);
        }

        void retry(Errors error, String message) {
            if (produceAttempts >= MAX_ATTEMPTS) {
                giveUp(new ApiException(error, "Exhausted max retries to produce to DLQ topic " + topic
                        + " without success: " + message));
                return;
            }
            long wait = backoff.afterAttempt(produceAttempts);
            LOG.debug("Dead-letter records of share group {} for {} offsets {}..{}: {} ({}), attempt {} of {} in {} ms",
                    letters.groupId(), letters.source(), next, letters.lastOffset(), error, message,
                    produceAttempts + 1, MAX_ATTEMPTS, wait);
            run(this, this::attempt, wait);
        }

        void giveUp(Throwable reason) {
            LOG.warn("Gave up the dead-letter records of share group {} for {} offsets {}..{} (written up to {}): {}",
                    letters.groupId(), letters.source(), letters.firstOffset(), letters.lastOffset(), next - 1,
                    reason.getMessage());
            future.completeExceptionally(reason);
        }

        void stopped() {
            future.completeExceptionally(new ApiException(Errors.BROKER_NOT_AVAILABLE,
                    "The dead-letter queue writer is stopped"));
        }
    }

    /** Sends {@code batch} to broker {@code brokerId} and waits for the answer (writer thread). */
    private ProduceResponse produce(int brokerId, InetSocketAddress address, TopicImage target, int partition,
                                    Batch batch) throws IOException {
        Connection connection = connections.get(brokerId);
        if (connection != null && !connection.address().equals(address)) {
            disconnect(brokerId);
            connection = null;
        }
        if (connection == null) {
            InterBrokerChannel channel = InterBrokerChannel.connect(connector, address,
                    PRODUCE_TIMEOUT_MS + 10_000, 0, "share-dlq-writer-" + nodeId, MAX_RESPONSE_BYTES);
            connection = new Connection(address, channel);
            connections.put(brokerId, connection);
            if (closed) {
                disconnect(brokerId);
                throw new IOException("the dead-letter queue writer is stopped");
            }
        }
        short version = ApiKeys.PRODUCE.highestVersion();
        ProduceRequest request = new ProduceRequest().setAcks((short) -1).setTimeoutMs(PRODUCE_TIMEOUT_MS)
                .setTopicData(List.of(new ProduceRequest.TopicProduceData().setName(target.name())
                        .setTopicId(target.id()).setPartitionData(List.of(new ProduceRequest.PartitionProduceData()
                                .setIndex(partition).setRecords(ByteBufRecords.of(Unpooled.wrappedBuffer(batch.bytes())))))));
        try {
            return connection.channel().call(ApiKeys.PRODUCE, version, request);
        } catch (RuntimeException e) {
            disconnect(brokerId); // the channel's state is unknown: the next attempt reconnects
            throw e;
        }
    }

    private static ProduceResponse.PartitionProduceResponse answerOf(ProduceResponse response, int partition) {
        for (ProduceResponse.TopicProduceResponse topic : response.responses()) {
            for (ProduceResponse.PartitionProduceResponse p : topic.partitionResponses()) {
                if (p.index() == partition) {
                    return p;
                }
            }
        }
        return null;
    }

    private static String messageOf(ProduceResponse.PartitionProduceResponse answer, Errors error) {
        if (answer.errorMessage() != null) {
            return answer.errorMessage();
        }
        if (!answer.recordErrors().isEmpty() && answer.recordErrors().get(0).batchIndexErrorMessage() != null) {
            return answer.recordErrors().get(0).batchIndexErrorMessage();
        }
        return error.message();
    }

    private void disconnect(int brokerId) {
        Connection connection = connections.remove(brokerId);
        if (connection != null) {
            connection.channel().close();
        }
    }

    /**
     * Stops the writer thread and closes its connections; sends not finished fail with BROKER_NOT_AVAILABLE
     * (batches already written stay written).
     */
    @Override
    public void close() {
        closed = true;
        connections.keySet().forEach(this::disconnect); // unblocks a Produce waiting for its answer
        executor.shutdownNow();
        try {
            if (!executor.awaitTermination(5, TimeUnit.SECONDS)) {
                LOG.warn("The share-dlq-writer thread did not stop within 5 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        connections.keySet().forEach(this::disconnect);
        for (Job job : List.copyOf(pending)) {
            job.stopped();
        }
    }
}

package io.krill.broker.api.handlers;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.ApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.api.ResponseChannel;
import io.krill.broker.config.BrokerConfig;
import io.krill.broker.config.SecurityProtocol;
import io.krill.broker.config.TopicConfig;
import io.krill.broker.partition.LogConfigs;
import io.krill.broker.partition.Partition;
import io.krill.broker.partition.PartitionManager;
import io.krill.broker.security.KafkaPrincipal;
import io.krill.broker.security.Session;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.controller.local.LocalMetadataStore;
import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.MetadataStore;
import io.krill.log.AppendOrigin;
import io.krill.log.LogManager;
import io.krill.log.LogManagerConfig;
import io.krill.log.Time;
import io.krill.wire.error.ApiException;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.RequestHeader;
import io.krill.wire.protocol.ApiMessage;
import io.krill.wire.record.RecordBatchBuilder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A broker's parts without the network, for handler tests: node 1 with its metadata store, log
 * manager and partition manager in {@code dir}. {@link #call} sends a request through the wire format
 * at a given version and returns the decoded response, so fields a version lacks are lost as on the
 * wire and a response a version cannot carry fails the test.
 */
final class HandlerFixture implements AutoCloseable {
    static final String LISTENER = "PLAINTEXT";

    final BrokerConfig config;
    final LocalMetadataStore metadata;
    final LogManager logManager;
    final PartitionManager partitions;
    final BrokerContext context;

    private HandlerFixture(Path dir, Map<String, String> overrides) {
        Map<String, String> props = new HashMap<>();
        props.put("node.id", "1");
        props.put("listeners", LISTENER + "://127.0.0.1:9092");
        props.put("log.dirs", dir.toString());
        props.putAll(overrides);
        config = BrokerConfig.from(props);
        metadata = new LocalMetadataStore(dir, new BrokerInfo(1, null,
                Map.of(LISTENER, new BrokerInfo.Endpoint(LISTENER, "127.0.0.1", 9092))), null);
        logManager = new LogManager(LogManagerConfig.builder(List.of(dir))
                .defaultLogConfig(LogConfigs.from(TopicConfig.resolve(Map.of(), config))).build(), Time.SYSTEM,
                topic -> LogConfigs.from(TopicConfig.resolve(Map.of(), config)));
        logManager.startup();
        io.krill.broker.config.DynamicBrokerConfig dynamic = new io.krill.broker.config.DynamicBrokerConfig(config);
        dynamic.startup(metadata.image());
        metadata.addListener(dynamic);
        partitions = new PartitionManager(1, logManager, dynamic::current, () -> false,
                io.krill.broker.partition.ReplicaFollowing.NONE, tp -> { });
        partitions.startup(metadata.image());
        metadata.addListener(partitions);
        context = new BrokerContext(dynamic, metadata, partitions, null, null, new io.krill.broker.metrics.BrokerMetrics(), null,
                Authorization.fromConfig(config, metadata));
    }

    static HandlerFixture start(Path dir) {
        return new HandlerFixture(dir, Map.of());
    }

    static HandlerFixture start(Path dir, Map<String, String> overrides) {
        return new HandlerFixture(dir, overrides);
    }

    /**
     * Encodes {@code body} at {@code version}, lets {@code handler} answer the decoded request (an
     * ApiException becomes its errorResponse, as the network layer does), and decodes the response.
     */
    <T extends ApiMessage> T call(ApiHandler handler, int version, ApiMessage body) {
        return call(handler, version, body, KafkaPrincipal.ANONYMOUS);
    }

    /** As {@link #call(ApiHandler, int, ApiMessage)}, from a connection authenticated as {@code principal}. */
    <T extends ApiMessage> T call(ApiHandler handler, int version, ApiMessage body, KafkaPrincipal principal) {
        AtomicReference<ApiMessage> answer = new AtomicReference<>();
        Request request = request(handler, version, body, principal, answer);
        try {
            handler.handle(request);
        } catch (ApiException e) {
            request.respond(handler.errorResponse(request, e.error()));
        }
        // A cluster store answers from its own thread: wait for it (the local store has answered already).
        org.awaitility.Awaitility.await("the answer").atMost(java.time.Duration.ofSeconds(30))
                .until(() -> answer.get() != null);
        assertNotNull(answer.get(), "answered");
        return decodeResponse(handler, version, answer.get());
    }

    /**
     * A request as the network layer would hand it to {@code handler} (the body through the wire format
     * at {@code version}); its response lands in {@code answer}. For handlers that answer later.
     */
    Request request(ApiHandler handler, int version, ApiMessage body, KafkaPrincipal principal,
                    AtomicReference<ApiMessage> answer) {
        short v = (short) version;
        ApiKeys api = handler.apiKey();
        ApiMessage decoded = api.newRequest();
        decoded.read(roundTrip(body, v), v);
        RequestHeader header = new RequestHeader().setRequestApiKey(api.id()).setRequestApiVersion(v)
                .setCorrelationId(7).setClientId("test");
        InetSocketAddress client = new InetSocketAddress("127.0.0.1", 5555);
        return new Request(header, api, decoded, new Request.Connection(client, LISTENER, "test-1",
                Session.authenticatedAs(principal, client, LISTENER, SecurityProtocol.PLAINTEXT)), new ResponseChannel() {
                    @Override
                    public void send(Request r, ApiMessage response) {
                        answer.set(response);
                    }

                    @Override
                    public void close(Request r, String reason) {
                        throw new AssertionError("connection closed: " + reason);
                    }

                    @Override
                    public void execute(Runnable task) {
                        task.run();
                    }

                    @Override
                    public void whenClosed(Runnable action) {
                        // the connection of a test request never closes
                    }
                }, 0, System.nanoTime());
    }

    /** {@code response} through the wire format at {@code version}, as the client reads it. */
    @SuppressWarnings("unchecked")
    <T extends ApiMessage> T decodeResponse(ApiHandler handler, int version, ApiMessage response) {
        short v = (short) version;
        ApiMessage decoded = handler.apiKey().newResponse();
        decoded.read(roundTrip(response, v), v);
        return (T) decoded;
    }

    /**
     * The fixture's store seen through {@code intercept}: a method it answers (non-null) is answered so,
     * every other call goes to the store. A proxy, so it follows the interface as it changes.
     */
    MetadataStore interceptedStore(java.util.function.BiFunction<java.lang.reflect.Method, Object[], Object> intercept) {
        return (MetadataStore) java.lang.reflect.Proxy.newProxyInstance(MetadataStore.class.getClassLoader(),
                new Class<?>[] {MetadataStore.class}, (proxy, method, args) -> {
                    Object answer = intercept.apply(method, args);
                    if (answer != null) {
                        return answer;
                    }
                    try {
                        return method.invoke(metadata, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /**
     * The fixture's store, except that {@code createTopics} is counted in {@code batches}, its topics
     * kept in {@code asked} and answered with {@code pending} (which the test completes), and
     * {@code createTopic} fails the test: a handler must create its topics in one batch.
     */
    MetadataStore batchCreatingStore(java.util.concurrent.atomic.AtomicInteger batches,
                                     AtomicReference<List<io.krill.controller.metadata.NewTopic>> asked,
                                     java.util.concurrent.CompletableFuture<List<io.krill.controller.metadata.TopicCreation>>
                                             pending) {
        return interceptedStore((method, args) -> {
            if (method.getName().equals("createTopics")) {
                batches.incrementAndGet();
                @SuppressWarnings("unchecked")
                List<io.krill.controller.metadata.NewTopic> topics = (List<io.krill.controller.metadata.NewTopic>) args[0];
                asked.set(topics);
                return pending;
            }
            if (method.getName().equals("createTopic")) {
                throw new AssertionError("one createTopics call, not a createTopic per topic");
            }
            return null;
        });
    }

    /** A call the {@link #holdingStore} answered with a future the test completes. */
    record Held(String method, Object[] args, java.util.concurrent.CompletableFuture<Object> future) {
        /** The change (a UnaryOperator, the call's last argument) applied to {@code current}. */
        @SuppressWarnings("unchecked")
        Map<String, String> apply(Map<String, String> current) {
            return ((java.util.function.UnaryOperator<Map<String, String>>) args[args.length - 1]).apply(current);
        }
    }

    /**
     * The fixture's store, except that every call of a method named in {@code methods} is answered with a
     * new incomplete future, kept with its arguments in {@code held}: the test decides when (and how) the
     * store answers, and can show that a handler returned without waiting for it.
     */
    MetadataStore holdingStore(java.util.Set<String> methods, List<Held> held) {
        return interceptedStore((method, args) -> {
            if (!methods.contains(method.getName())) {
                return null;
            }
            Held call = new Held(method.getName(), args, new java.util.concurrent.CompletableFuture<>());
            held.add(call);
            return call.future();
        });
    }

    /** Replaces an entity's configs in the fixture's store (test set-up; the local store answers at once). */
    void setEntityConfigs(String entity, Map<String, String> configs) {
        metadata.updateEntityConfigsAsync(entity, current -> configs).join();
    }

    /** The fixture's context with another metadata store. */
    BrokerContext contextWith(MetadataStore store) {
        return contextWith(store, context.authorization());
    }

    /** The fixture's context with another metadata store and authorization. */
    BrokerContext contextWith(MetadataStore store, Authorization authorization) {
        return new BrokerContext(context.configs(), store, context.partitions(), context.producePurgatory(),
                context.fetchPurgatory(), context.metrics(), context.isrChanger(), authorization);
    }

    /** Appends {@code count} one-record batches to a partition led here, as a producer with acks=1 would. */
    void append(String topic, int partition, int count) {
        Partition leader = partitions.partition(topic, partition);
        for (int i = 0; i < count; i++) {
            try (RecordBatchBuilder batch = new RecordBatchBuilder(UnpooledByteBufAllocator.DEFAULT)) {
                ByteBuf records = batch.append(1000L + i, ("k" + i).getBytes(StandardCharsets.UTF_8),
                        ("v" + i).getBytes(StandardCharsets.UTF_8)).build();
                try {
                    leader.appendRecordsToLeader(records, 1, AppendOrigin.CLIENT);
                } finally {
                    records.release();
                }
            }
        }
    }

    private static ByteBuf roundTrip(ApiMessage message, short version) {
        ByteBuf buf = Unpooled.buffer(message.size(version));
        message.write(buf, version);
        return buf;
    }

    @Override
    public void close() {
        try {
            logManager.close();
        } finally {
            metadata.close();
        }
    }
}

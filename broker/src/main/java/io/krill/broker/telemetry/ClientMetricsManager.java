package io.krill.broker.telemetry;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.RemovalCause;
import io.krill.controller.metadata.MetadataImage;
import io.krill.wire.error.Errors;
import io.krill.wire.message.GetTelemetrySubscriptionsResponse;
import io.krill.wire.message.PushTelemetryResponse;
import io.krill.wire.record.CompressionType;
import io.krill.wire.record.CorruptRecordException;
import io.krill.wire.record.compression.Compression;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Client telemetry (KIP-714) on this broker, as Kafka 4.4's {@code ClientMetricsManager} serves it, with the
 * pushed metrics kept for /metrics instead of handed to a plugin.
 *
 * <p>Subscriptions are the CLIENT_METRICS entity configs of the metadata image ({@code client-metrics/<name>}),
 * parsed again whenever they change, which bumps a version. A client instance (a UUID the broker assigns to a
 * GetTelemetrySubscriptions with the zero id) gets the union of the metric prefixes of the subscriptions that
 * match it ({@code *} if any asks for all), the smallest of their intervals and Kafka's default 300,000 ms, and a
 * subscription id hashed from them (CRC32C, as Kafka); it is computed again at its first request after the
 * subscriptions change, so an older id pushed then is UNKNOWN_SUBSCRIPTION_ID. Instances live in a Caffeine cache
 * of at most {@link #MAX_INSTANCES}, each kept max(60 s, 3 push intervals) after its last request, or until the
 * connection that created it closes (Kafka's bounds); its series go with it. Series of all instances together are at most {@code maxSeries}; points of new
 * series beyond that are dropped and counted.
 *
 * <p>Thread-safe: the cache and counters are concurrent, each {@link ClientInstance} guards itself, and the
 * parsed subscriptions are an immutable snapshot replaced under this object's monitor. Requests run on the
 * request threads; decoding a push is bounded by {@code telemetry.max.bytes} and {@link #MAX_DECOMPRESSED_BYTES}.
 */
public final class ClientMetricsManager {
    private static final Logger LOG = LoggerFactory.getLogger(ClientMetricsManager.class);
    static final int MAX_INSTANCES = 16_384;
    static final long MIN_TTL_MS = 60_000;
    /** The most a pushed payload may decompress to. */
    static final int MAX_DECOMPRESSED_BYTES = 32 * 1024 * 1024;
    /** What a GetTelemetrySubscriptions response offers, in Kafka's order. */
    static final List<Byte> ACCEPTED_COMPRESSION = List.of((byte) CompressionType.ZSTD.id, (byte) CompressionType.LZ4.id,
            (byte) CompressionType.GZIP.id, (byte) CompressionType.SNAPPY.id);
    private static final UUID ZERO = new UUID(0, 0);
    private static final UUID METADATA_TOPIC_ID = new UUID(0, 1);

    private final Supplier<MetadataImage> image;
    private final int telemetryMaxBytes;
    private final int maxSeries;
    private final LongSupplier clockMs;
    private final Cache<UUID, ClientInstance> instances;
    private final AtomicInteger seriesCount = new AtomicInteger();
    private final AtomicLong seriesDropped = new AtomicLong();
    private final AtomicLong pushesRefused = new AtomicLong();
    /** Each open connection that created an instance, to the last instance it created. */
    private final Map<String, UUID> connections = new ConcurrentHashMap<>();
    private volatile Subscriptions subscriptions = new Subscriptions(Map.of(), List.of(), 0);

    /**
     * The client as a request shows it: the attributes a subscription may match, and its connection
     * ({@code connectionId}, null for none; {@code whenClosed} registers what to do when it closes).
     */
    public record Client(String clientId, String softwareName, String softwareVersion, InetAddress address, int port,
                         String connectionId, Consumer<Runnable> whenClosed) {
        /** A client whose connection is not followed (its instance only expires). */
        public Client(String clientId, String softwareName, String softwareVersion, InetAddress address, int port) {
            this(clientId, softwareName, softwareVersion, address, port, null, action -> { });
        }
    }

    private record Subscriptions(Map<String, Map<String, String>> raw, List<ClientMetricsSubscription> parsed,
                                 int version) {
    }

    public ClientMetricsManager(Supplier<MetadataImage> image, int telemetryMaxBytes, int maxSeries,
                                LongSupplier clockMs) {
        this.image = image;
        this.telemetryMaxBytes = telemetryMaxBytes;
        this.maxSeries = maxSeries;
        this.clockMs = clockMs;
        this.instances = Caffeine.newBuilder()
                .maximumSize(MAX_INSTANCES)
                .executor(Runnable::run)
                .ticker(() -> TimeUnit.MILLISECONDS.toNanos(clockMs.getAsLong()))
                .expireAfter(new Expiry<UUID, ClientInstance>() {
                    @Override
                    public long expireAfterCreate(UUID key, ClientInstance value, long now) {
                        return TimeUnit.MILLISECONDS.toNanos(value.ttlMs(MIN_TTL_MS));
                    }

                    @Override
                    public long expireAfterUpdate(UUID key, ClientInstance value, long now, long left) {
                        return TimeUnit.MILLISECONDS.toNanos(value.ttlMs(MIN_TTL_MS));
                    }

                    @Override
                    public long expireAfterRead(UUID key, ClientInstance value, long now, long left) {
                        return TimeUnit.MILLISECONDS.toNanos(value.ttlMs(MIN_TTL_MS));
                    }
                })
                .removalListener((UUID id, ClientInstance gone, RemovalCause cause) -> {
                    if (gone != null) {
                        seriesCount.addAndGet(-gone.seriesCount());
                    }
                })
                .build();
    }

    /** The names of the subscriptions (CLIENT_METRICS resources) with configs, for ListConfigResources. */
    public Set<String> subscriptionNames() {
        return current().raw().keySet();
    }

    /** GetTelemetrySubscriptions: Kafka's answer, a new instance id for the zero (or null) id. */
    public GetTelemetrySubscriptionsResponse getSubscriptions(UUID requested, Client client) {
        long now = clockMs.getAsLong();
        UUID id = requested == null || requested.equals(ZERO) ? newInstanceId() : requested;
        ClientInstance instance = instance(id, client);
        if (!instance.maybeUpdateGetRequestTimestamp(now)) {
            Errors last = instance.lastKnownError();
            if (last != Errors.UNKNOWN_SUBSCRIPTION_ID && last != Errors.UNSUPPORTED_COMPRESSION_TYPE) {
                return new GetTelemetrySubscriptionsResponse().setErrorCode(Errors.THROTTLING_QUOTA_EXCEEDED.code());
            }
        }
        instance.lastKnownError(Errors.NONE);
        return new GetTelemetrySubscriptionsResponse()
                .setClientInstanceId(id)
                .setSubscriptionId(instance.subscriptionId)
                .setRequestedMetrics(new ArrayList<>(instance.requestedMetrics()))
                .setAcceptedCompressionTypes(new ArrayList<>(ACCEPTED_COMPRESSION))
                .setPushIntervalMs(instance.pushIntervalMs)
                .setTelemetryMaxBytes(telemetryMaxBytes)
                // Cumulative sums: what Prometheus expects of a counter (Kafka asks for deltas, for its plugins).
                .setDeltaTemporality(false)
                .setErrorCode(Errors.NONE.code());
    }

    /**
     * PushTelemetry: Kafka's checks in Kafka's order (a terminated instance, too early, an old subscription id,
     * an unknown codec, too large), then the metrics decoded into the instance's series (INVALID_RECORD if they
     * do not decompress or decode).
     */
    public PushTelemetryResponse push(UUID id, int subscriptionId, boolean terminating, byte compression,
                                      ByteBuf metrics, Client client) {
        if (id == null || id.equals(ZERO) || id.equals(METADATA_TOPIC_ID)) {
            return error(Errors.INVALID_REQUEST);
        }
        long now = clockMs.getAsLong();
        ClientInstance instance = instance(id, client);
        Errors refused = check(instance, subscriptionId, terminating, compression, metrics, now);
        if (refused != Errors.NONE) {
            pushesRefused.incrementAndGet();
            instance.lastKnownError(refused);
            instance.terminating(terminating);
            return error(refused);
        }
        instance.terminating(terminating);
        if (metrics != null && metrics.readableBytes() > 0) {
            try {
                byte[] data = decompress(CompressionType.forId(compression), metrics);
                OtlpMetricsDecoder.decode(data, point -> record(instance, point));
            } catch (ProtoReader.MalformedProtoException | CorruptRecordException e) {
                LOG.debug("Undecodable telemetry from client instance {}: {}", id, e.getMessage());
                instance.lastKnownError(Errors.INVALID_RECORD);
                return error(Errors.INVALID_RECORD);
            }
        }
        instance.lastKnownError(Errors.NONE);
        return new PushTelemetryResponse().setErrorCode(Errors.NONE.code());
    }

    private Errors check(ClientInstance instance, int subscriptionId, boolean terminating, byte compression,
                         ByteBuf metrics, long now) {
        if (instance.terminating()) {
            return Errors.INVALID_REQUEST;
        }
        if (!instance.maybeUpdatePushRequestTimestamp(now) && !terminating) {
            return Errors.THROTTLING_QUOTA_EXCEEDED;
        }
        if (subscriptionId != instance.subscriptionId) {
            return Errors.UNKNOWN_SUBSCRIPTION_ID;
        }
        if (CompressionType.forId(compression) == null) {
            return Errors.UNSUPPORTED_COMPRESSION_TYPE;
        }
        if (metrics != null && metrics.readableBytes() > telemetryMaxBytes) {
            return Errors.TELEMETRY_TOO_LARGE;
        }
        return Errors.NONE;
    }

    private static byte[] decompress(CompressionType type, ByteBuf metrics) {
        if (type == CompressionType.NONE) {
            byte[] data = new byte[metrics.readableBytes()];
            metrics.getBytes(metrics.readerIndex(), data);
            return data;
        }
        ByteBuf out = Unpooled.buffer(Math.min(MAX_DECOMPRESSED_BYTES, metrics.readableBytes() * 4));
        try {
            Compression.of(type).decompress(metrics, out, MAX_DECOMPRESSED_BYTES);
            byte[] data = new byte[out.readableBytes()];
            out.readBytes(data);
            return data;
        } catch (RuntimeException e) {
            if (e instanceof CorruptRecordException) {
                throw e;
            }
            throw new ProtoReader.MalformedProtoException("cannot decompress " + type.configName + ": " + e);
        } finally {
            out.release();
        }
    }

    private void record(ClientInstance instance, OtlpMetricsDecoder.Point point) {
        ClientInstance.SeriesKey key = new ClientInstance.SeriesKey(point.metric(), point.kind(), point.attributes());
        int added = instance.record(key, point, () -> {
            if (seriesCount.incrementAndGet() <= maxSeries) {
                return true;
            }
            seriesCount.decrementAndGet();
            return false;
        });
        if (added < 0) {
            seriesDropped.incrementAndGet();
        }
    }

    private static PushTelemetryResponse error(Errors error) {
        return new PushTelemetryResponse().setErrorCode(error.code());
    }

    /** The cached instance, or a new one (also when the subscriptions changed since it was computed). */
    private ClientInstance instance(UUID id, Client client) {
        Subscriptions subs = current();
        ClientInstance instance = instances.getIfPresent(id);
        if (instance == null || instance.subscriptionVersion < subs.version()) {
            synchronized (this) {
                instance = instances.getIfPresent(id);
                if (instance == null || instance.subscriptionVersion < subs.version()) {
                    Map<String, String> attributes = instance != null ? instance.attributes : attributes(id, client);
                    instance = create(id, attributes, subs);
                    instances.put(id, instance);
                    followConnection(id, client);
                }
            }
        }
        return instance;
    }

    /**
     * Kafka's {@code ClientConnectionDisconnectListener}: an instance is forgotten, with its series, when the
     * connection that created it closes; a client that connects again gets a new instance (and is not
     * throttled by the old one's timestamps). One close action per connection.
     */
    private void followConnection(UUID id, Client client) {
        String connectionId = client.connectionId();
        if (connectionId != null && connections.put(connectionId, id) == null) {
            client.whenClosed().accept(() -> {
                UUID created = connections.remove(connectionId);
                if (created != null) {
                    instances.invalidate(created);
                }
            });
        }
    }

    private static Map<String, String> attributes(UUID id, Client client) {
        Map<String, String> attributes = new HashMap<>();
        attributes.put(ClientMetricsConfigs.CLIENT_INSTANCE_ID, kafkaString(id));
        attributes.put(ClientMetricsConfigs.CLIENT_ID, client.clientId() == null ? "" : client.clientId());
        attributes.put(ClientMetricsConfigs.CLIENT_SOFTWARE_NAME, client.softwareName());
        attributes.put(ClientMetricsConfigs.CLIENT_SOFTWARE_VERSION, client.softwareVersion());
        attributes.put(ClientMetricsConfigs.CLIENT_SOURCE_ADDRESS,
                client.address() == null ? "" : client.address().getHostAddress());
        attributes.put(ClientMetricsConfigs.CLIENT_SOURCE_PORT, Integer.toString(client.port()));
        return attributes;
    }

    private static ClientInstance create(UUID id, Map<String, String> attributes, Subscriptions subs) {
        int interval = ClientMetricsConfigs.DEFAULT_INTERVAL_MS;
        Set<String> metrics = new HashSet<>();
        boolean all = false;
        for (ClientMetricsSubscription subscription : subs.parsed()) {
            if (subscription.matches(attributes)) {
                all = all || subscription.metrics().contains(ClientMetricsConfigs.ALL_METRICS);
                metrics.addAll(subscription.metrics());
                interval = Math.min(interval, subscription.intervalMs());
            }
        }
        if (all) {
            metrics.clear();
            metrics.add(ClientMetricsConfigs.ALL_METRICS);
        }
        return new ClientInstance(id, attributes, subscriptionId(metrics, interval, id), subs.version(), metrics,
                interval);
    }

    /**
     * A UUID as Kafka writes it ({@code Uuid.toString}: URL-safe base64 of its 16 bytes, unpadded), the form the
     * {@code client_instance_id} selector matches and the label shows, as clients print their instance id.
     */
    public static String kafkaString(UUID id) {
        java.nio.ByteBuffer bytes = java.nio.ByteBuffer.allocate(16);
        bytes.putLong(id.getMostSignificantBits()).putLong(id.getLeastSignificantBits());
        return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.array());
    }

    /** Kafka's subscription id: CRC32C of the metrics set's text and the interval, xor the instance id's hash. */
    static int subscriptionId(Set<String> metrics, int intervalMs, UUID id) {
        byte[] bytes = (metrics.toString() + intervalMs).getBytes(StandardCharsets.UTF_8);
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length);
        return (int) crc.getValue() ^ id.hashCode();
    }

    private UUID newInstanceId() {
        UUID id = UUID.randomUUID();
        while (instances.getIfPresent(id) != null || id.equals(ZERO) || id.equals(METADATA_TOPIC_ID)) {
            id = UUID.randomUUID();
        }
        return id;
    }

    /** The subscriptions of the current image, parsed again (a new version) when they changed. */
    private Subscriptions current() {
        Map<String, Map<String, String>> raw = new TreeMap<>();
        image.get().entitiesOfType(ClientMetricsConfigs.ENTITY_TYPE).forEach((name, configs) -> {
            if (!configs.isEmpty()) {
                raw.put(name, configs);
            }
        });
        Subscriptions seen = subscriptions;
        if (seen.raw().equals(raw)) {
            return seen;
        }
        synchronized (this) {
            seen = subscriptions;
            if (!seen.raw().equals(raw)) {
                List<ClientMetricsSubscription> parsed = new ArrayList<>();
                raw.forEach((name, configs) -> {
                    try {
                        parsed.add(ClientMetricsConfigs.parse(name, configs));
                    } catch (RuntimeException e) {
                        LOG.warn("Client metrics subscription {} ignored: {}", name, e.getMessage());
                    }
                });
                seen = new Subscriptions(Map.copyOf(raw), List.copyOf(parsed), seen.version() + 1);
                subscriptions = seen;
            }
            return seen;
        }
    }

    /** The live instances (expired ones are left out), for /metrics. */
    Collection<ClientInstance> instances() {
        instances.cleanUp();
        return List.copyOf(instances.asMap().values());
    }

    /** Series kept now, over all instances. */
    public int seriesCount() {
        return seriesCount.get();
    }

    /** Points of new series dropped because {@code krill.client.telemetry.max.series} was reached. */
    public long seriesDropped() {
        return seriesDropped.get();
    }

    /** Pushes answered with an error. */
    public long pushesRefused() {
        return pushesRefused.get();
    }
}

package io.krill.broker.quota;

import io.krill.broker.api.Request;
import io.krill.broker.config.BrokerConfig;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.MetadataListener;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.FetchRequest;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Client quotas (KIP-13, KIP-55, KIP-124): what each (user, client-id) may use, measured and turned into
 * throttle times the way Kafka's ClientQuotaManager does.
 *
 * <p>Quotas are entity configs in the metadata image (see {@link QuotaEntities}); every broker reads them
 * from its own image. For one quota type a client's quota is that of the most specific entity that sets
 * it, in Kafka's order: users/U/clients/C, users/U/clients/&lt;default&gt;, users/U,
 * users/&lt;default&gt;/clients/C, users/&lt;default&gt;/clients/&lt;default&gt;, users/&lt;default&gt;,
 * clients/C, clients/&lt;default&gt;. Usage is measured per quota "key" as in Kafka: (user, client-id)
 * when the match was a user/client-id entity, (user) for a user entity, (client-id) for a client-id
 * entity, with the actual names even when the entity was a default, so every default user gets its own
 * allowance while connections of one user share theirs.
 *
 * <p>A resolved quota is cached per (user, client-id) in a table that is replaced whenever the quota
 * configs in the image change; the measured rates live on across such changes. Rates and cache entries
 * idle for an hour are dropped. With no quota configured for a type, each record call costs one volatile
 * read and allocates nothing; with quotas, a cached lookup allocates nothing either.
 *
 * <p>Thread-safe: the table is immutable apart from its concurrent cache; rates lock themselves.
 */
public final class ClientQuotas implements MetadataListener {
    private static final Logger LOG = LoggerFactory.getLogger(ClientQuotas.class);
    private static final long INACTIVE_EXPIRY_MS = 3_600_000;
    private static final long SWEEP_INTERVAL_MS = 60_000;
    private static final QuotaType[] TYPES = QuotaType.values();

    /** Quotas for nobody: every call answers "no throttle" (tests, tools). */
    public static final ClientQuotas DISABLED = new ClientQuotas(11, 1, null);

    private final int samples;
    private final long windowMs;
    private final ConcurrentHashMap<String, QuotaRate> rates = new ConcurrentHashMap<>();
    private final AtomicLong nextSweepMs = new AtomicLong();
    private final CounterDataPoint[] throttleSeconds = new CounterDataPoint[TYPES.length];
    private final CounterDataPoint[] throttledResponses = new CounterDataPoint[TYPES.length];
    private volatile Table table = Table.EMPTY;

    /**
     * @param samples       quota.window.num
     * @param windowSeconds quota.window.size.seconds
     * @param registry      where throttle metrics go, or null for none
     */
    public ClientQuotas(int samples, int windowSeconds, PrometheusRegistry registry) {
        this.samples = samples;
        this.windowMs = windowSeconds * 1000L;
        if (registry != null) {
            Counter seconds = Counter.builder().name("krill_quota_throttle_seconds_total")
                    .help("Throttle time given to clients over a quota, by quota type").labelNames("quota")
                    .register(registry);
            Counter responses = Counter.builder().name("krill_quota_throttled_responses_total")
                    .help("Responses that throttled their client, by quota type").labelNames("quota")
                    .register(registry);
            for (QuotaType type : TYPES) {
                throttleSeconds[type.ordinal()] = seconds.labelValues(type.configKey());
                throttledResponses[type.ordinal()] = responses.labelValues(type.configKey());
            }
        }
    }

    public static ClientQuotas forBroker(BrokerConfig config, PrometheusRegistry registry) {
        return new ClientQuotas(config.values().getInt("quota.window.num"),
                config.values().getInt("quota.window.size.seconds"), registry);
    }

    /** Reads the quotas of {@code image}; call once before serving, then register as a listener. */
    public void startup(MetadataImage image) {
        onChange(null, image);
    }

    @Override
    public void onChange(MetadataImage previous, MetadataImage current) {
        Map<String, Map<String, String>> source = quotaConfigs(current);
        if (source.equals(table.source)) {
            return;
        }
        table = new Table(source);
        LOG.info("Client quotas now: {}", source.isEmpty() ? "none" : source);
    }

    /** Whether any entity sets a quota of {@code type}. */
    public boolean enabled(QuotaType type) {
        return table.enabled[type.ordinal()];
    }

    /** Records the bytes of a produce request; returns the throttle time in ms (0 when within quota). */
    public int recordProduce(Request request, long bytes, long nowMs) {
        return record(QuotaType.PRODUCE, request, bytes, nowMs);
    }

    /** Records the bytes of a fetch response; returns the throttle time in ms. */
    public int recordFetch(Request request, long bytes, long nowMs) {
        return record(QuotaType.FETCH, request, bytes, nowMs);
    }

    /** Takes back bytes recorded by {@link #recordFetch} for a response that went out empty instead. */
    public void unrecordFetch(Request request, long bytes, long nowMs) {
        Limit limit = limit(QuotaType.FETCH, request, nowMs);
        if (limit != null) {
            limit.rate.record(-bytes, nowMs);
        }
    }

    /** Records time a request spent on a request thread; returns the throttle time in ms. */
    public int recordRequestTime(Request request, long nanos, long nowMs) {
        if (!table.enabled[QuotaType.REQUEST.ordinal()] || exemptFromRequestQuota(request)) {
            return 0;
        }
        // Kafka's unit: percent of one thread, so a rate of 100 is one thread busy all the time.
        return record(QuotaType.REQUEST, request, nanos * (100.0 / 1_000_000_000L), nowMs);
    }

    /**
     * The most a consumer's fetch should return: what its quota allows in the whole window when nothing
     * else was recorded (Kafka caps fetch.max.bytes to it so a fetch can always go out unthrottled).
     */
    public long maxFetchBytes(Request request, long nowMs) {
        Limit limit = limit(QuotaType.FETCH, request, nowMs);
        if (limit == null) {
            return Long.MAX_VALUE;
        }
        return (long) Math.min(Long.MAX_VALUE, limit.bound * (samples - 1) * (windowMs / 1000.0));
    }

    /** The quota of {@code type} that applies to (user, client-id), or NaN for none (tests, docs). */
    public double quota(QuotaType type, String user, String clientId) {
        Limit limit = resolve(table, user, clientId == null ? "" : clientId, System.currentTimeMillis())
                .limits[type.ordinal()];
        return limit == null ? Double.NaN : limit.bound;
    }

    /**
     * Inter-broker requests are not limited: a follower's fetch and transaction markers (Kafka exempts
     * cluster actions and replication from client quotas).
     */
    static boolean exemptFromRequestQuota(Request request) {
        if (request.api() == ApiKeys.WRITE_TXN_MARKERS) {
            return true;
        }
        if (request.api() == ApiKeys.FETCH) {
            FetchRequest body = request.body();
            int replicaId = request.version() >= 15 ? body.replicaState().replicaId() : body.replicaId();
            return replicaId >= 0;
        }
        return false;
    }

    private int record(QuotaType type, Request request, double value, long nowMs) {
        Limit limit = limit(type, request, nowMs);
        if (limit == null) {
            return 0;
        }
        long max = type == QuotaType.REQUEST ? windowMs : samples * windowMs;
        long throttleMs = limit.rate.recordAndThrottle(value, nowMs, limit.bound, max);
        if (throttleMs > 0) {
            int i = type.ordinal();
            if (throttleSeconds[i] != null) {
                throttleSeconds[i].inc(throttleMs / 1000.0);
                throttledResponses[i].inc();
            }
            if (LOG.isDebugEnabled()) {
                LOG.debug("{} quota {} of user={} client-id={} exceeded by {}: throttled {} ms", type.configKey(),
                        limit.bound, limit.userTag, limit.clientTag, request, throttleMs);
            }
        }
        maybeSweep(nowMs);
        return (int) throttleMs;
    }

    private Limit limit(QuotaType type, Request request, long nowMs) {
        Table current = table;
        if (!current.enabled[type.ordinal()]) {
            return null;
        }
        String clientId = request.clientId();
        Resolved resolved = resolve(current, request.principal().name(), clientId == null ? "" : clientId, nowMs);
        resolved.lastUsedMs = nowMs;
        return resolved.limits[type.ordinal()];
    }

    private Resolved resolve(Table current, String user, String clientId, long nowMs) {
        ConcurrentHashMap<String, Resolved> byClient = current.cache.get(user);
        if (byClient == null) {
            byClient = current.cache.computeIfAbsent(user, u -> new ConcurrentHashMap<>());
        }
        Resolved resolved = byClient.get(clientId);
        if (resolved == null) {
            resolved = byClient.computeIfAbsent(clientId, c -> resolveNow(current, user, c, nowMs));
        }
        return resolved;
    }

    /** Kafka's precedence, per quota type; see the class comment. */
    private Resolved resolveNow(Table current, String user, String clientId, long now) {
        String u = QuotaEntities.part(user);
        String c = QuotaEntities.part(clientId);
        String d = QuotaEntities.DEFAULT;
        String[] entities = {
            "users/" + u + "/clients/" + c, "users/" + u + "/clients/" + d, "users/" + u,
            "users/" + d + "/clients/" + c, "users/" + d + "/clients/" + d, "users/" + d,
            "clients/" + c, "clients/" + d};
        // The measuring key of each level: user and client-id, user only, client-id only.
        String[] userTags = {user, user, user, user, user, user, "", ""};
        String[] clientTags = {clientId, clientId, "", clientId, clientId, "", clientId, clientId};
        Limit[] limits = new Limit[TYPES.length];
        for (QuotaType type : TYPES) {
            int t = type.ordinal();
            for (int i = 0; i < entities.length; i++) {
                double[] bounds = current.bounds.get(entities[i]);
                if (bounds != null && !Double.isNaN(bounds[t])) {
                    String key = t + "\u0000" + userTags[i] + "\u0000" + clientTags[i];
                    QuotaRate rate = rates.computeIfAbsent(key, k -> new QuotaRate(samples, windowMs, now));
                    limits[t] = new Limit(bounds[t], rate, userTags[i], clientTags[i]);
                    break;
                }
            }
        }
        return new Resolved(limits);
    }

    private void maybeSweep(long nowMs) {
        long next = nextSweepMs.get();
        if (nowMs < next || !nextSweepMs.compareAndSet(next, nowMs + SWEEP_INTERVAL_MS)) {
            return;
        }
        long idleSince = nowMs - INACTIVE_EXPIRY_MS;
        for (Iterator<ConcurrentHashMap<String, Resolved>> users = table.cache.values().iterator(); users.hasNext(); ) {
            ConcurrentHashMap<String, Resolved> byClient = users.next();
            byClient.values().removeIf(r -> r.lastUsedMs < idleSince);
            if (byClient.isEmpty()) {
                users.remove();
            }
        }
        rates.values().removeIf(rate -> rate.lastRecordMs() < idleSince);
    }

    /** The user and client-id quota keys of the image, by entity name (ip entities are not client quotas). */
    private static Map<String, Map<String, String>> quotaConfigs(MetadataImage image) {
        Map<String, Map<String, String>> source = new HashMap<>();
        image.allEntityConfigs().forEach((entity, configs) -> {
            if (!entity.startsWith("users/") && !entity.startsWith("clients/")) {
                return;
            }
            Map<String, String> quotas = new HashMap<>();
            for (QuotaType type : TYPES) {
                String value = configs.get(type.configKey());
                if (value != null) {
                    quotas.put(type.configKey(), value);
                }
            }
            if (!quotas.isEmpty() && QuotaEntities.parse(entity) != null) {
                source.put(entity, Map.copyOf(quotas));
            }
        });
        return Map.copyOf(source);
    }

    /** One quota that applies: its bound and the rate it is measured by, with the key's names (for logs). */
    private record Limit(double bound, QuotaRate rate, String userTag, String clientTag) {
    }

    /** The quotas of one (user, client-id), per type (null where none applies). */
    private static final class Resolved {
        final Limit[] limits;
        volatile long lastUsedMs;

        Resolved(Limit[] limits) {
            this.limits = limits;
        }
    }

    /** The quota configs of one image, parsed, with the resolutions made from them. */
    private static final class Table {
        static final Table EMPTY = new Table(Map.of());

        final Map<String, Map<String, String>> source;
        final Map<String, double[]> bounds = new HashMap<>();
        final boolean[] enabled = new boolean[TYPES.length];
        final ConcurrentHashMap<String, ConcurrentHashMap<String, Resolved>> cache = new ConcurrentHashMap<>();

        Table(Map<String, Map<String, String>> source) {
            this.source = source;
            source.forEach((entity, configs) -> {
                double[] values = new double[TYPES.length];
                java.util.Arrays.fill(values, Double.NaN);
                for (QuotaType type : TYPES) {
                    String text = configs.get(type.configKey());
                    if (text == null) {
                        continue;
                    }
                    try {
                        double value = Double.parseDouble(text);
                        if (value > 0 && Double.isFinite(value)) {
                            values[type.ordinal()] = value;
                            enabled[type.ordinal()] = true;
                        }
                    } catch (NumberFormatException e) {
                        LOG.warn("Ignoring {}={} of {}: not a number", type.configKey(), text, entity);
                    }
                }
                bounds.put(entity, values);
            });
        }
    }
}

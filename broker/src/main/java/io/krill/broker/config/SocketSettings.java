package io.krill.broker.config;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Typed view of the network keys: socket buffers, request limits, connection limits, network threads.
 * Immutable and thread-safe.
 */
public final class SocketSettings {
    private static final String OVERRIDES = "max.connections.per.ip.overrides";

    private final ConfigValues v;
    private final Map<String, Integer> maxConnectionsPerIpOverrides;

    SocketSettings(ConfigValues v) {
        this.v = v;
        this.maxConnectionsPerIpOverrides = parseConnectionOverrides(v.getString(OVERRIDES));
    }

    /**
     * Parses {@code host:count,ip:count,...}.
     *
     * @return an unmodifiable map in entry order
     * @throws ConfigException if malformed
     */
    static Map<String, Integer> parseConnectionOverrides(String raw) {
        Map<String, Integer> map = new LinkedHashMap<>();
        for (String entry : ConfigType.splitList(raw)) {
            int colon = entry.lastIndexOf(':');
            try {
                if (colon <= 0) {
                    throw new NumberFormatException();
                }
                int count = Integer.parseInt(entry.substring(colon + 1).trim());
                if (count < 0) {
                    throw new NumberFormatException();
                }
                map.put(entry.substring(0, colon).trim(), count);
            } catch (NumberFormatException e) {
                throw new ConfigException(OVERRIDES, raw, "entry '" + entry + "' is not of the form host:count");
            }
        }
        return Map.copyOf(map);
    }

    public int socketSendBufferBytes() {
        return v.getInt("socket.send.buffer.bytes");
    }

    public int socketReceiveBufferBytes() {
        return v.getInt("socket.receive.buffer.bytes");
    }

    public int socketRequestMaxBytes() {
        return v.getInt("socket.request.max.bytes");
    }

    public int socketListenBacklogSize() {
        return v.getInt("socket.listen.backlog.size");
    }

    public int maxConnections() {
        return v.getInt("max.connections");
    }

    public int maxConnectionsPerIp() {
        return v.getInt("max.connections.per.ip");
    }

    /** Per host or IP limits overriding {@link #maxConnectionsPerIp()}. */
    public Map<String, Integer> maxConnectionsPerIpOverrides() {
        return maxConnectionsPerIpOverrides;
    }

    public int maxConnectionCreationRate() {
        return v.getInt("max.connection.creation.rate");
    }

    public long connectionsMaxIdleMs() {
        return v.getLong("connections.max.idle.ms");
    }

    public int connectionFailedAuthenticationDelayMs() {
        return v.getInt("connection.failed.authentication.delay.ms");
    }

    public int queuedMaxRequests() {
        return v.getInt("queued.max.requests");
    }

    /** -1 (or any value &lt;= 0) means no limit. */
    public long queuedMaxRequestBytes() {
        return v.getLong("queued.max.request.bytes");
    }

    public int numNetworkThreads() {
        return v.getInt("num.network.threads");
    }

    public int numIoThreads() {
        return v.getInt("num.io.threads");
    }

    public int backgroundThreads() {
        return v.getInt("background.threads");
    }

    public int requestTimeoutMs() {
        return v.getInt("request.timeout.ms");
    }

    public int fetchMaxBytes() {
        return v.getInt("fetch.max.bytes");
    }

    public int maxIncrementalFetchSessionCacheSlots() {
        return v.getInt("max.incremental.fetch.session.cache.slots");
    }

    public int maxRequestPartitionSizeLimit() {
        return v.getInt("max.request.partition.size.limit");
    }
}

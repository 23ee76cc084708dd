package io.krill.broker.net;

import io.krill.broker.config.SocketSettings;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code max.connections} (all listeners together) and {@code max.connections.per.ip} with its
 * {@code max.connections.per.ip.overrides} (host names resolved once, at start): a connection over a
 * limit is closed as soon as it is accepted, as Kafka does; a connection's slot is released when it
 * closes.
 *
 * <p>Thread-safe: counts are kept under the instance lock (taken once per accept and once per close).
 */
final class ConnectionQuotas {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionQuotas.class);

    private final int maxConnections;
    private final int maxPerIp;
    private final Map<InetAddress, Integer> overrides = new HashMap<>();
    private final Map<InetAddress, Integer> perIp = new HashMap<>();
    private int total;

    ConnectionQuotas(SocketSettings socket) {
        this.maxConnections = socket.maxConnections();
        this.maxPerIp = socket.maxConnectionsPerIp();
        for (Map.Entry<String, Integer> e : socket.maxConnectionsPerIpOverrides().entrySet()) {
            try {
                overrides.put(InetAddress.getByName(e.getKey()), e.getValue());
            } catch (UnknownHostException ex) {
                LOG.warn("Ignoring max.connections.per.ip.overrides entry {}: the host does not resolve", e.getKey());
            }
        }
    }

    /** Takes a slot for a connection from {@code address}; null if granted, else the refusal reason. */
    synchronized String acquire(InetAddress address) {
        if (total >= maxConnections) {
            return "max.connections (" + maxConnections + ") reached";
        }
        int limit = overrides.getOrDefault(address, maxPerIp);
        int count = perIp.getOrDefault(address, 0);
        if (count >= limit) {
            return "max.connections.per.ip (" + limit + ") reached for " + address.getHostAddress();
        }
        perIp.put(address, count + 1);
        total++;
        return null;
    }

    synchronized void release(InetAddress address) {
        Integer count = perIp.get(address);
        if (count == null) {
            return;
        }
        if (count <= 1) {
            perIp.remove(address);
        } else {
            perIp.put(address, count - 1);
        }
        total--;
    }

    synchronized int total() {
        return total;
    }
}

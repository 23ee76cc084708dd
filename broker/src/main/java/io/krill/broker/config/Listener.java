package io.krill.broker.config;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One entry of {@code listeners} or {@code advertised.listeners}: {@code NAME://host:port}.
 * Immutable and thread-safe.
 *
 * @param name             the listener name, upper-cased as Kafka normalises it (e.g. PLAINTEXT, INTERNAL)
 * @param securityProtocol the protocol from {@code listener.security.protocol.map}
 * @param host             the host or IP literal (IPv6 without brackets); {@code null} for an empty host, which
 *                         means "bind to all interfaces" on a listener
 * @param port             0..65535; 0 binds an ephemeral port (tests)
 */
public record Listener(String name, SecurityProtocol securityProtocol, String host, int port) {
    private static final Pattern HOST = Pattern.compile("[0-9a-zA-Z\\-%._:]*");
    private static final Pattern IPV4 = Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})");
    private static final Pattern IPV6 = Pattern.compile("[0-9a-fA-F:.]*:[0-9a-fA-F:.]*(%[0-9a-zA-Z._\\-]+)?");

    public Listener {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(securityProtocol, "securityProtocol");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
    }

    /**
     * Parses {@code NAME://host:port}, {@code NAME://:port} or {@code NAME://[ipv6]:port}.
     *
     * @param configName  the key being parsed, for the error message
     * @param protocolMap listener name to security protocol
     * @throws ConfigException if malformed or the name has no security protocol
     */
    public static Listener parse(String entry, Map<String, SecurityProtocol> protocolMap, String configName) {
        String s = entry.trim();
        int sep = s.indexOf("://");
        if (sep <= 0) {
            throw unparsable(configName, entry);
        }
        String name = s.substring(0, sep).toUpperCase(Locale.ROOT);
        String rest = s.substring(sep + 3);
        String host;
        String portText;
        if (rest.startsWith("[")) {
            int close = rest.indexOf(']');
            if (close < 0 || close + 1 >= rest.length() || rest.charAt(close + 1) != ':') {
                throw unparsable(configName, entry);
            }
            host = rest.substring(1, close);
            portText = rest.substring(close + 2);
        } else {
            int colon = rest.lastIndexOf(':');
            if (colon < 0) {
                throw unparsable(configName, entry);
            }
            host = rest.substring(0, colon);
            portText = rest.substring(colon + 1);
        }
        if (!HOST.matcher(host).matches() || portText.isEmpty() || !portText.chars().allMatch(Character::isDigit)) {
            throw unparsable(configName, entry);
        }
        int port;
        try {
            port = Integer.parseInt(portText);
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (port < 0 || port > 65535) {
            throw new ConfigException(configName, entry, "port must be between 0 and 65535");
        }
        SecurityProtocol protocol = protocolMap.get(name);
        if (protocol == null) {
            throw new ConfigException(configName, entry, "No security protocol defined for listener " + name
                    + " in listener.security.protocol.map");
        }
        return new Listener(name, protocol, host.isEmpty() ? null : host, port);
    }

    private static ConfigException unparsable(String configName, String entry) {
        return new ConfigException(configName, entry, "Unable to parse " + entry + " to a broker endpoint");
    }

    /** A copy with another host. */
    public Listener withHost(String newHost) {
        return new Listener(name, securityProtocol, newHost, port);
    }

    /** True if the host is an IPv4 literal. */
    public boolean isIpv4Literal() {
        if (host == null) {
            return false;
        }
        Matcher m = IPV4.matcher(host);
        if (!m.matches()) {
            return false;
        }
        for (int i = 1; i <= 4; i++) {
            if (Integer.parseInt(m.group(i)) > 255) {
                return false;
            }
        }
        return true;
    }

    /** True if the host is an IPv6 literal. */
    public boolean isIpv6Literal() {
        return host != null && host.indexOf(':') >= 0 && IPV6.matcher(host).matches();
    }

    /** {@code NAME://host:port}, with IPv6 hosts in brackets and an empty host for the wildcard. */
    @Override
    public String toString() {
        String h = host == null ? "" : host.indexOf(':') >= 0 ? "[" + host + "]" : host;
        return name + "://" + h + ":" + port;
    }
}

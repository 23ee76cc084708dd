package io.krill.broker.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/** Parsing and validation of {@code listeners}, {@code advertised.listeners} and the protocol map. Stateless. */
public final class Listeners {
    /** Kafka's default {@code listener.security.protocol.map}: each protocol name maps to itself. */
    public static final String DEFAULT_PROTOCOL_MAP =
            "SASL_SSL:SASL_SSL,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT";

    private Listeners() {
    }

    /**
     * Parses {@code NAME:PROTOCOL,...}; names are upper-cased.
     *
     * @return an unmodifiable map in entry order
     * @throws ConfigException for a malformed entry, an unknown protocol or a name given twice
     */
    public static Map<String, SecurityProtocol> parseProtocolMap(String configName, String value) {
        Map<String, SecurityProtocol> map = new LinkedHashMap<>();
        for (String entry : ConfigType.splitList(value)) {
            int colon = entry.indexOf(':');
            if (colon <= 0 || colon == entry.length() - 1) {
                throw new ConfigException(configName, value, "Map entry '" + entry
                        + "' is not of the form LISTENER_NAME:SECURITY_PROTOCOL");
            }
            String name = entry.substring(0, colon).trim().toUpperCase(Locale.ROOT);
            String protocolName = entry.substring(colon + 1).trim();
            SecurityProtocol protocol;
            try {
                protocol = SecurityProtocol.forName(protocolName);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(configName, value, "Invalid security protocol `" + protocolName
                        + "` defined in " + configName);
            }
            if (map.put(name, protocol) != null) {
                throw new ConfigException(configName, value, "Listener name " + name + " is mapped more than once");
            }
        }
        return Collections.unmodifiableMap(map);
    }

    /**
     * Parses a listener list and applies Kafka's rules: names are unique; with {@code requireDistinctPorts}
     * (for {@code listeners}, not {@code advertised.listeners}) two listeners may share a non-zero port only if one
     * binds an IPv4 literal and the other an IPv6 literal.
     *
     * @throws ConfigException naming {@code configName}
     */
    public static List<Listener> parseList(String configName, List<String> entries,
                                           Map<String, SecurityProtocol> protocolMap, boolean requireDistinctPorts) {
        List<Listener> result = new ArrayList<>(entries.size());
        for (String entry : entries) {
            result.add(Listener.parse(entry, protocolMap, configName));
        }
        String all = String.join(",", entries);
        Set<String> names = new HashSet<>();
        for (Listener l : result) {
            if (!names.add(l.name())) {
                throw new ConfigException(configName, all, "Each listener must have a different name");
            }
        }
        if (requireDistinctPorts) {
            Map<Integer, List<Listener>> byPort = result.stream().filter(l -> l.port() != 0)
                    .collect(Collectors.groupingBy(Listener::port));
            for (Map.Entry<Integer, List<Listener>> e : byPort.entrySet()) {
                List<Listener> same = e.getValue();
                boolean ok = same.size() == 1 || (same.size() == 2
                        && (same.get(0).isIpv4Literal() && same.get(1).isIpv6Literal()
                            || same.get(0).isIpv6Literal() && same.get(1).isIpv4Literal()));
                if (!ok) {
                    throw new ConfigException(configName, all, "Each listener must have a different port unless "
                            + "exactly one listener has an IPv4 address and the other IPv6 address, port: "
                            + e.getKey());
                }
            }
        }
        return List.copyOf(result);
    }

    /** The listener names, in order. */
    public static List<String> names(List<Listener> listeners) {
        return listeners.stream().map(Listener::name).toList();
    }
}

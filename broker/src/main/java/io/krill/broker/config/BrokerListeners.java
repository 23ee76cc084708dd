package io.krill.broker.config;

import static io.krill.broker.config.SocketServerConfigDefs.ADVERTISED_LISTENERS;
import static io.krill.broker.config.SocketServerConfigDefs.INTER_BROKER_LISTENER_NAME;
import static io.krill.broker.config.SocketServerConfigDefs.INTER_BROKER_PROTOCOL;
import static io.krill.broker.config.SocketServerConfigDefs.LISTENERS;
import static io.krill.broker.config.SocketServerConfigDefs.PROTOCOL_MAP;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A broker's parsed listeners, as Kafka derives them from {@code listeners}, {@code advertised.listeners},
 * {@code listener.security.protocol.map} and the inter-broker keys. Immutable and thread-safe.
 *
 * <p>Advertised listeners default to the listeners. Where Kafka advertises an empty host as the machine's canonical
 * host name, Krill advertises {@code localhost}, which is right for the single-machine default and must be
 * overridden (advertised.listeners) for remote clients. The 0.0.0.0 meta-address (and its IPv6 twin ::) cannot be
 * advertised, as in Kafka.
 *
 * @param protocolMap             listener name to security protocol
 * @param listeners               the addresses to bind, host {@code null} for the default interface
 * @param advertisedListeners     the addresses published to clients, never with an empty host
 * @param interBrokerListenerName the listener other brokers connect to
 */
public record BrokerListeners(Map<String, SecurityProtocol> protocolMap, List<Listener> listeners,
                              List<Listener> advertisedListeners, String interBrokerListenerName) {
    /** The host advertised for a listener with an empty host. */
    public static final String DEFAULT_ADVERTISED_HOST = "localhost";

    public BrokerListeners {
        protocolMap = Map.copyOf(protocolMap);
        listeners = List.copyOf(listeners);
        advertisedListeners = List.copyOf(advertisedListeners);
    }

    /**
     * @param values       the effective broker values
     * @param explicitKeys keys set by the operator (to tell a defaulted security.inter.broker.protocol from one set)
     * @throws ConfigException if the listener keys are inconsistent
     */
    static BrokerListeners from(ConfigValues values, Set<String> explicitKeys) {
        Map<String, SecurityProtocol> map = Listeners.parseProtocolMap(PROTOCOL_MAP, values.getString(PROTOCOL_MAP));
        List<Listener> listeners = Listeners.parseList(LISTENERS, values.getList(LISTENERS), map, true);
        List<String> advertisedEntries = values.getList(ADVERTISED_LISTENERS);
        List<Listener> advertised = new ArrayList<>();
        for (Listener l : advertisedEntries == null ? listeners
                : Listeners.parseList(ADVERTISED_LISTENERS, advertisedEntries, map, false)) {
            advertised.add(l.host() == null ? l.withHost(DEFAULT_ADVERTISED_HOST) : l);
        }
        List<String> listenerNames = Listeners.names(listeners);
        List<String> advertisedNames = Listeners.names(advertised);
        if (!new HashSet<>(listenerNames).containsAll(advertisedNames)) {
            throw new ConfigException(ADVERTISED_LISTENERS + " listener names must be equal to or a subset of the ones "
                    + "defined in " + LISTENERS + ". Found " + String.join(",", advertisedNames)
                    + ". The valid options based on the current configuration are " + String.join(",", listenerNames));
        }
        for (Listener l : advertised) {
            if (l.host().equals("0.0.0.0") || l.host().equals("::")) {
                throw new ConfigException(ADVERTISED_LISTENERS + " cannot use the nonroutable meta-address "
                        + l.host() + ". Use a routable IP address.");
            }
        }
        String interBroker = interBrokerListenerName(values, explicitKeys, map);
        if (!advertisedNames.contains(interBroker)) {
            throw new ConfigException(INTER_BROKER_LISTENER_NAME + " must be a listener name defined in "
                    + ADVERTISED_LISTENERS + ". The valid options based on currently configured listeners are "
                    + String.join(",", advertisedNames) + " (inter-broker listener: " + interBroker + ")");
        }
        return new BrokerListeners(map, listeners, advertised, interBroker);
    }

    private static String interBrokerListenerName(ConfigValues values, Set<String> explicitKeys,
                                                  Map<String, SecurityProtocol> map) {
        String name = values.getString(INTER_BROKER_LISTENER_NAME);
        if (name == null) {
            return values.getString(INTER_BROKER_PROTOCOL);
        }
        if (explicitKeys.contains(INTER_BROKER_PROTOCOL)) {
            throw new ConfigException("Only one of " + INTER_BROKER_LISTENER_NAME + " and " + INTER_BROKER_PROTOCOL
                    + " should be set.");
        }
        String normalised = name.toUpperCase(Locale.ROOT);
        if (!map.containsKey(normalised)) {
            throw new ConfigException(INTER_BROKER_LISTENER_NAME, name, "Listener with name " + normalised
                    + " defined in " + INTER_BROKER_LISTENER_NAME + " not found in " + PROTOCOL_MAP + ".");
        }
        return normalised;
    }

    /** The advertised listener of the given name, if any. */
    public Optional<Listener> advertised(String name) {
        return advertisedListeners.stream().filter(l -> l.name().equals(name)).findFirst();
    }

    /** The security protocol brokers use with each other. */
    public SecurityProtocol interBrokerSecurityProtocol() {
        return protocolMap.get(interBrokerListenerName);
    }
}

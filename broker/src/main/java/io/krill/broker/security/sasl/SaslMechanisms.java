package io.krill.broker.security.sasl;

import io.krill.broker.config.BrokerConfig;
import io.krill.broker.config.ConfigException;
import io.krill.broker.config.Password;
import io.krill.broker.security.scram.ScramCredentials;
import io.krill.broker.security.scram.ScramMechanism;
import io.krill.controller.metadata.MetadataImage;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Which SASL mechanisms a listener offers and how to make one, from Kafka's keys:
 * <ul>
 *   <li>{@code listener.name.<listener>.sasl.enabled.mechanisms}, else {@code sasl.enabled.mechanisms};</li>
 *   <li>{@code listener.name.<listener>.<mechanism>.sasl.jaas.config} (listener and mechanism lower-case),
 *       else {@code sasl.jaas.config}: PLAIN's users ({@code user_<name>} options) and this broker's own
 *       client credentials ({@code username}/{@code password});</li>
 *   <li>{@code sasl.mechanism.inter.broker.protocol} for {@link #interBrokerClient}.</li>
 * </ul>
 * SCRAM credentials come from the metadata image (entity {@code users/<name>}, see {@link ScramCredentials}),
 * read at each exchange; SCRAM listeners need no JAAS config on the server side.
 *
 * <p>Thread-safe: the configuration and image are read through suppliers on every call; parsed JAAS
 * configs are cached by their text in a concurrent map.
 */
public final class SaslMechanisms {
    /** The mechanisms Krill implements, in the order they are preferred. */
    public static final List<String> SUPPORTED = List.of(PlainServerMechanism.MECHANISM,
            ScramMechanism.SCRAM_SHA_256.mechanismName(), ScramMechanism.SCRAM_SHA_512.mechanismName());

    private final Supplier<BrokerConfig> config;
    private final ScramCredentials scramCredentials;
    private final Map<String, JaasConfig> parsed = new ConcurrentHashMap<>();

    /** @param config the current broker configuration (re-read per call, so dynamic changes apply) */
    public SaslMechanisms(Supplier<BrokerConfig> config, Supplier<MetadataImage> image) {
        this.config = config;
        this.scramCredentials = new ScramCredentials(image);
    }

    public SaslMechanisms(BrokerConfig config, Supplier<MetadataImage> image) {
        this(() -> config, image);
    }

    /** True if Krill implements {@code mechanism} (upper-case, as clients send it). */
    public static boolean isSupported(String mechanism) {
        return SUPPORTED.contains(mechanism);
    }

    /**
     * The mechanisms enabled on {@code listenerName} that Krill implements, in configured order: what
     * SaslHandshake offers. Configured but unimplemented ones (Kafka's default GSSAPI, OAUTHBEARER) are left out.
     */
    public List<String> enabled(String listenerName) {
        List<String> result = new ArrayList<>();
        for (String mechanism : configuredMechanisms(listenerName)) {
            if (isSupported(mechanism) && !result.contains(mechanism)) {
                result.add(mechanism);
            }
        }
        return result;
    }

    /** The mechanisms configured on {@code listenerName}, as written (trimmed), including unimplemented ones. */
    public List<String> configuredMechanisms(String listenerName) {
        BrokerConfig current = config.get();
        String override = current.staticConfigs().get(listenerKey(listenerName, "sasl.enabled.mechanisms"));
        List<String> list = override != null ? splitList(override)
                : Optional.ofNullable(current.values().getList("sasl.enabled.mechanisms")).orElse(List.of());
        return list.stream().map(String::trim).filter(s -> !s.isEmpty()).toList();
    }

    /**
     * Checks at startup that every enabled mechanism of {@code listenerName} can run: PLAIN needs a JAAS config
     * with a PlainLoginModule entry, and no enabled mechanism may be unimplemented.
     *
     * @throws ConfigException naming the listener, mechanism and key
     */
    public void checkListener(String listenerName) {
        for (String mechanism : configuredMechanisms(listenerName)) {
            if (!isSupported(mechanism)) {
                throw new ConfigException("SASL mechanism " + mechanism + " enabled on listener " + listenerName
                        + " is not supported by Krill (supported: " + String.join(", ", SUPPORTED) + ")");
            }
            if (mechanism.equals(PlainServerMechanism.MECHANISM)) {
                JaasConfig jaas = jaasConfig(listenerName, mechanism).orElseThrow(() -> new ConfigException(
                        "SASL/PLAIN on listener " + listenerName + " needs a JAAS config: set "
                                + jaasKey(listenerName, mechanism)));
                if (jaas.module(JaasConfig.PLAIN_LOGIN_MODULE).isEmpty()) {
                    throw new ConfigException(jaasKey(listenerName, mechanism) + " has no "
                            + JaasConfig.PLAIN_LOGIN_MODULE + " entry");
                }
            }
        }
    }

    /**
     * A new server-side exchange of {@code mechanism} on {@code listenerName}.
     *
     * @throws IllegalArgumentException if the mechanism is not enabled on the listener or not implemented (the
     *                                  transport answers UNSUPPORTED_SASL_MECHANISM before calling this)
     * @throws ConfigException          if the listener's JAAS config is missing or malformed
     */
    public SaslServerMechanism create(String listenerName, String mechanism) {
        if (!enabled(listenerName).contains(mechanism)) {
            throw new IllegalArgumentException("SASL mechanism " + mechanism + " is not enabled on listener "
                    + listenerName);
        }
        if (mechanism.equals(PlainServerMechanism.MECHANISM)) {
            JaasConfig jaas = jaasConfig(listenerName, mechanism).orElseThrow(() -> new ConfigException(
                    "SASL/PLAIN on listener " + listenerName + " needs " + jaasKey(listenerName, mechanism)));
            return new PlainServerMechanism(PlainServerMechanism.users(jaas));
        }
        Optional<ScramMechanism> scram = ScramMechanism.forName(mechanism);
        if (scram.isPresent()) {
            return new ScramServerMechanism(scram.get(), user -> scramCredentials.lookup(user, scram.get()));
        }
        throw new IllegalArgumentException("SASL mechanism " + mechanism + " is not supported");
    }

    /**
     * The client side of this broker's connections to {@code listenerName} of other brokers (the inter-broker
     * listener), with mechanism {@code sasl.mechanism.inter.broker.protocol} and the {@code username} and
     * {@code password} options of the listener's JAAS config for that mechanism.
     *
     * @throws ConfigException if the mechanism is not implemented or the credentials are not configured
     */
    public SaslClientMechanism interBrokerClient(String listenerName) {
        BrokerConfig current = config.get();
        String mechanism = Optional.ofNullable(current.values().getString("sasl.mechanism.inter.broker.protocol"))
                .orElse("GSSAPI").trim();
        if (!isSupported(mechanism)) {
            throw new ConfigException("sasl.mechanism.inter.broker.protocol=" + mechanism
                    + " is not supported by Krill (supported: " + String.join(", ", SUPPORTED) + ")");
        }
        JaasConfig jaas = jaasConfig(listenerName, mechanism).orElseThrow(() -> new ConfigException(
                "The inter-broker SASL client needs " + jaasKey(listenerName, mechanism)
                        + " with username and password options"));
        JaasConfig.LoginModule module = jaas.modules().stream()
                .filter(m -> m.options().containsKey("username") && m.options().containsKey("password"))
                .findFirst()
                .orElseThrow(() -> new ConfigException(jaasKey(listenerName, mechanism)
                        + " has no login module with username and password options"));
        String username = module.options().get("username");
        String password = module.options().get("password");
        if (mechanism.equals(PlainServerMechanism.MECHANISM)) {
            return new PlainClientMechanism(username, password);
        }
        Optional<ScramMechanism> scram = ScramMechanism.forName(mechanism);
        if (scram.isPresent()) {
            return new ScramClientMechanism(scram.get(), username, password);
        }
        throw new ConfigException("sasl.mechanism.inter.broker.protocol=" + mechanism + " is not supported");
    }

    /** The parsed JAAS config for {@code mechanism} on {@code listenerName}, if one is set. */
    public Optional<JaasConfig> jaasConfig(String listenerName, String mechanism) {
        BrokerConfig current = config.get();
        String text = current.staticConfigs().get(jaasKey(listenerName, mechanism));
        if (text == null) {
            Password global = current.values().getPassword("sasl.jaas.config");
            text = global == null ? null : global.value();
        }
        if (text == null) {
            return Optional.empty();
        }
        String key = text;
        if (parsed.size() > 32) {
            parsed.clear(); // dynamic sasl.jaas.config changes: keep only what is in use
        }
        try {
            return Optional.of(parsed.computeIfAbsent(key, JaasConfig::parse));
        } catch (IllegalArgumentException e) {
            throw new ConfigException("Invalid " + jaasKey(listenerName, mechanism) + " or sasl.jaas.config: "
                    + e.getMessage());
        }
    }

    /** {@code listener.name.<listener>.<mechanism>.sasl.jaas.config}, lower-case as Kafka spells it. */
    public static String jaasKey(String listenerName, String mechanism) {
        return listenerKey(listenerName, mechanism.toLowerCase(Locale.ROOT) + ".sasl.jaas.config");
    }

    private static String listenerKey(String listenerName, String key) {
        return BrokerConfig.LISTENER_PREFIX + listenerName.toLowerCase(Locale.ROOT) + "." + key;
    }

    private static List<String> splitList(String value) {
        return value.isBlank() ? List.of() : List.of(value.split(","));
    }
}

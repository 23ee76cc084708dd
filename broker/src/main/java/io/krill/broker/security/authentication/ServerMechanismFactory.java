package io.krill.broker.security.authentication;

import io.krill.broker.security.sasl.SaslServerMechanism;
import java.util.List;

/**
 * Where a listener's SASL exchanges get their mechanisms: the enabled names (for SaslHandshake's answer)
 * and a fresh server mechanism per authentication. Implementations are thread-safe.
 */
public interface ServerMechanismFactory {
    /** The mechanisms enabled on {@code listenerName}, in configuration order. */
    List<String> enabledMechanisms(String listenerName);

    /** A new exchange of {@code mechanism} on {@code listenerName}; only called for an enabled one. */
    SaslServerMechanism create(String listenerName, String mechanism);
}

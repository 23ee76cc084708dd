package io.krill.broker.config;

import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The apache/kafka container image's configuration convention, so that the same {@code docker run -e}
 * lines configure Krill: every {@code KAFKA_*} environment variable is a server property, named by
 * dropping {@code KAFKA_}, lower-casing, and turning {@code ___} into {@code -}, {@code __} into
 * {@code _} and {@code _} into {@code .} (e.g. {@code KAFKA_LISTENER_SECURITY_PROTOCOL_MAP} is
 * {@code listener.security.protocol.map}); {@code CLUSTER_ID} is {@code cluster.id}. Variables that
 * configure the JVM or the scripts rather than the broker are left alone. KRaft-only settings pass
 * through and are reported by {@link BrokerConfig} as not applicable, never fatal.
 *
 * <p>Stateless; thread-safe.
 */
public final class EnvironmentOverrides {
    /** Read by the scripts, not broker properties. */
    private static final Set<String> SCRIPT_VARIABLES = Set.of("KAFKA_HEAP_OPTS", "KAFKA_OPTS",
            "KAFKA_JVM_PERFORMANCE_OPTS", "KAFKA_LOG4J_OPTS", "KAFKA_JMX_OPTS", "KAFKA_GC_LOG_OPTS", "KAFKA_DEBUG",
            "KAFKA_DEBUG_SUSPEND_FLAG", "KAFKA_HOME", "KAFKA_VERSION", "KAFKA_LOG_DIR", "KAFKA_JAVA_OPTS");

    private EnvironmentOverrides() {
    }

    /** The properties {@code env} sets, sorted by name. */
    public static Map<String, String> from(Map<String, String> env) {
        Map<String, String> props = new TreeMap<>();
        for (Map.Entry<String, String> variable : env.entrySet()) {
            String name = variable.getKey();
            if (name.equals("CLUSTER_ID")) {
                props.put("cluster.id", variable.getValue());
            } else if (name.startsWith("KAFKA_") && name.length() > "KAFKA_".length() && !SCRIPT_VARIABLES.contains(name)) {
                props.put(propertyName(name.substring("KAFKA_".length())), variable.getValue());
            }
        }
        return props;
    }

    /** {@code LISTENER_NAME_INTERNAL_SSL___KEY} style to {@code listener.name.internal.ssl-key} style. */
    static String propertyName(String variable) {
        String lower = variable.toLowerCase(Locale.ROOT);
        StringBuilder out = new StringBuilder(lower.length());
        for (int i = 0; i < lower.length(); i++) {
            char c = lower.charAt(i);
            if (c != '_') {
                out.append(c);
                continue;
            }
            int run = 1;
            while (i + run < lower.length() && lower.charAt(i + run) == '_' && run < 3) {
                run++;
            }
            out.append(run == 3 ? '-' : run == 2 ? '_' : '.');
            i += run - 1;
        }
        return out.toString();
    }
}

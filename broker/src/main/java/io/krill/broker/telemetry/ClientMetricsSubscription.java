package io.krill.broker.telemetry;

import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * One named client metrics subscription: the metric name prefixes it asks for ({@code *}: all), its push
 * interval and its client selectors (all must match; none: every client). Immutable.
 */
public record ClientMetricsSubscription(String name, List<String> metrics, int intervalMs,
                                        Map<String, Pattern> match) {
    public ClientMetricsSubscription {
        metrics = List.copyOf(metrics);
        match = Map.copyOf(match);
    }

    /** Whether a client with these attributes ({@link ClientMetricsConfigs#SELECTORS}) is selected. */
    boolean matches(Map<String, String> attributes) {
        for (Map.Entry<String, Pattern> selector : match.entrySet()) {
            String value = attributes.get(selector.getKey());
            if (value == null || !selector.getValue().matcher(value).matches()) {
                return false;
            }
        }
        return true;
    }
}

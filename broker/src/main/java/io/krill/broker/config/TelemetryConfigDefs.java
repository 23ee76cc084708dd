package io.krill.broker.config;

import static io.krill.broker.config.ConfigKey.builder;
import static io.krill.broker.config.ConfigType.INT;
import static io.krill.broker.config.Validators.atLeast;

/**
 * Client telemetry (KIP-714): Kafka's {@code telemetry.max.bytes} and Krill's bound on the series it keeps of
 * the pushed metrics it exports on {@code /metrics} (docs/client-telemetry.md).
 */
final class TelemetryConfigDefs {
    private TelemetryConfigDefs() {
    }

    static ConfigDef define() {
        return new ConfigDef()
            .define(builder("telemetry.max.bytes", INT).defaultValue(1024 * 1024).validator(atLeast(1))
                .doc("The largest metrics payload, as sent (compressed), a client may push (PushTelemetry)."))
            .define(builder("krill.client.telemetry.max.series", INT).defaultValue(10_000).validator(atLeast(0))
                .doc("Krill: the most series of pushed client metrics kept for /metrics, over all client "
                    + "instances; points of new series beyond it are dropped (and counted). 0 keeps none."));
    }
}

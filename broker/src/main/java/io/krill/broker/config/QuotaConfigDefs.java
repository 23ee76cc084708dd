package io.krill.broker.config;

import static io.krill.broker.config.ConfigKey.builder;
import static io.krill.broker.config.ConfigType.INT;
import static io.krill.broker.config.Validators.atLeast;

/** How client quotas are measured (Kafka's quota.window.* keys); the quotas themselves are entity configs. */
final class QuotaConfigDefs {
    private QuotaConfigDefs() {
    }

    static ConfigDef define() {
        return new ConfigDef()
            .define(builder("quota.window.num", INT).defaultValue(11).validator(atLeast(2))
                .doc("The number of samples kept in memory for client quotas."))
            .define(builder("quota.window.size.seconds", INT).defaultValue(1).validator(atLeast(1))
                .doc("The time span of each sample for client quotas."));
    }
}

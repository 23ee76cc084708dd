package io.krill.broker.config;

/** Every broker key Krill knows, grouped by area in the {@code *ConfigDefs} classes. */
public final class BrokerConfigDefs {
    /** All broker keys, in area order. Read-only after class initialisation; safe to share. */
    public static final ConfigDef DEF = new ConfigDef()
            .defineAll(ServerConfigDefs.define())
            .defineAll(SocketServerConfigDefs.define())
            .defineAll(LogConfigDefs.define())
            .defineAll(LogCleanerConfigDefs.define())
            .defineAll(ReplicationConfigDefs.define())
            .defineAll(GroupConfigDefs.define())
            .defineAll(ShareGroupConfigDefs.define())
            .defineAll(ShareCoordinatorConfigDefs.define())
            .defineAll(TransactionConfigDefs.define())
            .defineAll(SecurityConfigDefs.define())
            .defineAll(TransportSecurityConfigDefs.define())
            .defineAll(QuotaConfigDefs.define())
            .defineAll(TelemetryConfigDefs.define());

    private BrokerConfigDefs() {
    }
}

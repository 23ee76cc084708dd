package io.krill.broker;

import io.krill.broker.config.BrokerConfig;
import io.krill.broker.config.ConfigException;
import io.krill.broker.config.EnvironmentOverrides;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Entry point of {@code bin/krill-server-start.sh}:
 * {@code KrillServer <server.properties> [--override key=value ...] [--env-overrides]}. Runs in the
 * foreground; SIGTERM (or Ctrl-C) stops it gracefully. {@code --env-overrides} (the container entrypoint)
 * adds the {@code KAFKA_*} environment variables as properties (see {@link EnvironmentOverrides});
 * explicit {@code --override}s win over them.
 */
public final class KrillServer {
    private KrillServer() {
    }

    public static void main(String[] args) throws Exception {
        long jvmStart = java.lang.management.ManagementFactory.getRuntimeMXBean().getStartTime();
        org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(KrillServer.class);
        StartupWarmup.start();
        if (args.length < 1) {
            System.err.println("USAGE: KrillServer server.properties [--override property=value]*");
            System.exit(1);
        }
        List<String> overrides = new ArrayList<>();
        List<String> explicit = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            if (args[i].equals("--override") && i + 1 < args.length) {
                explicit.add(args[++i]);
            } else if (args[i].equals("--env-overrides")) {
                EnvironmentOverrides.from(System.getenv()).forEach((k, v) -> overrides.add(k + "=" + v));
            } else {
                System.err.println("Unexpected argument " + args[i] + "; expected --override property=value");
                System.exit(1);
            }
        }
        overrides.addAll(explicit);
        BrokerConfig config;
        try {
            config = BrokerConfig.load(Path.of(args[0]), overrides);
        } catch (ConfigException e) {
            System.err.println("Invalid configuration: " + e.getMessage());
            System.exit(1);
            return;
        }
        Broker broker = Broker.start(config);
        // As Kafka: a broker whose every log dir failed halts (no controlled shutdown: it could not write
        // anything anyway), so that its session expires and leaders and ISRs move to healthy replicas. It
        // would otherwise stay live in the cluster and could even be elected leader of partitions it
        // cannot store.
        broker.onEveryLogDirOffline(() -> {
            log.error("Halting: every log dir is offline ({})", config.logDirs());
            System.err.println("Halting: every log dir is offline " + config.logDirs());
            System.err.flush();
            Runtime.getRuntime().halt(1);
        });
        log.info("Started in {} ms after the JVM", System.currentTimeMillis() - jvmStart);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                broker.close();
            } finally {
                stopped.countDown();
            }
        }, "krill-shutdown"));
        stopped.await();
    }
}

package io.krill.broker.config;

import static io.krill.broker.config.ConfigKey.builder;
import static io.krill.broker.config.ConfigType.BOOLEAN;
import static io.krill.broker.config.ConfigType.INT;
import static io.krill.broker.config.ConfigType.LONG;
import static io.krill.broker.config.ConfigType.STRING;
import static io.krill.broker.config.Importance.HIGH;
import static io.krill.broker.config.Importance.LOW;
import static io.krill.broker.config.Validators.atLeast;
import static io.krill.broker.config.Validators.between;
import static io.krill.broker.config.Validators.oneOf;

/** General broker keys: identity, threads, request limits, ZooKeeper and Krill's own keys. */
final class ServerConfigDefs {
    private ServerConfigDefs() {
    }

    static ConfigDef define() {
        return new ConfigDef()
            .define(builder("node.id", INT).defaultValue(-1).importance(HIGH)
                .doc("The id of this broker; synonym of broker.id (if both are set they must be equal). "
                    + "-1 lets the broker generate an id when broker.id.generation.enable is true."))
            .define(builder("broker.id", INT).defaultValue(-1).importance(HIGH)
                .doc("The broker id for this server; synonym of node.id."))
            .define(builder("broker.id.generation.enable", BOOLEAN).defaultValue(true)
                .doc("Generate a broker id, above reserved.broker.max.id, when neither broker.id nor node.id is set."))
            .define(builder("reserved.broker.max.id", INT).defaultValue(1000).validator(atLeast(0))
                .doc("The largest broker id an operator may configure; generated ids start above it."))
            .define(builder("broker.rack", STRING)
                .doc("The rack of this broker, used for rack-aware replica assignment (e.g. us-east-1d)."))
            .define(builder("cluster.id", STRING)
                .doc("Krill: the cluster id to use or expect; unset means the id kept in the cluster metadata."))
            .define(builder("num.io.threads", INT).defaultValue(8).validator(atLeast(1)).importance(HIGH).clusterWide()
                .doc("The number of threads that process requests, which may include disk I/O."))
            .define(builder("background.threads", INT).defaultValue(10).validator(atLeast(1)).importance(HIGH)
                .clusterWide()
                .doc("The number of threads for background tasks (retention, checkpoints, expirations)."))
            .define(builder("request.timeout.ms", INT).defaultValue(30000).importance(HIGH)
                .doc("The maximum time the broker waits for a response to a request it sends to another broker."))
            .define(builder("socket.connection.setup.timeout.ms", LONG).defaultValue(10000L)
                .doc("The time to wait for an outgoing (inter-broker) connection to be established."))
            .define(builder("socket.connection.setup.timeout.max.ms", LONG).defaultValue(30000L)
                .doc("The maximum of the exponentially growing outgoing connection setup timeout."))
            .define(builder("delete.topic.enable", BOOLEAN).defaultValue(true).importance(HIGH)
                .doc("Whether DeleteTopics is allowed; when false deletions are rejected."))
            .define(builder("auto.create.topics.enable", BOOLEAN).defaultValue(true).importance(HIGH)
                .doc("Create a topic with the broker defaults when a client asks for metadata of a missing topic."))
            .define(builder("controlled.shutdown.enable", BOOLEAN).defaultValue(true)
                .doc("Move partition leadership away from this broker before it shuts down."))
            .define(builder("controlled.shutdown.max.retries", INT).defaultValue(3)
                .doc("How many times a controlled shutdown is attempted before shutting down uncleanly."))
            .define(builder("controlled.shutdown.retry.backoff.ms", LONG).defaultValue(5000L)
                .doc("The time to wait between controlled shutdown attempts."))
            .define(builder("fetch.max.bytes", INT).defaultValue(55 * 1024 * 1024).validator(atLeast(1024))
                .doc("The maximum number of bytes returned for one fetch request."))
            .define(builder("max.incremental.fetch.session.cache.slots", INT).defaultValue(1000)
                .validator(atLeast(0))
                .doc("The maximum number of incremental fetch sessions kept by the broker."))
            .define(builder("max.request.partition.size.limit", INT).defaultValue(2000).validator(atLeast(1))
                .doc("The maximum number of partitions served in one request."))
            .define(builder("authorizer.class.name", STRING).defaultValue("").importance(LOW)
                .validator(Validators.custom("empty or one of " + BrokerConfig.ACL_AUTHORIZER_CLASS_NAMES,
                    v -> v.toString().isBlank() || BrokerConfig.ACL_AUTHORIZER_CLASS_NAMES.contains(v.toString().trim()),
                    "Krill has one built-in ACL authorizer, selected by any of " + BrokerConfig.ACL_AUTHORIZER_CLASS_NAMES
                        + "; leave it empty for no authorization. Other authorizer plug-ins cannot be loaded."))
                .doc("Empty: no authorization. org.apache.kafka.metadata.authorizer.StandardAuthorizer, "
                    + "kafka.security.authorizer.AclAuthorizer or io.krill.broker.security.authorizer.AclAuthorizer "
                    + "select Krill's built-in ACL authorizer; other plug-ins cannot be loaded."))
            .define(builder("super.users", STRING).defaultValue("").importance(LOW)
                .validator(Validators.custom("principals type:name separated by ';'",
                    ServerConfigDefs::principalList, "expected principals of the form type:name separated by ';'"))
                .doc("Principals (type:name, separated by ';') that every ACL check allows, e.g. the brokers' own."))
            .define(builder("allow.everyone.if.no.acl.found", BOOLEAN).defaultValue(false).importance(LOW)
                .doc("Whether a resource no ACL applies to is open to everyone (true) or to super users only."))
            .define(builder("zookeeper.connect", STRING).defaultValue("").importance(HIGH)
                .doc("Krill: the ZooKeeper connection string (host:port,.../chroot) used for cluster coordination. "
                    + "Empty starts an embedded single-node ZooKeeper."))
            .define(builder("zookeeper.session.timeout.ms", INT).defaultValue(6000).validator(atLeast(1))
                .importance(HIGH)
                .doc("The ZooKeeper session timeout; a broker whose session expires leaves the cluster."))
            .define(builder("zookeeper.connection.timeout.ms", INT).validator(atLeast(1)).importance(HIGH)
                .doc("The time to wait for a ZooKeeper connection; if not set, zookeeper.session.timeout.ms."))
            .define(builder("krill.controller.crash.detection.enable", BOOLEAN).defaultValue(true)
                .doc("Krill: whether the active controller keeps an idle connection to every broker's inter-broker "
                    + "listener and counts a broker that refuses a new one (its process is gone) as dead at once, "
                    + "rather than when its ZooKeeper session expires. A paused or unreachable broker is still "
                    + "left to its session. Not used when the inter-broker listener is SSL or SASL_SSL."))
            .define(builder("zookeeper.max.in.flight.requests", INT).defaultValue(10).validator(atLeast(1))
                .doc("The maximum number of unacknowledged requests sent to ZooKeeper."))
            .define(builder("krill.zookeeper.embedded.port", INT).defaultValue(0).validator(between(0, 65535))
                .doc("Krill: the loopback port of the embedded ZooKeeper (when zookeeper.connect is empty); 0 picks "
                    + "a free one. Set it to let other brokers of a test cluster join this one's ZooKeeper."))
            .define(builder("krill.zookeeper.embedded.fsync", BOOLEAN).defaultValue(true)
                .doc("Krill: whether the embedded ZooKeeper fsyncs each metadata write before acknowledging it "
                    + "(the default, as a ZooKeeper ensemble does). false leaves writes in the page cache: a crashed "
                    + "broker process loses nothing, but a power cut can roll back the last seconds of metadata, "
                    + "the producer-id counter included, so a producer id could be handed out twice and two "
                    + "idempotent producers share one. For throw-away brokers only; an ensemble is not affected."))
            .define(builder("krill.metadata.store", STRING).defaultValue("zookeeper")
                .validator(oneOf("zookeeper", "local"))
                .doc("Krill: where cluster metadata lives: zookeeper (Helix on ZooKeeper, embedded when "
                    + "zookeeper.connect is empty) or local (a file in the first log dir; one broker, no Helix)."))
            .define(builder("krill.http.port", INT).defaultValue(0).validator(between(0, 65535))
                .doc("Krill: the port of the HTTP server that serves Prometheus metrics on /metrics (and the web "
                    + "console on /console/, docs/console.md). 0 disables it."))
            .define(builder("krill.console.enable", BOOLEAN).defaultValue(true)
                .doc("Krill: whether the HTTP port (krill.http.port) serves the web console on /console/."))
            .define(builder("krill.console.read.only", BOOLEAN).defaultValue(true)
                .doc("Krill: whether the web console only shows (the default). false offers the operator's actions "
                    + "(create, delete and alter topics, delete records, reset and delete group offsets, delete "
                    + "groups), each checked against the viewer's ACLs (docs/console.md)."))
            .define(builder("krill.console.listener", STRING).defaultValue("")
                .doc("Krill: the listener whose security the console applies (HTTP Basic checked as its SASL "
                    + "mechanism checks passwords, HTTPS with its key store). Empty: the first of listeners."))
            .define(builder("krill.console.history.interval.ms", LONG).defaultValue(10_000L).validator(atLeast(100))
                .doc("Krill: how often the console samples its history (records-in per topic, lag per group)."))
            .define(builder("krill.console.history.samples", INT).defaultValue(360).validator(between(2, 100_000))
                .doc("Krill: how many samples of each console history series are kept in memory."));
    }

    /** Whether {@code value} is a ';'-separated list of type:name principals (blank entries ignored). */
    private static boolean principalList(Object value) {
        for (String part : value.toString().split(";")) {
            String principal = part.trim();
            if (!principal.isEmpty() && principal.indexOf(':') <= 0) {
                return false;
            }
        }
        return true;
    }
}

package io.krill.broker.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

class EnvironmentOverridesTest {

    @Test
    void mapsVariablesAsTheApacheKafkaImageDoes() {
        Map<String, String> props = EnvironmentOverrides.from(Map.of(
                "KAFKA_NODE_ID", "1",
                "KAFKA_LISTENER_SECURITY_PROTOCOL_MAP", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                "KAFKA_ADVERTISED_LISTENERS", "PLAINTEXT://localhost:9092",
                "KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR", "1",
                "KAFKA_LISTENER_NAME_INTERNAL_SSL___KEYSTORE__LOCATION", "/x",
                "KAFKA_PROCESS_ROLES", "broker,controller",
                "CLUSTER_ID", "4L6g3nShT-eMCtK--X86sw",
                "KAFKA_HEAP_OPTS", "-Xmx1G",
                "PATH", "/usr/bin"));
        assertEquals(Map.of(
                "node.id", "1",
                "listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                "advertised.listeners", "PLAINTEXT://localhost:9092",
                "offsets.topic.replication.factor", "1",
                "listener.name.internal.ssl-keystore_location", "/x",
                "process.roles", "broker,controller",
                "cluster.id", "4L6g3nShT-eMCtK--X86sw"), props);
    }

    @Test
    void underscoreRuns() {
        assertEquals("a.b", EnvironmentOverrides.propertyName("A_B"));
        assertEquals("a_b", EnvironmentOverrides.propertyName("A__B"));
        assertEquals("a-b", EnvironmentOverrides.propertyName("A___B"));
        assertEquals("a-.b", EnvironmentOverrides.propertyName("A____B"));
    }

    @Test
    void kraftOnlyKeysAreAcceptedAsNotApplicable() {
        Map<String, String> props = new java.util.HashMap<>(EnvironmentOverrides.from(Map.of(
                "KAFKA_PROCESS_ROLES", "broker,controller",
                "KAFKA_CONTROLLER_QUORUM_VOTERS", "1@localhost:9093",
                "KAFKA_CONTROLLER_LISTENER_NAMES", "CONTROLLER")));
        props.put("log.dirs", "/tmp/unused");
        BrokerConfig config = BrokerConfig.from(props);
        assertEquals(true, config.notApplicableKeys().containsKey("process.roles"));
        assertEquals(true, config.notApplicableKeys().containsKey("controller.quorum.voters"));
    }
}

package io.krill.broker.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ListenerTest {
    private static final Map<String, SecurityProtocol> DEFAULT_MAP =
            Listeners.parseProtocolMap("listener.security.protocol.map", Listeners.DEFAULT_PROTOCOL_MAP);

    private static Listener parse(String entry) {
        return Listener.parse(entry, DEFAULT_MAP, "listeners");
    }

    @Test
    void parsesHostPortAndWildcard() {
        assertEquals(new Listener("PLAINTEXT", SecurityProtocol.PLAINTEXT, "localhost", 9092),
                parse("PLAINTEXT://localhost:9092"));
        Listener wildcard = parse(" plaintext://:0 ");
        assertEquals("PLAINTEXT", wildcard.name());
        assertNull(wildcard.host());
        assertEquals(0, wildcard.port());
        assertEquals("PLAINTEXT://:0", wildcard.toString());
        assertEquals("SASL_SSL", parse("SASL_SSL://10.0.0.1:9094").name());
        assertTrue(parse("SSL://10.0.0.1:9094").isIpv4Literal());
    }

    @Test
    void parsesIpv6() {
        Listener l = parse("SSL://[::1]:9093");
        assertEquals("::1", l.host());
        assertEquals(9093, l.port());
        assertEquals(SecurityProtocol.SSL, l.securityProtocol());
        assertEquals("SSL://[::1]:9093", l.toString());
        assertTrue(l.isIpv6Literal());
        assertEquals("fe80::1%eth0", parse("PLAINTEXT://[fe80::1%eth0]:1").host());
    }

    @ParameterizedTest
    @ValueSource(strings = {"localhost:9092", "PLAINTEXT://localhost", "PLAINTEXT://host:abc", "PLAINTEXT://host:",
        "://host:1", "PLAINTEXT://[::1:9092", "PLAINTEXT://[::1]9092", "PLAINTEXT://ho st:1", "PLAINTEXT://h:-1"})
    void rejectsMalformed(String entry) {
        ConfigException e = assertThrows(ConfigException.class, () -> parse(entry));
        assertTrue(e.getMessage().startsWith("Invalid value " + entry + " for configuration listeners"),
                e.getMessage());
    }

    @Test
    void rejectsPortOutOfRangeAndUnmappedName() {
        assertTrue(assertThrows(ConfigException.class, () -> parse("PLAINTEXT://h:65536")).getMessage()
                .contains("port must be between 0 and 65535"));
        assertTrue(assertThrows(ConfigException.class, () -> parse("CLIENT://h:1")).getMessage()
                .contains("No security protocol defined for listener CLIENT"));
    }

    @Test
    void listNamesAndPortsMustBeUnique() {
        assertTrue(assertThrows(ConfigException.class, () -> Listeners.parseList("listeners",
                List.of("PLAINTEXT://:1", "plaintext://:2"), DEFAULT_MAP, true)).getMessage()
                .contains("Each listener must have a different name"));
        assertTrue(assertThrows(ConfigException.class, () -> Listeners.parseList("listeners",
                List.of("PLAINTEXT://:1", "SSL://h:1"), DEFAULT_MAP, true)).getMessage()
                .contains("Each listener must have a different port"));
        assertEquals(2, Listeners.parseList("listeners", List.of("PLAINTEXT://127.0.0.1:1", "SSL://[::1]:1"),
                DEFAULT_MAP, true).size());
        assertEquals(2, Listeners.parseList("listeners", List.of("PLAINTEXT://:0", "SSL://:0"),
                DEFAULT_MAP, true).size());
        // advertised listeners may share a port (e.g. behind a load balancer)
        assertEquals(2, Listeners.parseList("advertised.listeners", List.of("PLAINTEXT://a:1", "SSL://b:1"),
                DEFAULT_MAP, false).size());
    }

    @Test
    void protocolMap() {
        Map<String, SecurityProtocol> map = Listeners.parseProtocolMap("m", "internal:ssl , EXTERNAL:SASL_PLAINTEXT");
        assertEquals(Map.of("INTERNAL", SecurityProtocol.SSL, "EXTERNAL", SecurityProtocol.SASL_PLAINTEXT), map);
        assertEquals(SecurityProtocol.PLAINTEXT, DEFAULT_MAP.get("PLAINTEXT"));
        assertTrue(assertThrows(ConfigException.class, () -> Listeners.parseProtocolMap("m", "INTERNAL"))
                .getMessage().contains("not of the form"));
        assertTrue(assertThrows(ConfigException.class, () -> Listeners.parseProtocolMap("m", "A:TLS"))
                .getMessage().contains("Invalid security protocol `TLS` defined in m"));
        assertTrue(assertThrows(ConfigException.class, () -> Listeners.parseProtocolMap("m", "A:SSL,a:SSL"))
                .getMessage().contains("more than once"));
    }
}

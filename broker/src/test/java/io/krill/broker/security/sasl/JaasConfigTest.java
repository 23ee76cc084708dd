package io.krill.broker.security.sasl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JaasConfigTest {
    @Test
    void parsesKafkaPlainConfig() {
        JaasConfig jaas = JaasConfig.parse("org.apache.kafka.common.security.plain.PlainLoginModule required "
                + "username=\"admin\" password=\"admin-secret\" user_admin=\"admin-secret\" user_alice=\"alice-secret\";");
        assertEquals(1, jaas.modules().size());
        JaasConfig.LoginModule module = jaas.modules().get(0);
        assertEquals(JaasConfig.PLAIN_LOGIN_MODULE, module.className());
        assertEquals(JaasConfig.ControlFlag.REQUIRED, module.flag());
        assertEquals(List.of("username", "password", "user_admin", "user_alice"), List.copyOf(module.options().keySet()));
        assertEquals("admin-secret", module.options().get("password"));
        assertEquals(Map.of("admin", "admin-secret", "alice", "alice-secret"), PlainServerMechanism.users(jaas));
    }

    @Test
    void parsesEscapesBareValuesCommentsAndSeveralModules() {
        JaasConfig jaas = JaasConfig.parse("""
                // a comment
                com.example.A Optional a=1 b="x\\"y\\\\z" c = "semi;colon = \\n" ;
                /* another */ com.example.B sufficient;""");
        assertEquals(2, jaas.modules().size());
        assertEquals(JaasConfig.ControlFlag.OPTIONAL, jaas.modules().get(0).flag());
        assertEquals(Map.of("a", "1", "b", "x\"y\\z", "c", "semi;colon = \n"), jaas.modules().get(0).options());
        assertTrue(jaas.module("com.example.B").orElseThrow().options().isEmpty());
        assertEquals(JaasConfig.ControlFlag.SUFFICIENT, jaas.module("com.example.B").orElseThrow().flag());
        assertTrue(jaas.module("com.example.C").isEmpty());
    }

    private static void assertInvalid(String text, String expected) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> JaasConfig.parse(text));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
        assertFalse(e.getMessage().contains("secret"), e.getMessage());
    }

    @Test
    void malformedInputFailsClearlyWithoutEchoingValues() {
        assertInvalid("", "no login module");
        assertInvalid("   // only a comment", "no login module");
        assertInvalid("a.B required x=\"secret\"", "not terminated by ';'");
        assertInvalid("a.B mandatory;", "invalid control flag");
        assertInvalid("a.B required x=\"secret;", "not terminated");
        assertInvalid("a.B required x;", "has no '=value'");
        assertInvalid("a.B required x=;", "has no value");
        assertInvalid("a.B;", "control flag");
        assertInvalid("a.B required /* x=\"secret\";", "unterminated comment");
        assertInvalid(null, "missing");
    }

    @Test
    void singleQuotesAndRepeatedOptionsAsKafka() {
        JaasConfig jaas = JaasConfig.parse("a.B required x='it\\'s \"q\"' y=1 y=2;");
        assertEquals(Map.of("x", "it's \"q\"", "y", "2"), jaas.modules().get(0).options());
    }

    @Test
    void toStringHidesValues() {
        String text = JaasConfig.parse("a.B required password=\"hunter2\";").toString();
        assertFalse(text.contains("hunter2"));
        assertTrue(text.contains("password"));
    }
}

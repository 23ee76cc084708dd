package io.krill.broker.config;

import static io.krill.broker.config.ConfigKey.builder;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigDefTest {
    private final ConfigDef def = new ConfigDef()
            .define(builder("b", ConfigType.BOOLEAN).defaultValue(false))
            .define(builder("i", ConfigType.INT).defaultValue(1).validator(Validators.atLeast(1)))
            .define(builder("s", ConfigType.SHORT).defaultValue(3))
            .define(builder("l", ConfigType.LONG).defaultValue(5))
            .define(builder("d", ConfigType.DOUBLE).defaultValue(0.5).validator(Validators.between(0, 1)))
            .define(builder("list", ConfigType.LIST).defaultValue("a,b").validator(Validators.listOf(true)))
            .define(builder("str", ConfigType.STRING).validator(Validators.oneOf("CreateTime", "LogAppendTime")))
            .define(builder("ci", ConfigType.STRING).defaultValue("none")
                    .validator(Validators.oneOfIgnoreCase("none", "all")))
            .define(builder("cls", ConfigType.CLASS))
            .define(builder("pw", ConfigType.PASSWORD));

    private static String error(Runnable r) {
        return assertThrows(ConfigException.class, r::run).getMessage();
    }

    @Test
    void defaultsApplyWhenAbsent() {
        ConfigValues v = def.parse(Map.of());
        assertFalse(v.getBoolean("b"));
        assertEquals(1, v.getInt("i"));
        assertEquals((short) 3, v.getShort("s"));
        assertEquals(5L, v.getLong("l"));
        assertEquals(0.5, v.getDouble("d"));
        assertEquals(List.of("a", "b"), v.getList("list"));
        assertFalse(v.isSet("str"));
        assertTrue(v.optionalString("str").isEmpty());
    }

    @Test
    void valuesAreTrimmedAndTyped() {
        ConfigValues v = def.parse(Map.of("b", " TRUE ", "i", " 42\t", "l", "-7", "d", "1", "list", " x , y ,z ",
                "str", " LogAppendTime ", "cls", " com.example.Foo$Bar ", "ci", "ALL"));
        assertTrue(v.getBoolean("b"));
        assertEquals(42, v.getInt("i"));
        assertEquals(-7L, v.getLong("l"));
        assertEquals(1.0, v.getDouble("d"));
        assertEquals(List.of("x", "y", "z"), v.getList("list"));
        assertEquals("LogAppendTime", v.getString("str"));
        assertEquals("com.example.Foo$Bar", v.getString("cls"));
        assertEquals("ALL", v.getString("ci"));
        assertEquals(List.of(), def.parse(Map.of("list", "  ")).getList("list"));
        assertFalse(def.parse(Map.of("b", "False")).getBoolean("b"));
    }

    @Test
    void wrongTypeNamesKeyAndValue() {
        assertEquals("Invalid value yes for configuration b: Expected value to be either true or false",
                error(() -> def.parse(Map.of("b", "yes"))));
        assertEquals("Invalid value abc for configuration l: Not a number of type LONG",
                error(() -> def.parse(Map.of("l", "abc"))));
        assertEquals("Invalid value 2147483648 for configuration i: Not a number of type INT",
                error(() -> def.parse(Map.of("i", "2147483648"))));
        assertEquals("Invalid value 40000 for configuration s: Not a number of type SHORT",
                error(() -> def.parse(Map.of("s", "40000"))));
        assertEquals("Invalid value 1.5.2 for configuration d: Not a number of type DOUBLE",
                error(() -> def.parse(Map.of("d", "1.5.2"))));
        assertTrue(error(() -> def.parse(Map.of("cls", "not a class"))).startsWith("Invalid value not a class"));
        ConfigException e = assertThrows(ConfigException.class, () -> def.parse(Map.of("i", "x")));
        assertEquals("i", e.configName());
    }

    @Test
    void validatorsUseKafkaWording() {
        assertEquals("Invalid value 0 for configuration i: Value must be at least 1",
                error(() -> def.parse(Map.of("i", "0"))));
        assertEquals("Invalid value 1.5 for configuration d: Value must be no more than 1",
                error(() -> def.parse(Map.of("d", "1.5"))));
        assertEquals("Invalid value createtime for configuration str: String must be one of: CreateTime, "
                + "LogAppendTime", error(() -> def.parse(Map.of("str", "createtime"))));
        assertEquals("Invalid value some for configuration ci: String must be one of (case insensitive): none, all",
                error(() -> def.parse(Map.of("ci", "some"))));
        assertEquals("Configuration 'list' values must not be duplicated.",
                error(() -> def.parse(Map.of("list", "a,a"))));
        assertEquals("Configuration 'list' values must not be empty.", error(() -> def.parse(Map.of("list", "a,,b"))));
    }

    @Test
    void requiredKeyMustBeSet() {
        ConfigDef required = new ConfigDef().define(builder("zk", ConfigType.STRING).noDefault());
        assertEquals("Missing required configuration \"zk\" which has no default value.",
                error(() -> required.parse(Map.of())));
        assertEquals("h:1", required.parse(Map.of("zk", "h:1")).getString("zk"));
    }

    @Test
    void definitionMistakesFailFast() {
        assertThrows(IllegalStateException.class, () -> new ConfigDef()
                .define(builder("x", ConfigType.INT)).define(builder("x", ConfigType.INT)));
        assertThrows(IllegalArgumentException.class,
                () -> builder("x", ConfigType.INT).defaultValue(0).validator(Validators.atLeast(1)).build());
        assertThrows(IllegalArgumentException.class, () -> builder("x", ConfigType.INT).defaultValue(1L));
        assertEquals(Long.valueOf(3), builder("y", ConfigType.LONG).defaultValue(3).build().defaultValue());
    }

    @Test
    void unknownKeysAreListedNotFatal() {
        assertEquals(java.util.Set.of("nope"), def.unknownKeys(List.of("i", "nope")));
        assertEquals(1, def.parse(Map.of("nope", "x")).getInt("i"));
    }

    @Test
    void passwordIsHidden() {
        ConfigValues v = def.parse(Map.of("pw", " s3cret "));
        assertEquals("s3cret", v.getPassword("pw").value());
        assertEquals("[hidden]", v.getPassword("pw").toString());
        assertFalse(v.toString().contains("s3cret"));
        assertTrue(v.toString().contains("pw = [hidden]"));
    }

    @Test
    void formatMatchesKafka() {
        assertEquals("a,b", ConfigType.format(List.of("a", "b")));
        assertEquals("9223372036854775807", ConfigType.format(Long.MAX_VALUE));
        assertEquals("0.5", ConfigType.format(0.5));
        assertEquals(null, ConfigType.format(null));
        assertEquals(5, ConfigType.LONG.id());
        assertEquals(9, ConfigType.PASSWORD.id());
    }
}

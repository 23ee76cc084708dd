package io.krill.broker.security.ssl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.krill.broker.config.ConfigException;
import org.junit.jupiter.api.Test;

class SslPrincipalMapperTest {
    private static final String DN = "CN=alice,OU=ServiceUsers,O=Example,C=NL";

    @Test
    void defaultKeepsTheDistinguishedName() {
        assertEquals(DN, SslPrincipalMapper.parse("DEFAULT").name(DN));
        assertEquals(DN, SslPrincipalMapper.parse(null).name(DN));
    }

    @Test
    void firstMatchingRuleWinsWithCaseFlags() {
        SslPrincipalMapper mapper = SslPrincipalMapper.parse(
                "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/U, RULE:^CN=(.*?),OU=(.*?),.*$/$1@$2/L, DEFAULT");
        assertEquals("ALICE", mapper.name(DN));
        assertEquals("bob@ops", mapper.name("CN=Bob,OU=Ops,O=Example"));
        assertEquals("CN=carol", mapper.name("CN=carol"));
    }

    @Test
    void escapedSlashAndNoMatch() {
        SslPrincipalMapper mapper = SslPrincipalMapper.parse("RULE:^CN=([^,]*).*$/users\\/$1/");
        assertEquals("users/alice", mapper.name(DN));
        assertThrows(IllegalArgumentException.class, () -> mapper.name("O=NoCommonName"));
    }

    @Test
    void malformedRulesAreConfigErrors() {
        assertThrows(ConfigException.class, () -> SslPrincipalMapper.parse("RULE:^CN=(.*)$"));
        assertThrows(ConfigException.class, () -> SslPrincipalMapper.parse("SOMETHING"));
    }
}

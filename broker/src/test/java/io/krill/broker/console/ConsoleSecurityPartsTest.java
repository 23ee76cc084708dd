package io.krill.broker.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.security.scram.ScramCredential;
import io.krill.broker.security.scram.ScramFormatter;
import io.krill.broker.security.scram.ScramMechanism;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/** The pure parts of the console's security and file serving: Basic parsing, the SCRAM check, path safety. */
class ConsoleSecurityPartsTest {
    private static String basic(String text) {
        return "Basic " + Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void parsesBasicCredentials() {
        BasicCredentials c = BasicCredentials.parse(basic("alice:s3:cr=t"));
        assertEquals("alice", c.user());
        assertEquals("s3:cr=t", c.password());
        assertEquals("bob", BasicCredentials.parse("basic  " + basic("bob:x").substring(6)).user());
        assertNull(BasicCredentials.parse(null));
        assertNull(BasicCredentials.parse("Bearer abc"));
        assertNull(BasicCredentials.parse("Basic !!!"));
        assertNull(BasicCredentials.parse(basic("no-colon")));
        assertNull(BasicCredentials.parse(basic(":empty-user")));
        assertNull(BasicCredentials.parse(basic("nul\u0000:x")));
        assertNull(BasicCredentials.parse("Basic " + "A".repeat(BasicCredentials.MAX_HEADER_LENGTH)));
        assertFalse(c.toString().contains("s3"));
    }

    @Test
    void scramCheckDerivesTheStoredKey() {
        for (ScramMechanism mechanism : ScramMechanism.values()) {
            ScramCredential stored = new ScramFormatter(mechanism).credential("right", 4096);
            assertTrue(ConsoleAuthenticator.matches(mechanism, stored, "right"), mechanism.toString());
            assertFalse(ConsoleAuthenticator.matches(mechanism, stored, "wrong"), mechanism.toString());
        }
    }

    @Test
    void servesOnlyPlainPaths() {
        assertTrue(StaticResources.isSafe("index.html"));
        assertTrue(StaticResources.isSafe("vendor/uplot/uPlot.iife.min.js"));
        assertFalse(StaticResources.isSafe("../secret"));
        assertFalse(StaticResources.isSafe("vendor/../../x.js"));
        assertFalse(StaticResources.isSafe("./index.html"));
        assertFalse(StaticResources.isSafe("/etc/passwd"));
        assertFalse(StaticResources.isSafe("a//b.js"));
        assertFalse(StaticResources.isSafe(".hidden.js"));
        assertFalse(StaticResources.isSafe("a\\b.js"));
        assertFalse(StaticResources.isSafe("dir/"));
        StaticResources resources = new StaticResources(getClass().getClassLoader());
        StaticResources.Resource uplot = resources.find("vendor/uplot/uPlot.min.css");
        assertTrue(uplot != null && uplot.immutable() && uplot.contentType().startsWith("text/css"));
        assertNull(resources.find("vendor/uplot/../LICENSE"));
        assertNull(resources.find("no-such.js"));
        assertNull(resources.find("vendor/uplot/package.json.exe"));
    }
}

package io.krill.broker.security.sasl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.security.KafkaPrincipal;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PlainServerMechanismTest {
    private static final Map<String, String> USERS = Map.of("alice", "alice-secret", "admin", "admin-secret");

    private static byte[] token(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static void assertRefused(String token, String message) {
        PlainServerMechanism server = new PlainServerMechanism(USERS);
        SaslAuthenticationException e = assertThrows(SaslAuthenticationException.class,
                () -> server.evaluateResponse(token(token)));
        assertEquals(message, e.getMessage());
        assertFalse(server.isComplete());
    }

    @Test
    void goodPasswordAuthenticates() throws Exception {
        PlainServerMechanism server = new PlainServerMechanism(USERS);
        assertFalse(server.isComplete());
        assertEquals(0, server.evaluateResponse(token("\0alice\0alice-secret")).length);
        assertTrue(server.isComplete());
        assertEquals(KafkaPrincipal.user("alice"), server.principal());
        assertEquals("PLAIN", server.mechanismName());
    }

    @Test
    void authzidEqualToUserIsAccepted() throws Exception {
        PlainServerMechanism server = new PlainServerMechanism(USERS);
        server.evaluateResponse(token("alice\0alice\0alice-secret"));
        assertEquals("alice", server.principal().name());
    }

    @Test
    void wrongPasswordAndUnknownUserFailAlike() {
        String invalid = "Authentication failed: Invalid username or password";
        assertRefused("\0alice\0nope", invalid);
        assertRefused("\0mallory\0alice-secret", invalid);
        assertRefused("\0alice\0alice-secretX", invalid);
        assertRefused("\0alice\0admin-secret", invalid);
    }

    @Test
    void differentAuthzidIsRefused() {
        assertRefused("admin\0alice\0alice-secret",
                "Authentication failed: Client requested an authorization id that is different from username");
    }

    @Test
    void malformedTokensAreRefused() {
        assertRefused("alice-secret", "Invalid SASL/PLAIN response: expected 3 tokens, got 1");
        assertRefused("\0a\0b\0c", "Invalid SASL/PLAIN response: expected 3 tokens, got 4");
        assertRefused("", "Invalid SASL/PLAIN response: expected 3 tokens, got 1");
        assertRefused("\0\0pw", "Authentication failed: username not specified");
        assertRefused("\0alice\0", "Authentication failed: password not specified");
    }

    @Test
    void aSecondMessageIsRefused() throws Exception {
        PlainServerMechanism server = new PlainServerMechanism(USERS);
        server.evaluateResponse(token("\0alice\0alice-secret"));
        assertThrows(SaslAuthenticationException.class, () -> server.evaluateResponse(token("\0alice\0alice-secret")));
    }

    @Test
    void clientMechanismTalksToServer() throws Exception {
        PlainClientMechanism client = new PlainClientMechanism("admin", "admin-secret");
        PlainServerMechanism server = new PlainServerMechanism(USERS);
        byte[] reply = server.evaluateResponse(client.initialResponse());
        assertNull(client.evaluateChallenge(reply));
        assertTrue(client.isComplete());
        assertEquals(KafkaPrincipal.user("admin"), server.principal());
    }
}

package io.krill.broker.security.authentication;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.config.SecurityProtocol;
import io.krill.broker.security.KafkaPrincipal;
import io.krill.broker.security.Session;
import io.krill.broker.security.sasl.SaslAuthenticationException;
import io.krill.broker.security.sasl.SaslServerMechanism;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class SaslServerAuthenticatorTest {
    /** A one-step mechanism: the token is "user:password", password "secret" is right. */
    private static final class OneStep implements SaslServerMechanism {
        private final String name;
        private KafkaPrincipal principal;

        OneStep(String name) {
            this.name = name;
        }

        @Override
        public String mechanismName() {
            return name;
        }

        @Override
        public byte[] evaluateResponse(byte[] clientToken) throws SaslAuthenticationException {
            String[] parts = new String(clientToken, StandardCharsets.UTF_8).split(":");
            if (parts.length != 2 || !parts[1].equals("secret")) {
                throw new SaslAuthenticationException("Authentication failed: Invalid username or password");
            }
            principal = KafkaPrincipal.user(parts[0]);
            return new byte[0];
        }

        @Override
        public boolean isComplete() {
            return principal != null;
        }

        @Override
        public KafkaPrincipal principal() {
            return principal;
        }
    }

    private static final ServerMechanismFactory FACTORY = new ServerMechanismFactory() {
        @Override
        public List<String> enabledMechanisms(String listenerName) {
            return List.of("PLAIN", "OTHER");
        }

        @Override
        public SaslServerMechanism create(String listenerName, String mechanism) {
            return new OneStep(mechanism);
        }
    };

    private static Session session() {
        return new Session(new InetSocketAddress("127.0.0.1", 5000), "SASL", SecurityProtocol.SASL_PLAINTEXT);
    }

    private static byte[] token(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void onlyVersionsAndSaslBeforeAuthentication() {
        Session session = session();
        SaslServerAuthenticator sasl = new SaslServerAuthenticator(session, FACTORY, 0);
        assertNull(sasl.refusal(ApiKeys.API_VERSIONS));
        assertNull(sasl.refusal(ApiKeys.SASL_HANDSHAKE));
        assertNotNull(sasl.refusal(ApiKeys.METADATA));
        assertEquals(Errors.NONE, sasl.handshake((short) 1, "PLAIN").error());
        SaslServerAuthenticator.AuthenticateOutcome ok = sasl.authenticate(token("alice:secret"));
        assertEquals(Errors.NONE, ok.error());
        assertEquals(0, ok.sessionLifetimeMs());
        assertTrue(session.isAuthenticated());
        assertEquals(KafkaPrincipal.user("alice"), session.principal());
        assertNull(sasl.refusal(ApiKeys.METADATA));
    }

    @Test
    void unknownMechanismAndOutOfOrderMessagesFail() {
        SaslServerAuthenticator unknown = new SaslServerAuthenticator(session(), FACTORY, 0);
        SaslServerAuthenticator.HandshakeOutcome outcome = unknown.handshake((short) 1, "GSSAPI");
        assertEquals(Errors.UNSUPPORTED_SASL_MECHANISM, outcome.error());
        assertEquals(List.of("PLAIN", "OTHER"), outcome.enabledMechanisms());
        assertTrue(unknown.mustClose());

        SaslServerAuthenticator early = new SaslServerAuthenticator(session(), FACTORY, 0);
        assertEquals(Errors.ILLEGAL_SASL_STATE, early.authenticate(token("alice:secret")).error());
        assertTrue(early.mustClose());

        SaslServerAuthenticator twice = new SaslServerAuthenticator(session(), FACTORY, 0);
        twice.handshake((short) 1, "PLAIN");
        assertEquals(Errors.ILLEGAL_SASL_STATE, twice.handshake((short) 1, "PLAIN").error());
    }

    @Test
    void badCredentialsFailWithTheMechanismsMessage() {
        Session session = session();
        SaslServerAuthenticator sasl = new SaslServerAuthenticator(session, FACTORY, 0);
        sasl.handshake((short) 1, "PLAIN");
        SaslServerAuthenticator.AuthenticateOutcome failed = sasl.authenticate(token("alice:wrong"));
        assertEquals(Errors.SASL_AUTHENTICATION_FAILED, failed.error());
        assertEquals("Authentication failed: Invalid username or password", failed.errorMessage());
        assertTrue(sasl.mustClose());
        assertFalse(session.isAuthenticated());
    }

    @Test
    void legacyFlowTakesRawTokens() throws Exception {
        Session session = session();
        SaslServerAuthenticator sasl = new SaslServerAuthenticator(session, FACTORY, 0);
        sasl.handshake((short) 0, "PLAIN");
        assertTrue(sasl.expectsRawToken());
        assertArrayEquals(new byte[0], sasl.legacyToken(token("bob:secret")));
        assertFalse(sasl.expectsRawToken());
        assertEquals(KafkaPrincipal.user("bob"), session.principal());

        SaslServerAuthenticator bad = new SaslServerAuthenticator(session(), FACTORY, 0);
        bad.handshake((short) 0, "PLAIN");
        assertThrows(SaslAuthenticationException.class, () -> bad.legacyToken(token("bob:nope")));
        assertTrue(bad.mustClose());
    }

    @Test
    void reauthenticationKeepsThePrincipalAndCarriesTheLifetime() {
        Session session = session();
        SaslServerAuthenticator sasl = new SaslServerAuthenticator(session, FACTORY, 60_000);
        sasl.handshake((short) 1, "PLAIN");
        assertEquals(60_000, sasl.authenticate(token("alice:secret")).sessionLifetimeMs());
        assertEquals(Errors.NONE, sasl.handshake((short) 1, "PLAIN").error(), "a re-authentication starts");
        assertNull(sasl.refusal(ApiKeys.PRODUCE), "requests still flow while the session is valid");
        assertEquals(Errors.NONE, sasl.authenticate(token("alice:secret")).error());

        sasl.handshake((short) 1, "PLAIN");
        SaslServerAuthenticator.AuthenticateOutcome changed = sasl.authenticate(token("mallory:secret"));
        assertEquals(Errors.SASL_AUTHENTICATION_FAILED, changed.error());
        assertTrue(sasl.mustClose());
        assertEquals(KafkaPrincipal.user("alice"), session.principal());
    }

    @Test
    void reauthenticationMustKeepTheMechanism() {
        SaslServerAuthenticator sasl = new SaslServerAuthenticator(session(), FACTORY, 60_000);
        sasl.handshake((short) 1, "PLAIN");
        sasl.authenticate(token("alice:secret"));
        assertEquals(Errors.UNSUPPORTED_SASL_MECHANISM, sasl.handshake((short) 1, "OTHER").error());
        assertTrue(sasl.mustClose());
    }

    @Test
    void expiredSessionRefusesOtherRequests() {
        SaslServerAuthenticator sasl = new SaslServerAuthenticator(session(), FACTORY, 1);
        sasl.handshake((short) 1, "PLAIN");
        sasl.authenticate(token("alice:secret"));
        long deadline = System.nanoTime() + 1_000_000_000L;
        while (sasl.refusal(ApiKeys.FETCH) == null && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertNotNull(sasl.refusal(ApiKeys.FETCH));
        assertNull(sasl.refusal(ApiKeys.SASL_HANDSHAKE), "re-authentication is still possible");
    }
}

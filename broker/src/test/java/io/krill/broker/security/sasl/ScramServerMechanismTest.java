package io.krill.broker.security.sasl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.security.KafkaPrincipal;
import io.krill.broker.security.scram.ScramCredential;
import io.krill.broker.security.scram.ScramFormatter;
import io.krill.broker.security.scram.ScramMechanism;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class ScramServerMechanismTest {
    // RFC 7677 section 3: user "user", password "pencil".
    private static final String CLIENT_NONCE = "rOprNGfwEbeRWgbNEkqO";
    private static final String SERVER_NONCE = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
    private static final String CLIENT_FIRST = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO";
    private static final String SERVER_FIRST =
            "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
    private static final String CLIENT_FINAL = "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
            + "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
    private static final String SERVER_FINAL = "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";

    private static final ScramMechanism SHA256 = ScramMechanism.SCRAM_SHA_256;
    private static final ScramMechanism SHA512 = ScramMechanism.SCRAM_SHA_512;

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    private static ScramCredential rfcCredential() {
        ScramFormatter f = new ScramFormatter(SHA256);
        byte[] salt = Base64.getDecoder().decode("W22ZaJ0SNY7soEsUEjb6gQ==");
        return f.credential(salt, f.saltedPassword("pencil", salt, 4096), 4096);
    }

    private static Function<String, Optional<ScramCredential>> users(ScramMechanism mechanism,
                                                                     Map<String, String> passwords) {
        ScramFormatter f = new ScramFormatter(mechanism);
        Map<String, ScramCredential> stored = new java.util.HashMap<>();
        passwords.forEach((user, password) -> stored.put(user, f.credential(password, 4096)));
        return user -> Optional.ofNullable(stored.get(user));
    }

    @Test
    void rfc7677VectorThroughTheServer() throws Exception {
        ScramCredential credential = rfcCredential();
        ScramServerMechanism server = new ScramServerMechanism(SHA256,
                user -> user.equals("user") ? Optional.of(credential) : Optional.empty(), () -> SERVER_NONCE);
        assertEquals(SERVER_FIRST, text(server.evaluateResponse(bytes(CLIENT_FIRST))));
        assertFalse(server.isComplete());
        assertEquals(SERVER_FINAL, text(server.evaluateResponse(bytes(CLIENT_FINAL))));
        assertTrue(server.isComplete());
        assertEquals(KafkaPrincipal.user("user"), server.principal());
    }

    @Test
    void rfc7677VectorThroughTheClient() throws Exception {
        ScramClientMechanism client = new ScramClientMechanism(SHA256, "user", "pencil", CLIENT_NONCE);
        assertEquals(CLIENT_FIRST, text(client.initialResponse()));
        assertEquals(CLIENT_FINAL, text(client.evaluateChallenge(bytes(SERVER_FIRST))));
        assertNull(client.evaluateChallenge(bytes(SERVER_FINAL)));
        assertTrue(client.isComplete());
    }

    @Test
    void clientRefusesAForgedServerSignature() throws Exception {
        ScramClientMechanism client = new ScramClientMechanism(SHA256, "user", "pencil", CLIENT_NONCE);
        client.initialResponse();
        client.evaluateChallenge(bytes(SERVER_FIRST));
        assertThrows(SaslAuthenticationException.class,
                () -> client.evaluateChallenge(bytes("v=" + Base64.getEncoder().encodeToString(new byte[32]))));
        assertFalse(client.isComplete());
    }

    private static void exchange(SaslClientMechanism client, SaslServerMechanism server) throws Exception {
        byte[] challenge = server.evaluateResponse(client.initialResponse());
        byte[] response = client.evaluateChallenge(challenge);
        byte[] last = server.evaluateResponse(response);
        assertNull(client.evaluateChallenge(last));
    }

    @Test
    void fullExchangeSha512AndSha256() throws Exception {
        for (ScramMechanism m : ScramMechanism.values()) {
            ScramServerMechanism server = new ScramServerMechanism(m, users(m, Map.of("alice", "alice-secret")));
            ScramClientMechanism client = new ScramClientMechanism(m, "alice", "alice-secret");
            exchange(client, server);
            assertTrue(server.isComplete());
            assertTrue(client.isComplete());
            assertEquals(KafkaPrincipal.user("alice"), server.principal());
            assertEquals(m.mechanismName(), server.mechanismName());
        }
    }

    @Test
    void userNamesWithEscapedCharacters() throws Exception {
        ScramServerMechanism server = new ScramServerMechanism(SHA512, users(SHA512, Map.of("a,b=c", "pw")));
        exchange(new ScramClientMechanism(SHA512, "a,b=c", "pw"), server);
        assertEquals("a,b=c", server.principal().name());
    }

    private static void assertGenericFailure(ScramMechanism m, SaslAuthenticationException e) {
        assertEquals("Authentication failed during authentication due to invalid credentials with SASL mechanism "
                + m.mechanismName(), e.getMessage());
    }

    @Test
    void wrongPasswordFailsAtClientFinal() throws Exception {
        ScramServerMechanism server = new ScramServerMechanism(SHA512, users(SHA512, Map.of("alice", "alice-secret")));
        ScramClientMechanism client = new ScramClientMechanism(SHA512, "alice", "wrong");
        byte[] response = client.evaluateChallenge(server.evaluateResponse(client.initialResponse()));
        assertGenericFailure(SHA512, assertThrows(SaslAuthenticationException.class,
                () -> server.evaluateResponse(response)));
        assertFalse(server.isComplete());
        assertThrows(IllegalStateException.class, server::principal);
    }

    @Test
    void unknownUserGetsAPlausibleExchangeThenTheSameFailure() throws Exception {
        Function<String, Optional<ScramCredential>> none = user -> Optional.empty();
        ScramServerMechanism server = new ScramServerMechanism(SHA256, none);
        ScramClientMechanism client = new ScramClientMechanism(SHA256, "mallory", "x");
        String serverFirst = text(server.evaluateResponse(client.initialResponse()));
        assertTrue(serverFirst.contains(",s=") && serverFirst.endsWith(",i=4096"), serverFirst);
        byte[] response = client.evaluateChallenge(bytes(serverFirst));
        assertGenericFailure(SHA256, assertThrows(SaslAuthenticationException.class,
                () -> server.evaluateResponse(response)));
        // the made-up salt is stable for a name, so asking twice does not tell either
        String again = text(new ScramServerMechanism(SHA256, none)
                .evaluateResponse(new ScramClientMechanism(SHA256, "mallory", "x").initialResponse()));
        assertEquals(serverFirst.split(",")[1], again.split(",")[1]);
    }

    @Test
    void credentialOfTheOtherMechanismDoesNotCount() throws Exception {
        // alice has only SHA-512; a SHA-256 exchange fails like an unknown user
        ScramServerMechanism server = new ScramServerMechanism(SHA256, user -> Optional.empty());
        ScramClientMechanism client = new ScramClientMechanism(SHA256, "alice", "alice-secret");
        byte[] response = client.evaluateChallenge(server.evaluateResponse(client.initialResponse()));
        assertThrows(SaslAuthenticationException.class, () -> server.evaluateResponse(response));
    }

    private ScramServerMechanism rfcServer() throws Exception {
        ScramCredential credential = rfcCredential();
        ScramServerMechanism server = new ScramServerMechanism(SHA256, user -> Optional.of(credential),
                () -> SERVER_NONCE);
        server.evaluateResponse(bytes(CLIENT_FIRST));
        return server;
    }

    @Test
    void tamperedClientFinalMessagesFail() throws Exception {
        String[] tampered = {
            CLIENT_FINAL.replace("r=rOprNGfwEbeRWgbNEkqO%", "r=rOprNGfwEbeRWgbNEkqX%"), // nonce
            CLIENT_FINAL.replace("c=biws", "c=eSws"), // c= is "y,," not the "n,," sent
            CLIENT_FINAL.replace("p=dHzb", "p=dHzc"), // proof
            CLIENT_FINAL.substring(0, CLIENT_FINAL.indexOf(",p=")), // no proof
            CLIENT_FINAL.replace("p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=", "p=AAAA"), // short proof
            CLIENT_FINAL.replace("p=dHzb", "p=!!zb"), // not base64
            "garbage",
        };
        for (String message : tampered) {
            ScramServerMechanism server = rfcServer();
            assertGenericFailure(SHA256, assertThrows(SaslAuthenticationException.class,
                    () -> server.evaluateResponse(bytes(message)), message));
            assertFalse(server.isComplete());
            // a failed exchange stays failed
            assertThrows(SaslAuthenticationException.class, () -> server.evaluateResponse(bytes(CLIENT_FINAL)));
        }
    }

    @Test
    void malformedClientFirstMessagesFail() {
        String[] malformed = {
            "", "n,,", "x,,n=user,r=abc", "p=tls-unique,,n=user,r=abc", "n,,r=abc,n=user", "n,,n=user",
            "n,,n=us=2Xer,r=abc", "n,,n=,r=abc", "n,,n=user,r=", "n,,m=ext,n=user,r=abc", "n,x=y,n=user,r=abc",
            "n,,n=user,r=abc,junk",
        };
        for (String message : malformed) {
            ScramServerMechanism server = new ScramServerMechanism(SHA256, user -> Optional.of(rfcCredential()));
            assertGenericFailure(SHA256, assertThrows(SaslAuthenticationException.class,
                    () -> server.evaluateResponse(bytes(message)), message));
        }
    }

    @Test
    void authzidAndExtensions() throws Exception {
        ScramCredential credential = rfcCredential();
        Function<String, Optional<ScramCredential>> lookup = user -> Optional.of(credential);
        SaslAuthenticationException e = assertThrows(SaslAuthenticationException.class,
                () -> new ScramServerMechanism(SHA256, lookup).evaluateResponse(bytes("n,a=admin,n=user,r=abc")));
        assertTrue(e.getMessage().contains("authorization id that is different"), e.getMessage());
        e = assertThrows(SaslAuthenticationException.class, () -> new ScramServerMechanism(SHA256, lookup)
                .evaluateResponse(bytes("n,,n=user,r=abc,tokenauth=true")));
        assertTrue(e.getMessage().contains("delegation token"), e.getMessage());
        // an equal authzid, "y" and an unknown extension are accepted; c= must then echo "y,a=user,"
        ScramServerMechanism server = new ScramServerMechanism(SHA256, lookup, () -> SERVER_NONCE);
        String clientFirstBare = "n=user,r=" + CLIENT_NONCE + ",foo=bar";
        String serverFirst = text(server.evaluateResponse(bytes("y,a=user," + clientFirstBare)));
        ScramFormatter f = new ScramFormatter(SHA256);
        String withoutProof = "c=" + Base64.getEncoder().encodeToString(bytes("y,a=user,")) + ",r="
                + CLIENT_NONCE + SERVER_NONCE;
        byte[] authMessage = ScramFormatter.authMessage(clientFirstBare, serverFirst, withoutProof);
        byte[] salted = f.saltedPassword("pencil", credential.salt(), 4096);
        String finalMessage = withoutProof + ",p=" + Base64.getEncoder().encodeToString(f.clientProof(salted, authMessage));
        String serverFinal = text(server.evaluateResponse(bytes(finalMessage)));
        assertEquals("v=" + Base64.getEncoder().encodeToString(f.serverSignature(f.serverKey(salted), authMessage)),
                serverFinal);
        assertEquals("user", server.principal().name());
    }

    @Test
    void storedCredentialWithTooFewIterationsIsRefused() throws Exception {
        ScramFormatter f = new ScramFormatter(SHA256);
        ScramCredential weak = f.credential("pw", 1000);
        ScramServerMechanism server = new ScramServerMechanism(SHA256, user -> Optional.of(weak));
        ScramClientMechanism client = new ScramClientMechanism(SHA256, "u", "pw");
        byte[] response = client.evaluateChallenge(server.evaluateResponse(client.initialResponse()));
        assertThrows(SaslAuthenticationException.class, () -> server.evaluateResponse(response));
    }

    @Test
    void credentialStorageFormatRoundTrips() {
        ScramCredential credential = rfcCredential();
        String value = credential.toConfigValue();
        assertTrue(value.matches("salt=[A-Za-z0-9+/=]+,stored_key=[A-Za-z0-9+/=]+,server_key=[A-Za-z0-9+/=]+,"
                + "iterations=4096"), value);
        assertEquals(credential, ScramCredential.parse(value));
        assertArrayEquals(credential.storedKey(), ScramCredential.parse(value).storedKey());
        assertThrows(IllegalArgumentException.class, () -> ScramCredential.parse("salt=AAAA,iterations=4096"));
        assertThrows(IllegalArgumentException.class, () -> ScramCredential.parse("garbage"));
        assertFalse(credential.toString().contains(Base64.getEncoder().encodeToString(credential.storedKey())));
    }

    @Test
    void hiMatchesTheJdkPbkdf2() throws Exception {
        for (ScramMechanism m : ScramMechanism.values()) {
            byte[] salt = ScramFormatter.randomBytes(20);
            byte[] ours = new ScramFormatter(m).saltedPassword("p\u00e4ssword", salt, 4096);
            javax.crypto.SecretKeyFactory factory = javax.crypto.SecretKeyFactory.getInstance(
                    "PBKDF2With" + m.macAlgorithm());
            byte[] jdk = factory.generateSecret(new javax.crypto.spec.PBEKeySpec("p\u00e4ssword".toCharArray(), salt,
                    4096, ours.length * 8)).getEncoded();
            assertArrayEquals(jdk, ours);
        }
    }
}

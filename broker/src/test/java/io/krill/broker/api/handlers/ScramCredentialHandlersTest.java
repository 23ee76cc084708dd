package io.krill.broker.api.handlers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.api.Request;
import io.krill.broker.security.KafkaPrincipal;
import io.krill.broker.security.scram.ScramCredential;
import io.krill.broker.security.scram.ScramFormatter;
import io.krill.broker.security.scram.ScramMechanism;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.AlterUserScramCredentialsRequest;
import io.krill.wire.message.AlterUserScramCredentialsRequest.ScramCredentialDeletion;
import io.krill.wire.message.AlterUserScramCredentialsRequest.ScramCredentialUpsertion;
import io.krill.wire.message.AlterUserScramCredentialsResponse;
import io.krill.wire.message.AlterUserScramCredentialsResponse.AlterUserScramCredentialsResult;
import io.krill.wire.message.DescribeUserScramCredentialsRequest;
import io.krill.wire.message.DescribeUserScramCredentialsResponse;
import io.krill.wire.message.DescribeUserScramCredentialsResponse.DescribeUserScramCredentialsResult;
import io.krill.wire.protocol.ApiMessage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScramCredentialHandlersTest {
    private static final byte SHA256 = ScramMechanism.SCRAM_SHA_256.type();
    private static final byte SHA512 = ScramMechanism.SCRAM_SHA_512.type();

    @TempDir
    Path dir;
    private HandlerFixture broker;

    @BeforeEach
    void start() {
        broker = HandlerFixture.start(dir);
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    private static ScramCredentialUpsertion upsert(String user, byte mechanism, int iterations, String password) {
        byte[] salt = "some-salt".getBytes(StandardCharsets.UTF_8);
        byte[] salted = mechanism == SHA256 || mechanism == SHA512
                ? new ScramFormatter(ScramMechanism.forType(mechanism).orElseThrow()).saltedPassword(password, salt,
                        Math.max(1, iterations))
                : new byte[] {1};
        return new ScramCredentialUpsertion().setName(user).setMechanism(mechanism).setIterations(iterations)
                .setSalt(salt).setSaltedPassword(salted);
    }

    private static ScramCredentialDeletion delete(String user, byte mechanism) {
        return new ScramCredentialDeletion().setName(user).setMechanism(mechanism);
    }

    private Map<String, AlterUserScramCredentialsResult> alter(List<ScramCredentialUpsertion> upsertions,
                                                               List<ScramCredentialDeletion> deletions) {
        AlterUserScramCredentialsResponse response = broker.call(new AlterUserScramCredentialsHandler(broker.context), 0,
                new AlterUserScramCredentialsRequest().setUpsertions(new ArrayList<>(upsertions))
                        .setDeletions(new ArrayList<>(deletions)));
        Map<String, AlterUserScramCredentialsResult> byUser = new HashMap<>();
        for (AlterUserScramCredentialsResult result : response.results()) {
            assertNull(byUser.put(result.user(), result), "one result per user");
        }
        return byUser;
    }

    private DescribeUserScramCredentialsResponse describe(List<String> users) {
        DescribeUserScramCredentialsRequest request = new DescribeUserScramCredentialsRequest();
        if (users != null) {
            List<DescribeUserScramCredentialsRequest.UserName> names = new ArrayList<>();
            users.forEach(u -> names.add(new DescribeUserScramCredentialsRequest.UserName().setName(u)));
            request.setUsers(names);
        } else {
            request.setUsers(null);
        }
        return broker.call(new DescribeUserScramCredentialsHandler(broker.context), 0, request);
    }

    private static void assertError(Errors expected, String message, short code, String actualMessage) {
        assertEquals(expected.code(), code, actualMessage);
        assertTrue(actualMessage != null && actualMessage.contains(message), actualMessage);
    }

    @Test
    void upsertStoresDerivedKeysAndKeepsOtherKeys() {
        broker.setEntityConfigs("users/alice", Map.of("producer_byte_rate", "1024"));
        Map<String, AlterUserScramCredentialsResult> results = alter(
                List.of(upsert("alice", SHA256, 8192, "alice-secret"), upsert("alice", SHA512, 4096, "alice-secret")),
                List.of());
        assertEquals(Errors.NONE.code(), results.get("alice").errorCode());
        Map<String, String> configs = broker.metadata.image().entityConfigs("users/alice");
        assertEquals("1024", configs.get("producer_byte_rate"));
        ScramCredential sha256 = ScramCredential.parse(configs.get("SCRAM-SHA-256"));
        assertEquals(8192, sha256.iterations());
        ScramFormatter f = new ScramFormatter(ScramMechanism.SCRAM_SHA_256);
        byte[] salted = f.saltedPassword("alice-secret", sha256.salt(), 8192);
        assertEquals(new String(f.storedKey(f.clientKey(salted)), StandardCharsets.ISO_8859_1),
                new String(sha256.storedKey(), StandardCharsets.ISO_8859_1));
        assertFalse(configs.get("SCRAM-SHA-256").contains("password"));

        DescribeUserScramCredentialsResponse described = describe(null);
        assertEquals(1, described.results().size());
        DescribeUserScramCredentialsResult alice = described.results().get(0);
        assertEquals("alice", alice.user());
        assertEquals(2, alice.credentialInfos().size());
        assertEquals(SHA256, alice.credentialInfos().get(0).mechanism());
        assertEquals(8192, alice.credentialInfos().get(0).iterations());
        assertEquals(SHA512, alice.credentialInfos().get(1).mechanism());

        // delete one; the other and the quota stay
        assertEquals(Errors.NONE.code(), alter(List.of(), List.of(delete("alice", SHA512))).get("alice").errorCode());
        configs = broker.metadata.image().entityConfigs("users/alice");
        assertEquals("1024", configs.get("producer_byte_rate"));
        assertTrue(configs.containsKey("SCRAM-SHA-256"));
        assertFalse(configs.containsKey("SCRAM-SHA-512"));
    }

    @Test
    void validationErrorsArePerUser() {
        Map<String, AlterUserScramCredentialsResult> results = alter(List.of(
                upsert("few", SHA256, 4095, "pw"),
                upsert("many", SHA512, 16385, "pw"),
                upsert("", SHA256, 4096, "pw"),
                upsert("mech", (byte) 0, 4096, "pw"),
                upsert("mech3", (byte) 3, 4096, "pw"),
                upsert("twice", SHA256, 4096, "pw"),
                upsert("twice", SHA256, 4096, "pw2"),
                upsert("both", SHA256, 4096, "pw"),
                upsert("ok", SHA256, 16384, "pw"),
                upsert("okboth", SHA256, 4096, "pw"),
                upsert("okboth", SHA512, 4096, "pw")),
                List.of(delete("both", SHA256), delete("missing", SHA512), delete("mechdel", (byte) 9)));
        assertError(Errors.UNACCEPTABLE_CREDENTIAL, "Too few iterations", results.get("few").errorCode(),
                results.get("few").errorMessage());
        assertError(Errors.UNACCEPTABLE_CREDENTIAL, "Too many iterations", results.get("many").errorCode(),
                results.get("many").errorMessage());
        assertError(Errors.UNACCEPTABLE_CREDENTIAL, "Username must not be empty", results.get("").errorCode(),
                results.get("").errorMessage());
        assertError(Errors.UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism", results.get("mech").errorCode(),
                results.get("mech").errorMessage());
        assertEquals(Errors.UNSUPPORTED_SASL_MECHANISM.code(), results.get("mech3").errorCode());
        assertEquals(Errors.UNSUPPORTED_SASL_MECHANISM.code(), results.get("mechdel").errorCode());
        assertError(Errors.DUPLICATE_RESOURCE, "cannot be altered twice", results.get("twice").errorCode(),
                results.get("twice").errorMessage());
        assertEquals(Errors.DUPLICATE_RESOURCE.code(), results.get("both").errorCode());
        assertError(Errors.RESOURCE_NOT_FOUND, "Attempt to delete a user credential that does not exist",
                results.get("missing").errorCode(), results.get("missing").errorMessage());
        assertEquals(Errors.NONE.code(), results.get("ok").errorCode());
        assertEquals(Errors.NONE.code(), results.get("okboth").errorCode());
        // nothing was written for a failed user
        for (String user : List.of("few", "many", "twice", "both", "missing", "mech")) {
            assertTrue(broker.metadata.image().entityConfigs("users/" + user).isEmpty(), user);
        }
        assertTrue(broker.metadata.image().entityConfigs("users/okboth").containsKey("SCRAM-SHA-512"));
    }

    @Test
    void describeNamedUsers() {
        alter(List.of(upsert("alice", SHA512, 4096, "pw")), List.of());
        broker.setEntityConfigs("users/quota-only", Map.of("consumer_byte_rate", "10"));
        DescribeUserScramCredentialsResponse response = describe(List.of("alice", "bob", "quota-only", "dup", "dup", ""));
        assertEquals(Errors.NONE.code(), response.errorCode());
        Map<String, DescribeUserScramCredentialsResult> byUser = new HashMap<>();
        response.results().forEach(r -> assertNull(byUser.put(r.user(), r)));
        assertEquals(5, byUser.size());
        assertEquals(Errors.NONE.code(), byUser.get("alice").errorCode());
        assertEquals(1, byUser.get("alice").credentialInfos().size());
        assertEquals(SHA512, byUser.get("alice").credentialInfos().get(0).mechanism());
        assertEquals(4096, byUser.get("alice").credentialInfos().get(0).iterations());
        assertError(Errors.RESOURCE_NOT_FOUND, "Attempt to describe a user credential that does not exist: bob",
                byUser.get("bob").errorCode(), byUser.get("bob").errorMessage());
        assertEquals(Errors.RESOURCE_NOT_FOUND.code(), byUser.get("quota-only").errorCode());
        assertError(Errors.DUPLICATE_RESOURCE, "same user twice", byUser.get("dup").errorCode(),
                byUser.get("dup").errorMessage());
        assertEquals(Errors.RESOURCE_NOT_FOUND.code(), byUser.get("").errorCode());
        // all users: only those with credentials, sorted
        alter(List.of(upsert("aaron", SHA256, 4096, "pw")), List.of());
        List<String> all = new ArrayList<>();
        describe(List.of()).results().forEach(r -> all.add(r.user()));
        assertEquals(List.of("aaron", "alice"), all);
    }

    @Test
    void oddUserNamesGetTheirOwnEntity() {
        Map<String, AlterUserScramCredentialsResult> results = alter(List.of(upsert("a/clients/b", SHA256, 4096, "pw"),
                upsert("100%", SHA256, 4096, "pw"), upsert("<default>", SHA256, 4096, "pw")), List.of());
        results.values().forEach(r -> assertEquals(Errors.NONE.code(), r.errorCode(), r.user()));
        assertTrue(broker.metadata.image().entityConfigs("users/a%2Fclients%2Fb").containsKey("SCRAM-SHA-256"));
        assertTrue(broker.metadata.image().entityConfigs("users/a/clients/b").isEmpty(), "not a user/client pair");
        assertTrue(broker.metadata.image().entityConfigs("users/100%25").containsKey("SCRAM-SHA-256"));
        assertTrue(broker.metadata.image().entityConfigs("users/<default>").isEmpty(), "not the default user");
        // quota-only nested and default entities are not users with credentials
        broker.setEntityConfigs("users/a/clients/b", Map.of("producer_byte_rate", "1"));
        broker.setEntityConfigs("users/<default>", Map.of("producer_byte_rate", "1"));
        List<String> all = new ArrayList<>();
        describe(null).results().forEach(r -> all.add(r.user()));
        assertEquals(List.of("100%", "<default>", "a/clients/b"), all);
        assertEquals(Errors.NONE.code(), describe(List.of("a/clients/b")).results().get(0).errorCode());
    }

    /**
     * The request thread does not wait for the store: each user's write is answered when it completes;
     * a deletion the store's data does not allow is RESOURCE_NOT_FOUND, a store failure its own error.
     */
    @Test
    void answersWhenTheStoresWritesCompleteNotBefore() {
        List<HandlerFixture.Held> held = new CopyOnWriteArrayList<>();
        AlterUserScramCredentialsHandler handler = new AlterUserScramCredentialsHandler(broker.contextWith(
                broker.holdingStore(Set.of("updateEntityConfigsAsync"), held)));
        AtomicReference<ApiMessage> answer = new AtomicReference<>();
        Request request = broker.request(handler, 0, new AlterUserScramCredentialsRequest()
                .setUpsertions(new ArrayList<>(List.of(upsert("alice", SHA256, 4096, "pw"), upsert("bob", SHA256, 4096, "pw"))))
                .setDeletions(new ArrayList<>(List.of(delete("carol", SHA512)))), KafkaPrincipal.ANONYMOUS, answer);
        handler.handle(request);
        assertFalse(request.isAnswered(), "the handler returned without waiting for the store");
        assertEquals(3, held.size(), "every user's write in flight at once");
        Map<String, String> alice = held.get(1).apply(Map.of("producer_byte_rate", "5"));
        assertEquals("5", alice.get("producer_byte_rate"), "other keys of the entity are kept");
        assertEquals(4096, ScramCredential.parse(alice.get("SCRAM-SHA-256")).iterations());
        RuntimeException missing = assertThrows(RuntimeException.class, () -> held.get(0).apply(Map.of()));
        held.get(0).future().completeExceptionally(missing); // carol has no SCRAM-SHA-512 credential
        held.get(1).future().complete(alice);
        assertFalse(request.isAnswered());
        held.get(2).future().completeExceptionally(new ApiException(Errors.REQUEST_TIMED_OUT, "ZooKeeper unavailable"));
        AlterUserScramCredentialsResponse response = broker.decodeResponse(handler, 0, answer.get());
        Map<String, Short> codes = new HashMap<>();
        response.results().forEach(r -> codes.put(r.user(), r.errorCode()));
        assertEquals(Map.of("carol", Errors.RESOURCE_NOT_FOUND.code(), "alice", Errors.NONE.code(),
                "bob", Errors.REQUEST_TIMED_OUT.code()), codes);
    }
}

package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.scram.ScramCredentials;
import io.krill.broker.security.scram.ScramFormatter;
import io.krill.broker.security.scram.ScramMechanism;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.AlterUserScramCredentialsRequest;
import io.krill.wire.message.AlterUserScramCredentialsRequest.ScramCredentialDeletion;
import io.krill.wire.message.AlterUserScramCredentialsRequest.ScramCredentialUpsertion;
import io.krill.wire.message.AlterUserScramCredentialsResponse;
import io.krill.wire.message.AlterUserScramCredentialsResponse.AlterUserScramCredentialsResult;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.protocol.ApiMessage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * AlterUserScramCredentials: upserts (the client sends salt, salted password and iterations; the broker derives
 * StoredKey and ServerKey and keeps only those) and deletes SCRAM credentials, with the validations of Kafka's
 * ZooKeeper-mode broker, one result per user: an empty name or iterations outside [4096, 16384] is
 * UNACCEPTABLE_CREDENTIAL, an unknown mechanism UNSUPPORTED_SASL_MECHANISM, the same user and mechanism twice
 * DUPLICATE_RESOURCE, deleting a credential that does not exist RESOURCE_NOT_FOUND. A user's changes are applied
 * together, to the {@code users/<name>} entity whose other keys (quotas) are kept.
 *
 * <p>The users' changes go to the metadata store together, each an atomic read-modify-write of the user's
 * entity ({@code updateEntityConfigsAsync}); the request is answered when the last completes
 * ({@link PendingAnswer}), so the request thread never waits for ZooKeeper.
 *
 * <p>Thread-safe: stateless (a request's state lives in its callbacks).
 */
public final class AlterUserScramCredentialsHandler extends AbstractApiHandler {
    private final BrokerContext context;

    public AlterUserScramCredentialsHandler(BrokerContext context) {
        super(ApiKeys.ALTER_USER_SCRAM_CREDENTIALS, 0, 0);
        this.context = context;
    }

    private record Failure(Errors error, String message) {
    }

    @Override
    public void handle(Request request) {
        AlterUserScramCredentialsRequest body = request.body();
        context.authorization().requireCluster(request, AclOperation.ALTER);
        Set<String> users = new LinkedHashSet<>();
        Map<String, Failure> failures = new HashMap<>();
        for (ScramCredentialDeletion deletion : body.deletions()) {
            users.add(deletion.name());
            invalid(deletion.name(), deletion.mechanism(), null).ifPresent(f -> failures.put(deletion.name(), f));
        }
        for (ScramCredentialUpsertion upsertion : body.upsertions()) {
            users.add(upsertion.name());
            invalid(upsertion.name(), upsertion.mechanism(), upsertion).ifPresent(f -> failures.put(upsertion.name(), f));
        }
        Set<List<Object>> pairs = new HashSet<>();
        for (ScramCredentialDeletion d : body.deletions()) {
            duplicate(d.name(), d.mechanism(), pairs, failures);
        }
        for (ScramCredentialUpsertion u : body.upsertions()) {
            duplicate(u.name(), u.mechanism(), pairs, failures);
        }
        AlterUserScramCredentialsResponse response = new AlterUserScramCredentialsResponse();
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        for (String user : users) {
            AlterUserScramCredentialsResult result = new AlterUserScramCredentialsResult().setUser(user)
                    .setErrorCode(Errors.NONE.code()).setErrorMessage(null);
            response.results().add(result);
            Failure failure = failures.get(user);
            if (failure != null) {
                result.setErrorCode(failure.error().code()).setErrorMessage(failure.message());
                continue;
            }
            writes.add(alter(user, body).handle((written, thrown) -> {
                if (thrown != null) {
                    if (PendingAnswer.unwrap(thrown) instanceof MissingCredential) {
                        result.setErrorCode(Errors.RESOURCE_NOT_FOUND.code())
                                .setErrorMessage("Attempt to delete a user credential that does not exist");
                    } else {
                        ApiException error = PendingAnswer.error(thrown, "the SCRAM credentials of " + user);
                        result.setErrorCode(error.error().code()).setErrorMessage(error.getMessage());
                    }
                }
                return null;
            }));
        }
        PendingAnswer.respondWhenDone(request, this, writes, () -> response);
    }

    /** Kafka's per-item checks: an empty name, an unknown mechanism, iterations out of range, empty secrets. */
    private static Optional<Failure> invalid(String user, byte mechanismType, ScramCredentialUpsertion upsertion) {
        if (user.isEmpty()) {
            return Optional.of(new Failure(Errors.UNACCEPTABLE_CREDENTIAL, "Username must not be empty"));
        }
        Optional<ScramMechanism> mechanism = ScramMechanism.forType(mechanismType);
        if (mechanism.isEmpty()) {
            return Optional.of(new Failure(Errors.UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism"));
        }
        if (upsertion != null) {
            if (upsertion.iterations() < mechanism.get().minIterations()) {
                return Optional.of(new Failure(Errors.UNACCEPTABLE_CREDENTIAL, "Too few iterations"));
            }
            if (upsertion.iterations() > ScramMechanism.MAX_ITERATIONS) {
                return Optional.of(new Failure(Errors.UNACCEPTABLE_CREDENTIAL, "Too many iterations"));
            }
            if (upsertion.salt() == null || upsertion.salt().length == 0 || upsertion.saltedPassword() == null
                    || upsertion.saltedPassword().length == 0) {
                return Optional.of(new Failure(Errors.UNACCEPTABLE_CREDENTIAL,
                        "Salt and salted password must not be empty"));
            }
        }
        return Optional.empty();
    }

    private static void duplicate(String user, byte mechanism, Set<List<Object>> seen, Map<String, Failure> failures) {
        if (!failures.containsKey(user) && !seen.add(List.of(user, mechanism))) {
            failures.put(user, new Failure(Errors.DUPLICATE_RESOURCE,
                    "A user credential cannot be altered twice in the same request"));
        }
    }

    /**
     * Applies one valid user's deletions then upsertions to its entity, atomically with respect to other
     * writers of the entity (its quotas, other brokers); the future fails with {@link MissingCredential}
     * if a deletion finds nothing. The credentials are derived here, on the request thread: the change
     * the store runs (on its thread, maybe more than once) only edits the map.
     */
    private CompletableFuture<Map<String, String>> alter(String user, AlterUserScramCredentialsRequest body) {
        List<String> deleted = new ArrayList<>();
        for (ScramCredentialDeletion deletion : body.deletions()) {
            if (deletion.name().equals(user)) {
                deleted.add(ScramMechanism.forType(deletion.mechanism()).orElseThrow().mechanismName());
            }
        }
        Map<String, String> upserted = new LinkedHashMap<>();
        for (ScramCredentialUpsertion upsertion : body.upsertions()) {
            if (upsertion.name().equals(user)) {
                ScramMechanism mechanism = ScramMechanism.forType(upsertion.mechanism()).orElseThrow();
                upserted.put(mechanism.mechanismName(), new ScramFormatter(mechanism)
                        .credential(upsertion.salt(), upsertion.saltedPassword(), upsertion.iterations())
                        .toConfigValue());
            }
        }
        return context.metadata().updateEntityConfigsAsync(ScramCredentials.entity(user), current -> {
            Map<String, String> next = new LinkedHashMap<>(current);
            for (String key : deleted) {
                if (next.remove(key) == null) {
                    throw new MissingCredential();
                }
            }
            next.putAll(upserted);
            return next;
        });
    }

    /** Aborts an entity update: a deletion named a credential the user does not have. */
    private static final class MissingCredential extends RuntimeException {
        MissingCredential() {
            super(null, null, false, false);
        }
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        AlterUserScramCredentialsRequest body = request.body();
        Set<String> users = new LinkedHashSet<>();
        body.deletions().forEach(d -> users.add(d.name()));
        body.upsertions().forEach(u -> users.add(u.name()));
        AlterUserScramCredentialsResponse response = new AlterUserScramCredentialsResponse();
        for (String user : users) {
            response.results().add(new AlterUserScramCredentialsResult().setUser(user).setErrorCode(error.code())
                    .setErrorMessage(error.message()));
        }
        return response;
    }
}

package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.scram.ScramCredential;
import io.krill.broker.security.scram.ScramCredentials;
import io.krill.broker.security.scram.ScramMechanism;
import io.krill.controller.metadata.MetadataImage;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.DescribeUserScramCredentialsRequest;
import io.krill.wire.message.DescribeUserScramCredentialsResponse;
import io.krill.wire.message.DescribeUserScramCredentialsResponse.CredentialInfo;
import io.krill.wire.message.DescribeUserScramCredentialsResponse.DescribeUserScramCredentialsResult;
import io.krill.wire.protocol.ApiMessage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * DescribeUserScramCredentials: the SCRAM mechanisms and iteration counts of all users (sorted by name; only
 * users with a credential) or of the named ones, as Kafka's ZooKeeper-mode broker answers: a user named twice
 * gets DUPLICATE_RESOURCE, a user without credentials RESOURCE_NOT_FOUND. Salts and keys are never returned.
 * Read from this broker's metadata image.
 *
 * <p>Thread-safe: stateless; reads one immutable image per request.
 */
public final class DescribeUserScramCredentialsHandler extends AbstractApiHandler {
    static final String USERNAME_MUST_NOT_BE_EMPTY = "Username must not be empty";
    static final String DOES_NOT_EXIST = "Attempt to describe a user credential that does not exist";

    private final BrokerContext context;

    public DescribeUserScramCredentialsHandler(BrokerContext context) {
        super(ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS, 0, 0);
        this.context = context;
    }

    @Override
    public void handle(Request request) {
        DescribeUserScramCredentialsRequest body = request.body();
        context.authorization().requireCluster(request, AclOperation.DESCRIBE);
        MetadataImage image = context.metadata().image();
        DescribeUserScramCredentialsResponse response = new DescribeUserScramCredentialsResponse();
        if (body.users() == null || body.users().isEmpty()) {
            Map<String, DescribeUserScramCredentialsResult> sorted = new TreeMap<>();
            image.entitiesOfType(ScramCredentials.USERS).forEach((part, configs) -> {
                String user = ScramCredentials.userOf(part);
                if (user != null && hasCredential(configs)) {
                    sorted.put(user, describe(user, configs));
                }
            });
            response.results().addAll(sorted.values());
        } else {
            Map<String, Integer> counts = new HashMap<>();
            Set<String> users = new LinkedHashSet<>();
            for (DescribeUserScramCredentialsRequest.UserName name : body.users()) {
                counts.merge(name.name(), 1, Integer::sum);
                users.add(name.name());
            }
            for (String user : users) {
                DescribeUserScramCredentialsResult result;
                if (user.isEmpty()) {
                    result = error(user, Errors.RESOURCE_NOT_FOUND, USERNAME_MUST_NOT_BE_EMPTY);
                } else if (counts.get(user) > 1) {
                    result = error(user, Errors.DUPLICATE_RESOURCE,
                            "Cannot describe SCRAM credentials for the same user twice in a single request: " + user);
                } else {
                    Map<String, String> configs = image.entityConfigs(ScramCredentials.entity(user));
                    result = hasCredential(configs) ? describe(user, configs)
                            : error(user, Errors.RESOURCE_NOT_FOUND, DOES_NOT_EXIST + ": " + user);
                }
                response.results().add(result);
            }
        }
        request.respond(response);
    }

    private static boolean hasCredential(Map<String, String> configs) {
        for (ScramMechanism mechanism : ScramMechanism.values()) {
            if (configs.containsKey(mechanism.mechanismName())) {
                return true;
            }
        }
        return false;
    }

    private static DescribeUserScramCredentialsResult describe(String user, Map<String, String> configs) {
        List<CredentialInfo> infos = new ArrayList<>();
        for (ScramMechanism mechanism : ScramMechanism.values()) {
            String value = configs.get(mechanism.mechanismName());
            if (value != null) {
                int iterations;
                try {
                    iterations = ScramCredential.parse(value).iterations();
                } catch (IllegalArgumentException e) {
                    return error(user, Errors.UNKNOWN_SERVER_ERROR, "The stored " + mechanism
                            + " credential of this user is unreadable");
                }
                infos.add(new CredentialInfo().setMechanism(mechanism.type()).setIterations(iterations));
            }
        }
        return new DescribeUserScramCredentialsResult().setUser(user).setErrorCode(Errors.NONE.code())
                .setErrorMessage(null).setCredentialInfos(infos);
    }

    private static DescribeUserScramCredentialsResult error(String user, Errors error, String message) {
        return new DescribeUserScramCredentialsResult().setUser(user).setErrorCode(error.code())
                .setErrorMessage(message);
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        return new DescribeUserScramCredentialsResponse().setErrorCode(error.code()).setErrorMessage(error.message());
    }
}

package io.krill.broker.console;

import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import io.krill.log.TopicPartition;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.FindCoordinatorRequest;
import io.krill.wire.message.FindCoordinatorResponse;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the console's actions ({@link TopicActions}, {@link GroupActions}) share: waiting for one broker's
 * answer, turning a Kafka error into the HTTP answer, finding the broker to ask (controller, leader, group
 * coordinator), and the audit line each action leaves at INFO with its principal.
 *
 * <p>The actions are sent as the inter-broker principal, so each checks the viewer's ACLs first
 * ({@link ConsoleAccess#require}).
 *
 * <p>Thread-safety: thread-safe; stateless beyond its thread-safe view.
 */
final class ConsoleActions {
    private static final Logger AUDIT = LoggerFactory.getLogger(ConsoleActions.class);
    static final short FIND_COORDINATOR_VERSION = 4;

    /** A 2xx answer: its status and JSON body. */
    record Result(int status, byte[] body) {
    }

    private final ClusterView cluster;

    /** 200 with one JSON object whose fields {@code fields} writes. */
    static Result ok(Json.Body fields) {
        return new Result(200, Json.bytes(json -> {
            json.writeStartObject();
            fields.write(json);
            json.writeEndObject();
        }));
    }

    ConsoleActions(ClusterView cluster) {
        this.cluster = cluster;
    }

    ClusterView cluster() {
        return cluster;
    }

    /** How long a request may let the broker work: short of the client's wait, so its answer arrives. */
    int requestTimeoutMs() {
        return Math.max(1_000, cluster.client().timeoutMs() - 1_000);
    }

    /**
     * Runs {@code action}, logging its outcome at INFO with the principal (the audit line), done or refused.
     *
     * @throws ConsoleException as the action threw it
     */
    Result audited(ConsoleAccess access, String what, Supplier<Result> action) {
        try {
            Result result = action.get();
            AUDIT.info("Console action by {} from {}: {}: done", access.principal(), access.address(), what);
            return result;
        } catch (ConsoleException e) {
            AUDIT.info("Console action by {} from {}: {}: {} ({})", access.principal(), access.address(), what,
                    e.error(), e.getMessage());
            throw e;
        }
    }

    /** The answer of {@code future}, within the client's timeout; 503 when the broker did not answer. */
    <T> T await(int broker, CompletableFuture<T> future) {
        try {
            return future.get(cluster.client().timeoutMs() + 1_000L, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ConsoleException.unavailable(Errors.REQUEST_TIMED_OUT, "interrupted waiting for broker " + broker);
        } catch (TimeoutException e) {
            future.cancel(false);
            throw ConsoleException.unavailable(Errors.REQUEST_TIMED_OUT, "broker " + broker + " did not answer");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof ConsoleException refused) {
                throw refused;
            }
            throw ConsoleException.unavailable(Errors.BROKER_NOT_AVAILABLE, "broker " + broker + ": "
                    + e.getCause().getMessage());
        }
    }

    /** Nothing when {@code code} is NONE; else the Kafka error as the console answers it. */
    static void check(short code, String message) {
        Errors error = Errors.forCode(code);
        if (error != Errors.NONE) {
            throw failure(error, message);
        }
    }

    /**
     * A Kafka error as an HTTP answer: 403 for authorization, 404 for what does not exist, 409 for a
     * conflict with the cluster's state, 503 for retriable errors, else 400; the message is the broker's,
     * or Kafka's text for the error.
     */
    static ConsoleException failure(Errors error, String message) {
        String text = message == null || message.isEmpty() ? error.message() : message;
        int status = switch (error) {
            case TOPIC_AUTHORIZATION_FAILED, GROUP_AUTHORIZATION_FAILED, CLUSTER_AUTHORIZATION_FAILED -> 403;
            case UNKNOWN_TOPIC_OR_PARTITION, GROUP_ID_NOT_FOUND -> 404;
            case TOPIC_ALREADY_EXISTS, NON_EMPTY_GROUP, GROUP_SUBSCRIBED_TO_TOPIC, UNKNOWN_MEMBER_ID,
                 ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS, FENCED_MEMBER_EPOCH, STALE_MEMBER_EPOCH -> 409;
            default -> error.isRetriable() ? 503 : 400;
        };
        return new ConsoleException(status, error.name(), text);
    }

    /** The controller when it is alive, else this broker (any broker forwards what the controller does). */
    int controller() {
        MetadataImage image = cluster.image();
        int controller = image.controllerId();
        return controller >= 0 && image.broker(controller) != null ? controller : cluster.client().nodeId();
    }

    /** The topic from this broker's image; 404 when it does not exist. */
    TopicImage topic(String name) {
        TopicImage topic = cluster.image().topic(name);
        if (topic == null) {
            throw failure(Errors.UNKNOWN_TOPIC_OR_PARTITION, "no topic " + name);
        }
        return topic;
    }

    /** The partition's leader; 404 when there is no such partition, 503 when it has no live leader. */
    int leader(TopicPartition tp) {
        MetadataImage image = cluster.image();
        PartitionState state = topic(tp.topic()).partition(tp.partition());
        if (state == null) {
            throw failure(Errors.UNKNOWN_TOPIC_OR_PARTITION, "no partition " + tp);
        }
        if (!state.hasLeader() || image.broker(state.leader()) == null) {
            throw failure(Errors.LEADER_NOT_AVAILABLE, "partition " + tp + " has no leader");
        }
        return state.leader();
    }

    /** The group's coordinator, by FindCoordinator at this broker. */
    int coordinator(String groupId) {
        int self = cluster.client().nodeId();
        FindCoordinatorRequest request = new FindCoordinatorRequest().setKeyType((byte) 0)
                .setCoordinatorKeys(new java.util.ArrayList<>(List.of(groupId)));
        FindCoordinatorResponse.Coordinator answer = await(self, cluster.client().call(self, ApiKeys.FIND_COORDINATOR,
                FIND_COORDINATOR_VERSION, request, (FindCoordinatorResponse response) ->
                        response.coordinators().isEmpty() ? null : response.coordinators().get(0)));
        if (answer == null) {
            throw failure(Errors.COORDINATOR_NOT_AVAILABLE, "no coordinator for group " + groupId);
        }
        check(answer.errorCode(), answer.errorMessage());
        return answer.nodeId();
    }
}

package io.krill.broker.group;

import io.krill.wire.error.Errors;
import io.krill.wire.message.ConsumerGroupHeartbeatRequest;

/**
 * Kafka's checks of a ConsumerGroupHeartbeat request on its own, before the group is looked at
 * ({@code GroupCoordinatorService.throwIfConsumerGroupHeartbeatRequestIsInvalid}), so that a malformed
 * request is refused the same way whether or not its group exists: a member id (from v1 always, at v0
 * for a member's heartbeat or leave), no empty instance or rack id, a join with its rebalance timeout,
 * no owned partitions and a subscription, an instance id for a static member's temporary leave (-2), no
 * epoch below -2, a server assignor the coordinator has.
 *
 * <p>Thread-safety: stateless.
 */
final class ConsumerHeartbeatCheck {
    /** Why a request is refused. */
    record Refusal(Errors error, String message) {
    }

    private ConsumerHeartbeatCheck() {
    }

    /** The refusal of {@code request} at {@code apiVersion}, or null when it passes. */
    static Refusal check(ConsumerGroupHeartbeatRequest request, short apiVersion) {
        int epoch = request.memberEpoch();
        if ((apiVersion >= 1 || epoch > 0 || epoch == -1) && isEmpty(request.memberId())) {
            return invalid("MemberId can't be empty.");
        }
        if ("".equals(request.instanceId())) {
            return invalid("InstanceId can't be empty.");
        }
        if ("".equals(request.rackId())) {
            return invalid("RackId can't be empty.");
        }
        if (epoch == 0) {
            if (request.rebalanceTimeoutMs() == -1) {
                return invalid("RebalanceTimeoutMs must be provided in first request.");
            }
            if (request.topicPartitions() == null || !request.topicPartitions().isEmpty()) {
                return invalid("TopicPartitions must be empty when (re-)joining.");
            }
            if (request.subscribedTopicNames() == null && request.subscribedTopicRegex() == null) {
                return invalid("Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.");
            }
        } else if (epoch == -2 && request.instanceId() == null) {
            return invalid("InstanceId can't be null.");
        } else if (epoch < -2) {
            return invalid("MemberEpoch is invalid.");
        }
        String assignor = request.serverAssignor();
        if (assignor != null && !assignor.equals(ConsumerGroup.UNIFORM) && !assignor.equals(ConsumerGroup.RANGE)) {
            return new Refusal(Errors.UNSUPPORTED_ASSIGNOR, "ServerAssignor " + assignor + " is not supported. "
                    + "Supported assignors: " + ConsumerGroup.UNIFORM + ", " + ConsumerGroup.RANGE + ".");
        }
        return null;
    }

    private static boolean isEmpty(String value) {
        return value == null || value.isEmpty();
    }

    private static Refusal invalid(String message) {
        return new Refusal(Errors.INVALID_REQUEST, message);
    }
}

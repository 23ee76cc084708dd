package io.krill.broker.console;

import io.krill.broker.security.KafkaPrincipal;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorizer;
import io.krill.broker.security.authorizer.ResourceType;
import io.krill.wire.error.Errors;
import java.net.InetAddress;

/**
 * What one console request's principal may see, by the broker's ACLs (docs/console.md): DESCRIBE on the
 * cluster for the brokers, DESCRIBE on a topic to list it, READ on a topic for its records, DESCRIBE on
 * a group and on a transactional id. The console's actions are sent as the inter-broker principal, so
 * {@link #require} checks first what Kafka would check for this principal. Without an authorizer
 * everything is visible and allowed. Immutable.
 *
 * @param authorizer    the broker's authorizer, or null when authorization is off
 * @param authenticated whether the principal came from checked credentials (false: anonymous)
 */
record ConsoleAccess(KafkaPrincipal principal, boolean authenticated, InetAddress address, Authorizer authorizer) {

    static ConsoleAccess anonymous(Authorizer authorizer, InetAddress address) {
        return new ConsoleAccess(KafkaPrincipal.ANONYMOUS, false, address, authorizer);
    }

    boolean cluster() {
        return allowed(AclOperation.DESCRIBE, ResourceType.CLUSTER, ResourceType.CLUSTER_NAME);
    }

    boolean describeTopic(String topic) {
        return allowed(AclOperation.DESCRIBE, ResourceType.TOPIC, topic);
    }

    boolean readTopic(String topic) {
        return allowed(AclOperation.READ, ResourceType.TOPIC, topic);
    }

    boolean describeGroup(String groupId) {
        return allowed(AclOperation.DESCRIBE, ResourceType.GROUP, groupId);
    }

    boolean describeTransactionalId(String transactionalId) {
        return allowed(AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, transactionalId);
    }

    /**
     * Refuses (403 with Kafka's {@code error}) unless the principal may {@code operation} the resource.
     *
     * @throws ConsoleException when it may not
     */
    void require(AclOperation operation, ResourceType type, String name, Errors error) {
        if (!allowed(operation, type, name)) {
            throw ConsoleException.forbidden(error, principal + " may not " + operation + " " + type + " " + name);
        }
    }

    boolean allowed(AclOperation operation, ResourceType type, String name) {
        return authorizer == null || authorizer.authorize(principal, address, operation, type, name);
    }
}

package io.krill.broker.security.authorizer;

import io.krill.broker.api.Request;
import io.krill.broker.config.BrokerConfig;
import io.krill.broker.config.ConfigException;
import io.krill.broker.security.KafkaPrincipal;
import io.krill.controller.metadata.MetadataStore;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.net.InetAddress;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * What handlers call to authorize a request: one line per check, the request's principal and client
 * address taken from its session. Without an authorizer ({@code authorizer.class.name} empty) every
 * method answers "allowed" at once ({@link #ALLOW_ALL}): the hot path pays one field read.
 *
 * <p>Immutable; thread-safe.
 */
public final class Authorization {
    /** No authorizer: everything is allowed (Kafka without {@code authorizer.class.name}). */
    public static final Authorization ALLOW_ALL = new Authorization(null);

    /** The names of {@code authorizer.class.name} that select Krill's ACL authorizer. */
    public static final List<String> AUTHORIZER_NAMES = BrokerConfig.ACL_AUTHORIZER_CLASS_NAMES;

    private final Authorizer authorizer;

    public Authorization(Authorizer authorizer) {
        this.authorizer = authorizer;
    }

    /**
     * The authorization {@code config} asks for: none when {@code authorizer.class.name} is empty, the ACL
     * authorizer (with {@code super.users} and {@code allow.everyone.if.no.acl.found}) for one of
     * {@link #AUTHORIZER_NAMES}.
     *
     * @throws ConfigException for any other class name (Krill loads no plug-ins) or a bad super.users
     */
    public static Authorization fromConfig(BrokerConfig config, MetadataStore metadata) {
        String name = config.authorizerClassName().trim();
        if (name.isEmpty()) {
            return ALLOW_ALL;
        }
        if (!AUTHORIZER_NAMES.contains(name)) {
            throw new ConfigException("Invalid value " + name + " for configuration authorizer.class.name: Krill "
                    + "has one built-in ACL authorizer, selected by any of " + AUTHORIZER_NAMES
                    + "; leave it empty for no authorization. Other authorizer plug-ins cannot be loaded.");
        }
        List<KafkaPrincipal> superUsers;
        try {
            superUsers = AclAuthorizer.parseSuperUsers(config.superUsers());
        } catch (IllegalArgumentException e) {
            throw new ConfigException("Invalid value " + config.superUsers() + " for configuration super.users: "
                    + e.getMessage());
        }
        return new Authorization(new AclAuthorizer(metadata, superUsers, config.allowEveryoneIfNoAclFound()));
    }

    public boolean enabled() {
        return authorizer != null;
    }

    /** The authorizer; null when authorization is off. */
    public Authorizer authorizer() {
        return authorizer;
    }

    public boolean authorize(Request request, AclOperation operation, ResourceType type, String name) {
        return authorizer == null || authorizer.authorize(request.principal(), address(request), operation, type, name);
    }

    public boolean cluster(Request request, AclOperation operation) {
        return authorize(request, operation, ResourceType.CLUSTER, ResourceType.CLUSTER_NAME);
    }

    public boolean topic(Request request, AclOperation operation, String topic) {
        return authorize(request, operation, ResourceType.TOPIC, topic);
    }

    public boolean group(Request request, AclOperation operation, String groupId) {
        return authorize(request, operation, ResourceType.GROUP, groupId);
    }

    public boolean transactionalId(Request request, AclOperation operation, String transactionalId) {
        return authorize(request, operation, ResourceType.TRANSACTIONAL_ID, transactionalId);
    }

    /** Throws CLUSTER_AUTHORIZATION_FAILED unless the operation is allowed on the cluster. */
    public void requireCluster(Request request, AclOperation operation) {
        if (!cluster(request, operation)) {
            throw new ApiException(Errors.CLUSTER_AUTHORIZATION_FAILED, "Cluster authorization failed.");
        }
    }

    /** Throws GROUP_AUTHORIZATION_FAILED unless the operation is allowed on the group. */
    public void requireGroup(Request request, AclOperation operation, String groupId) {
        if (!group(request, operation, groupId)) {
            throw new ApiException(Errors.GROUP_AUTHORIZATION_FAILED, "Not authorized to access group: " + groupId);
        }
    }

    /** Throws TRANSACTIONAL_ID_AUTHORIZATION_FAILED unless the operation is allowed on the transactional id. */
    public void requireTransactionalId(Request request, AclOperation operation, String transactionalId) {
        if (!transactionalId(request, operation, transactionalId)) {
            throw new ApiException(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
                    "Transactional Id authorization failed.");
        }
    }

    /** Whether the operation is allowed on at least one resource of the type (KIP-679). */
    public boolean anyOfType(Request request, AclOperation operation, ResourceType type) {
        return authorizer == null || authorizer.authorizeAny(request.principal(), address(request), operation, type);
    }

    /**
     * Kafka's idempotent-write rule: IDEMPOTENT_WRITE on the cluster, or WRITE on at least one topic
     * (KIP-679), for InitProducerId without a transactional id and for idempotent Produce.
     */
    public boolean idempotentWrite(Request request) {
        return cluster(request, AclOperation.IDEMPOTENT_WRITE) || anyOfType(request, AclOperation.WRITE, ResourceType.TOPIC);
    }

    /** The names among {@code names} the operation is not allowed on; an immutable empty set when all are. */
    public Set<String> denied(Request request, AclOperation operation, ResourceType type, Iterable<String> names) {
        return denied(request, operation, type, names, Function.identity());
    }

    /**
     * The names of {@code items} (each named by {@code name}) the operation is not allowed on; an immutable
     * empty set when all are, without looking at the items when there is no authorizer.
     */
    public <T> Set<String> denied(Request request, AclOperation operation, ResourceType type, Iterable<T> items,
                                  Function<T, String> name) {
        if (authorizer == null) {
            return Set.of();
        }
        Set<String> denied = null;
        KafkaPrincipal principal = request.principal();
        InetAddress address = address(request);
        for (T item : items) {
            String resource = name.apply(item);
            if (!authorizer.authorize(principal, address, operation, type, resource)) {
                if (denied == null) {
                    denied = new HashSet<>();
                }
                denied.add(resource);
            }
        }
        return denied == null ? Set.of() : denied;
    }

    /**
     * Whether the request's principal, from its address, may perform {@code operation} on a topic, as a
     * predicate that outlives the request: a group coordinator filters a member's regex matches with it
     * whenever topics or ACLs change. Two predicates of the same principal, address and operation are
     * equal, so a holder can tell when it must look again.
     */
    public Predicate<String> topicPredicate(Request request, AclOperation operation) {
        return authorizer == null ? ALL_TOPICS : new TopicPredicate(authorizer, request.principal(), address(request),
                operation);
    }

    /** Every topic: the predicate without an authorizer. */
    public static final Predicate<String> ALL_TOPICS = topic -> true;

    private record TopicPredicate(Authorizer authorizer, KafkaPrincipal principal, InetAddress address,
                                  AclOperation operation) implements Predicate<String> {
        @Override
        public boolean test(String topic) {
            return authorizer.authorize(principal, address, operation, ResourceType.TOPIC, topic);
        }
    }

    public Set<String> deniedTopics(Request request, AclOperation operation, Iterable<String> topics) {
        return denied(request, operation, ResourceType.TOPIC, topics);
    }

    /** The topics of {@code items} (named by {@code name}) the operation is not allowed on; see {@link #denied}. */
    public <T> Set<String> deniedTopics(Request request, AclOperation operation, Collection<T> items,
                                        Function<T, String> name) {
        return denied(request, operation, ResourceType.TOPIC, items, name);
    }

    /**
     * The authorized-operations bitfield of a resource (bit n for the operation of code n) as
     * DescribeCluster, Metadata, DescribeTopicPartitions and the group describes report it: the
     * operations the type supports that the principal may perform; all of them without an authorizer.
     */
    public int authorizedOperations(Request request, ResourceType type, String name) {
        List<AclOperation> supported = supportedOperations(type);
        int field = 0;
        for (AclOperation operation : supported) {
            if (authorize(request, operation, type, name)) {
                field |= 1 << operation.code();
            }
        }
        return field;
    }

    /**
     * The cluster's authorized-operations field as Kafka reports it in DescribeCluster and Metadata: the
     * allowed cluster operations if DESCRIBE on the cluster is allowed, else none (0).
     */
    public int clusterAuthorizedOperations(Request request) {
        return cluster(request, AclOperation.DESCRIBE)
                ? authorizedOperations(request, ResourceType.CLUSTER, ResourceType.CLUSTER_NAME) : 0;
    }

    /** The operations Kafka lists as supported by a resource type (for authorized-operations fields). */
    public static List<AclOperation> supportedOperations(ResourceType type) {
        return switch (type) {
            case TOPIC -> List.of(AclOperation.READ, AclOperation.WRITE, AclOperation.CREATE, AclOperation.DESCRIBE,
                    AclOperation.DELETE, AclOperation.ALTER, AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS);
            case GROUP -> List.of(AclOperation.READ, AclOperation.DESCRIBE, AclOperation.DELETE);
            case CLUSTER -> List.of(AclOperation.CREATE, AclOperation.CLUSTER_ACTION, AclOperation.DESCRIBE_CONFIGS,
                    AclOperation.ALTER_CONFIGS, AclOperation.IDEMPOTENT_WRITE, AclOperation.ALTER, AclOperation.DESCRIBE);
            case TRANSACTIONAL_ID -> List.of(AclOperation.DESCRIBE, AclOperation.WRITE, AclOperation.TWO_PHASE_COMMIT);
            case DELEGATION_TOKEN -> List.of(AclOperation.DESCRIBE);
            case USER -> List.of(AclOperation.CREATE_TOKENS, AclOperation.DESCRIBE_TOKENS);
            default -> List.of();
        };
    }

    private static InetAddress address(Request request) {
        return request.session().clientAddress();
    }
}

package io.krill.broker.security.authorizer;

import io.krill.broker.security.KafkaPrincipal;
import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Decides whether a principal connected from a host may perform an operation on a resource, and keeps
 * the ACLs that decide it. Handlers do not call it directly but through {@link Authorization}.
 *
 * <p>Implementations are thread-safe.
 */
public interface Authorizer {

    /**
     * Whether {@code principal} from {@code host} (null when the connection has no IP address) may
     * perform {@code operation} on the resource {@code type}/{@code name}.
     */
    boolean authorize(KafkaPrincipal principal, InetAddress host, AclOperation operation, ResourceType type,
                      String name);

    /**
     * Whether {@code principal} may perform {@code operation} on at least one resource of {@code type}
     * (KIP-679: an idempotent producer needs WRITE on some topic or IDEMPOTENT_WRITE on the cluster).
     */
    boolean authorizeAny(KafkaPrincipal principal, InetAddress host, AclOperation operation, ResourceType type);

    /**
     * Stores the bindings (already validated); those that exist already are kept as they are. Never
     * blocks: one future per binding, in order (Kafka's Authorizer answers with a CompletionStage per
     * binding), completing once this broker enforces the binding, or failing (REQUEST_TIMED_OUT when the
     * metadata store could not be reached).
     */
    List<CompletableFuture<Void>> createAcls(List<AclBinding> bindings);

    /** Every stored ACL the filter matches. */
    List<AclBinding> acls(AclBindingFilter filter);

    /**
     * Deletes what each filter matches. Never blocks: one future per filter, in order, completing with
     * the ACLs it deleted once this broker no longer enforces them, or failing as {@link #createAcls} does.
     */
    List<CompletableFuture<List<AclBinding>>> deleteAcls(List<AclBindingFilter> filters);
}

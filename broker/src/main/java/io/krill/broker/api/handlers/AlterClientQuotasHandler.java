package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.quota.QuotaConfigKeys;
import io.krill.broker.quota.QuotaEntities;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.AlterClientQuotasRequest;
import io.krill.wire.message.AlterClientQuotasResponse;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.protocol.ApiMessage;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * AlterClientQuotas (KIP-546): sets and removes quota keys of user, client-id, user/client-id and ip
 * entities, each entry answered on its own with Kafka's checks and messages: an empty entity, a repeated
 * or unknown entity type, an empty name, ip combined with user or client-id, an unknown key, a repeated
 * key, or a value that is not positive (or not integral for the byte rates) is INVALID_REQUEST.
 *
 * <p>An entity's configs are shared with other owners (SCRAM credentials live in users/&lt;name&gt;), so
 * an alteration changes only the quota keys named in the entity's map as the store holds it and writes
 * the whole map back; removing a key that is not a quota key is refused rather than touching another owner's
 * data. {@code validate_only} checks and writes nothing. The writes are the store's atomic
 * read-modify-writes ({@code updateEntityConfigsAsync}, version-checked in ZooKeeper, the change applied to
 * the map the store holds), all sent at once; the request is answered when the last completes
 * ({@link PendingAnswer}), so the request thread never waits for ZooKeeper.
 *
 * <p>Thread-safe: stateless (a request's state lives in its callbacks); concurrent writers of one entity,
 * on this broker or others, are ordered by the store.
 */
public final class AlterClientQuotasHandler extends AbstractApiHandler {
    private final BrokerContext context;

    public AlterClientQuotasHandler(BrokerContext context) {
        super(ApiKeys.ALTER_CLIENT_QUOTAS, 0, 1);
        this.context = context;
    }

    @Override
    public void handle(Request request) {
        context.authorization().requireCluster(request, AclOperation.ALTER_CONFIGS);
        AlterClientQuotasRequest body = request.body();
        AlterClientQuotasResponse response = new AlterClientQuotasResponse();
        Set<Map<String, String>> seen = new HashSet<>();
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        for (AlterClientQuotasRequest.EntryData entry : body.entries()) {
            AlterClientQuotasResponse.EntryData result = new AlterClientQuotasResponse.EntryData();
            for (AlterClientQuotasRequest.EntityData e : entry.entity()) {
                result.entity().add(new AlterClientQuotasResponse.EntityData().setEntityType(e.entityType())
                        .setEntityName(e.entityName()));
            }
            response.entries().add(result);
            try {
                writes.add(PendingAnswer.onFailure(alter(entry, body.validateOnly(), seen), result.entity(),
                        (error, message) -> result.setErrorCode(error.code()).setErrorMessage(message)));
            } catch (ApiException e) {
                result.setErrorCode(e.error().code()).setErrorMessage(e.getMessage());
            }
        }
        PendingAnswer.respondWhenDone(request, this, writes, () -> response);
    }

    /** Checks the entry (throwing its error) and returns its write, complete at once under validateOnly. */
    private CompletableFuture<Map<String, String>> alter(AlterClientQuotasRequest.EntryData entry, boolean validateOnly,
                                                         Set<Map<String, String>> seen) {
        Map<String, String> entity = entity(entry);
        Map<String, QuotaConfigKeys.ValueType> keys = keysOf(entity);
        Map<String, Double> changes = new HashMap<>();
        for (AlterClientQuotasRequest.OpData op : entry.ops()) {
            if (changes.containsKey(op.key())) {
                throw invalid("Duplicate quota key " + op.key() + " not updating quota for this entity " + entity);
            }
            changes.put(op.key(), op.remove() ? null : op.value());
        }
        if (!seen.add(entity)) {
            throw invalid("Ignoring duplicate entity " + entity);
        }
        String name = QuotaEntities.entityName(entity);
        Map<String, String> values = new HashMap<>();
        for (Map.Entry<String, Double> change : changes.entrySet()) {
            String key = change.getKey();
            QuotaConfigKeys.ValueType type = keys.get(key);
            if (type == null) {
                throw invalid("Invalid configuration key " + key);
            }
            if (change.getValue() != null) {
                double value = change.getValue();
                String problem = QuotaConfigKeys.invalidValue(key, type, value);
                if (problem != null) {
                    throw invalid(problem);
                }
                values.put(key, format(value));
            }
        }
        if (validateOnly) {
            return CompletableFuture.completedFuture(Map.of());
        }
        // Atomic against other writers of the entity: a user's SCRAM credentials live there too. Runs on a
        // store thread, maybe more than once: only map operations.
        return context.metadata().updateEntityConfigsAsync(name, current -> {
            Map<String, String> next = new HashMap<>(current);
            for (String key : changes.keySet()) {
                String value = values.get(key);
                if (value == null) {
                    next.remove(key);
                } else {
                    next.put(key, value);
                }
            }
            return next;
        });
    }

    /** The request's entity as type to name (null: default), checked as Kafka's controller checks it. */
    private static Map<String, String> entity(AlterClientQuotasRequest.EntryData entry) {
        if (entry.entity().isEmpty()) {
            throw invalid("Invalid empty client quota entity");
        }
        Map<String, String> entity = new LinkedHashMap<>();
        for (AlterClientQuotasRequest.EntityData e : entry.entity()) {
            String type = e.entityType();
            if (entity.containsKey(type)) {
                throw invalid("Invalid client quota entity, duplicate entity entry " + type);
            }
            if (!type.equals(QuotaEntities.USER) && !type.equals(QuotaEntities.CLIENT_ID)
                    && !type.equals(QuotaEntities.IP)) {
                throw invalid("Unhandled client quota entity type: " + type);
            }
            if (e.entityName() != null && e.entityName().isEmpty()) {
                throw invalid("Empty " + type + " not supported");
            }
            entity.put(type, e.entityName());
        }
        // Users before client ids, whatever order the request used: one entity, one store name.
        Map<String, String> ordered = new LinkedHashMap<>();
        for (String type : new String[] {QuotaEntities.USER, QuotaEntities.CLIENT_ID, QuotaEntities.IP}) {
            if (entity.containsKey(type)) {
                ordered.put(type, entity.get(type));
            }
        }
        return ordered;
    }

    private static Map<String, QuotaConfigKeys.ValueType> keysOf(Map<String, String> entity) {
        if (!entity.containsKey(QuotaEntities.IP)) {
            return QuotaConfigKeys.CLIENT_KEYS;
        }
        if (entity.size() > 1) {
            throw invalid("Invalid quota entity combination, IP entity should not be combined with User or ClientId");
        }
        String ip = entity.get(QuotaEntities.IP);
        if (ip != null && !isIpLiteral(ip)) {
            throw invalid(ip + " is not a valid IP or resolvable host.");
        }
        return QuotaConfigKeys.IP_KEYS;
    }

    /** An IPv4 or IPv6 literal (host names are not resolved here: no DNS on a request thread). */
    private static boolean isIpLiteral(String ip) {
        boolean v4 = ip.matches("\\d{1,3}(\\.\\d{1,3}){3}");
        boolean v6 = ip.indexOf(':') >= 0 && ip.matches("[0-9a-fA-F:.]+");
        if (!v4 && !v6) {
            return false;
        }
        try {
            InetAddress.getByName(ip);
            return true;
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** Integral values as integers (the byte rates), others as doubles. */
    private static String format(double value) {
        return value == Math.rint(value) && Math.abs(value) < 1e15 ? Long.toString((long) value) : Double.toString(value);
    }

    private static ApiException invalid(String message) {
        return new ApiException(Errors.INVALID_REQUEST, message);
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        AlterClientQuotasRequest body = request.body();
        AlterClientQuotasResponse response = new AlterClientQuotasResponse();
        for (AlterClientQuotasRequest.EntryData entry : body.entries()) {
            AlterClientQuotasResponse.EntryData result = new AlterClientQuotasResponse.EntryData()
                    .setErrorCode(error.code());
            for (AlterClientQuotasRequest.EntityData e : entry.entity()) {
                result.entity().add(new AlterClientQuotasResponse.EntityData().setEntityType(e.entityType())
                        .setEntityName(e.entityName()));
            }
            response.entries().add(result);
        }
        return response;
    }
}

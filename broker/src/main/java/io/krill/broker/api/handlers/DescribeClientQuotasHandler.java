package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.quota.QuotaConfigKeys;
import io.krill.broker.quota.QuotaEntities;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.DescribeClientQuotasRequest;
import io.krill.wire.message.DescribeClientQuotasResponse;
import io.krill.wire.protocol.ApiMessage;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * DescribeClientQuotas (KIP-546): the quota entities of the metadata image that match a filter, with their
 * quota values, matched as Kafka's metadata image matches them. Each component names an entity type and
 * matches it exactly (match type 0: that name), the default (1) or any name, the default included (2);
 * an entity must have every filtered type, and with {@code strict} no other. No component and not strict
 * lists every entity; no component and strict, none. A type given twice, an unknown match type, a match
 * string where none belongs, or ip filtered with user or client-id is INVALID_REQUEST; an unknown entity
 * type UNSUPPORTED_VERSION. Keys other owners keep in the same entities (SCRAM credentials) are not shown.
 *
 * <p>Thread-safe: stateless, answers from one image.
 */
public final class DescribeClientQuotasHandler extends AbstractApiHandler {
    private static final byte EXACT = 0;
    private static final byte DEFAULT = 1;
    private static final byte SPECIFIED = 2;

    private final BrokerContext context;

    public DescribeClientQuotasHandler(BrokerContext context) {
        super(ApiKeys.DESCRIBE_CLIENT_QUOTAS, 0, 1);
        this.context = context;
    }

    @Override
    public void handle(Request request) {
        context.authorization().requireCluster(request, AclOperation.DESCRIBE_CONFIGS);
        DescribeClientQuotasResponse response;
        try {
            response = describe(request.body());
        } catch (ApiException e) {
            response = new DescribeClientQuotasResponse().setErrorCode(e.error().code()).setErrorMessage(e.getMessage())
                    .setEntries(null);
        }
        request.respond(response);
    }

    private DescribeClientQuotasResponse describe(DescribeClientQuotasRequest body) {
        Map<String, String> exact = new HashMap<>();
        Set<String> specified = new HashSet<>();
        for (DescribeClientQuotasRequest.ComponentData component : body.components()) {
            String type = component.entityType();
            if (type.isEmpty()) {
                throw new ApiException(Errors.INVALID_REQUEST, "Invalid empty entity type.");
            }
            if (exact.containsKey(type) || specified.contains(type)) {
                throw new ApiException(Errors.INVALID_REQUEST, "Entity type " + type
                        + " cannot appear more than once in the filter.");
            }
            if (!type.equals(QuotaEntities.USER) && !type.equals(QuotaEntities.CLIENT_ID)
                    && !type.equals(QuotaEntities.IP)) {
                throw new ApiException(Errors.UNSUPPORTED_VERSION, "Unsupported entity type " + type);
            }
            switch (component.matchType()) {
                case EXACT -> {
                    if (component.match() == null) {
                        throw new ApiException(Errors.INVALID_REQUEST,
                                "Request specified MATCH_TYPE_EXACT, but set match string to null.");
                    }
                    exact.put(type, component.match());
                }
                case DEFAULT -> {
                    if (component.match() != null) {
                        throw new ApiException(Errors.INVALID_REQUEST,
                                "Request specified MATCH_TYPE_DEFAULT, but also specified a match string.");
                    }
                    exact.put(type, null);
                }
                case SPECIFIED -> {
                    if (component.match() != null) {
                        throw new ApiException(Errors.INVALID_REQUEST,
                                "Request specified MATCH_TYPE_SPECIFIED, but also specified a match string.");
                    }
                    specified.add(type);
                }
                default -> throw new ApiException(Errors.INVALID_REQUEST, "Unknown match type " + component.matchType());
            }
        }
        boolean ip = exact.containsKey(QuotaEntities.IP) || specified.contains(QuotaEntities.IP);
        if (ip && exact.size() + specified.size() > 1) {
            throw new ApiException(Errors.INVALID_REQUEST, "Invalid entity filter component combination. IP filter "
                    + "component should not be used with user or clientId filter component.");
        }
        DescribeClientQuotasResponse response = new DescribeClientQuotasResponse();
        boolean all = exact.isEmpty() && specified.isEmpty();
        if (all && body.strict()) {
            return response;
        }
        context.metadata().image().allEntityConfigs().forEach((name, configs) -> {
            Map<String, String> entity = QuotaEntities.parse(name);
            if (entity == null || !matches(entity, exact, specified, body.strict())) {
                return;
            }
            DescribeClientQuotasResponse.EntryData entry = new DescribeClientQuotasResponse.EntryData();
            Map<String, QuotaConfigKeys.ValueType> keys = entity.containsKey(QuotaEntities.IP)
                    ? QuotaConfigKeys.IP_KEYS : QuotaConfigKeys.CLIENT_KEYS;
            configs.forEach((key, value) -> {
                if (keys.containsKey(key)) {
                    try {
                        entry.values().add(new DescribeClientQuotasResponse.ValueData().setKey(key)
                                .setValue(Double.parseDouble(value)));
                    } catch (NumberFormatException e) {
                        // Not written by AlterClientQuotas, which stores numbers; not a quota then.
                    }
                }
            });
            if (entry.values().isEmpty()) {
                return;
            }
            entity.forEach((type, entityName) -> entry.entity().add(new DescribeClientQuotasResponse.EntityData()
                    .setEntityType(type).setEntityName(entityName)));
            response.entries().add(entry);
        });
        return response;
    }

    private static boolean matches(Map<String, String> entity, Map<String, String> exact, Set<String> specified,
                                   boolean strict) {
        for (Map.Entry<String, String> wanted : exact.entrySet()) {
            if (!entity.containsKey(wanted.getKey()) || !Objects.equals(entity.get(wanted.getKey()), wanted.getValue())) {
                return false;
            }
        }
        for (String type : specified) {
            if (!entity.containsKey(type)) {
                return false;
            }
        }
        return !strict || entity.size() == exact.size() + specified.size();
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        return new DescribeClientQuotasResponse().setErrorCode(error.code()).setEntries(null);
    }
}

package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.feature.FeatureLevelChange;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.controller.metadata.FinalizedFeatures;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.UpdateFeaturesRequest;
import io.krill.wire.message.UpdateFeaturesResponse;
import io.krill.wire.protocol.ApiMessage;
import java.util.HashMap;
import java.util.Map;

/**
 * UpdateFeatures v0-2 (KIP-584, {@code kafka-features upgrade|downgrade|disable}): changes the cluster's
 * finalized feature levels, all or none. Needs ALTER on the cluster. The levels are checked
 * ({@link FeatureLevelChange}) inside the store's atomic read-modify-write of the features entity, and the
 * request is answered once this broker's image has the new levels (so the next ApiVersions here shows
 * them; other brokers follow within their metadata watch). A refusal is the top-level error; below v2 each
 * feature's result carries it too, as Kafka's controller answers. {@code validate_only} checks against the
 * current levels and writes nothing.
 *
 * <p>Thread-safe: stateless.
 */
public final class UpdateFeaturesHandler extends AbstractApiHandler {
    private final BrokerContext context;
    private final int nodeId;

    public UpdateFeaturesHandler(BrokerContext context, int nodeId) {
        super(ApiKeys.UPDATE_FEATURES, 0, 2);
        this.context = context;
        this.nodeId = nodeId;
    }

    @Override
    public void handle(Request request) {
        context.authorization().requireCluster(request, AclOperation.ALTER);
        UpdateFeaturesRequest body = request.body();
        if (body.featureUpdates().isEmpty()) {
            request.respond(answer(request, Errors.INVALID_REQUEST, "No feature updates were given."));
            return;
        }
        Map<String, Short> levels = new HashMap<>();
        Map<String, Byte> types = new HashMap<>();
        for (UpdateFeaturesRequest.FeatureUpdateKey update : body.featureUpdates()) {
            levels.put(update.feature(), update.maxVersionLevel());
            types.put(update.feature(), request.version() == 0
                    ? (update.allowDowngrade() ? FeatureLevelChange.SAFE_DOWNGRADE : FeatureLevelChange.UPGRADE)
                    : update.upgradeType());
        }
        FeatureLevelChange change = new FeatureLevelChange(levels, types, nodeId);
        if (request.version() >= 1 && body.validateOnly()) {
            try {
                change.check(context.metadata().image().finalizedFeatures());
                request.respond(answer(request, Errors.NONE, null));
            } catch (ApiException e) {
                request.respond(answer(request, e.error(), e.getMessage()));
            }
            return;
        }
        // Runs on a store thread, maybe more than once (version-checked retries): only the check and map work.
        context.metadata().updateEntityConfigsAsync(FinalizedFeatures.ENTITY,
                current -> change.apply(FinalizedFeatures.fromConfigs(current))).whenComplete((ignored, failure) -> {
            if (failure == null) {
                request.respond(answer(request, Errors.NONE, null));
            } else {
                ApiException error = PendingAnswer.error(failure, request.api());
                request.respond(answer(request, error.error(), error.getMessage()));
            }
        });
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        return answer(request, error, error.message());
    }

    private static UpdateFeaturesResponse answer(Request request, Errors error, String message) {
        UpdateFeaturesResponse response = new UpdateFeaturesResponse().setErrorCode(error.code())
                .setErrorMessage(error == Errors.NONE ? null : message);
        if (request.version() < 2) {
            UpdateFeaturesRequest body = request.body();
            for (UpdateFeaturesRequest.FeatureUpdateKey update : body.featureUpdates()) {
                response.results().add(new UpdateFeaturesResponse.UpdatableFeatureResult()
                        .setFeature(update.feature()).setErrorCode(error.code())
                        .setErrorMessage(error == Errors.NONE ? null : message));
            }
        }
        return response;
    }
}

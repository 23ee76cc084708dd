package io.krill.broker.api.handlers;

import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.ApiHandler;
import io.krill.broker.api.ApiHandlerRegistry;
import io.krill.broker.api.Request;
import io.krill.broker.feature.SupportedFeatures;
import io.krill.controller.metadata.FinalizedFeatures;
import io.krill.controller.metadata.MetadataImage;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.ApiVersionsRequest;
import io.krill.wire.message.ApiVersionsResponse;
import io.krill.wire.protocol.ApiMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * ApiVersions: the versions of every API this broker serves, exactly the registry's table. Answered
 * before anything else on a connection (and, later, before authentication).
 *
 * <p>Thread-safe: stateless but for the registry, which is set once.
 */
public final class ApiVersionsHandler extends AbstractApiHandler {
    /** KIP-511: what a client may call itself. */
    private static final Pattern SOFTWARE = Pattern.compile("[a-zA-Z0-9](?:[a-zA-Z0-9\\-.]*[a-zA-Z0-9])?");

    private final Supplier<ApiHandlerRegistry> registry;
    private final int nodeId;
    private final Supplier<MetadataImage> image;

    /**
     * {@code registry} is read lazily: this handler is itself in the table it reports. {@code nodeId} and
     * the image's cluster id answer KIP-1242's check that a client reached the broker it meant to; the
     * image's finalized features are reported from v3.
     */
    public ApiVersionsHandler(Supplier<ApiHandlerRegistry> registry, int nodeId, Supplier<MetadataImage> image) {
        super(ApiKeys.API_VERSIONS, 0, 5);
        this.registry = registry;
        this.nodeId = nodeId;
        this.image = image;
    }

    @Override
    public void handle(Request request) {
        ApiVersionsRequest body = request.body();
        if (request.version() >= 3 && (!SOFTWARE.matcher(body.clientSoftwareName()).matches()
                || !SOFTWARE.matcher(body.clientSoftwareVersion()).matches())) {
            request.respond(errorResponse(request, Errors.INVALID_REQUEST));
            return;
        }
        if (request.version() >= 3 && request.session() != null) {
            request.session().clientSoftware(body.clientSoftwareName(), body.clientSoftwareVersion());
        }
        MetadataImage current = image.get();
        if (request.version() >= 5 && body.clusterId() != null && body.nodeId() >= 0
                && (!body.clusterId().equals(current.clusterId()) || body.nodeId() != nodeId)) {
            request.respond(supported(registry.get()).setErrorCode(Errors.REBOOTSTRAP_REQUIRED.code()));
            return;
        }
        ApiVersionsResponse response = supported(registry.get());
        if (request.version() >= 3) {
            withFeatures(response, current.finalizedFeatures(), request.version());
        }
        request.respond(response);
    }

    /**
     * KIP-584's fields: the features this broker supports (below v4 without those whose minimum is 0, which
     * v3 clients cannot read: KAFKA-17011) and the cluster's finalized levels with their epoch, from which a
     * client keeps the newest any broker told it.
     */
    private static void withFeatures(ApiVersionsResponse response, FinalizedFeatures finalized, short version) {
        SupportedFeatures.ranges().forEach((name, range) -> {
            if (version >= 4 || range[0] > 0) {
                response.supportedFeatures().add(new ApiVersionsResponse.SupportedFeatureKey().setName(name)
                        .setMinVersion(range[0]).setMaxVersion(range[1]));
            }
        });
        response.setFinalizedFeaturesEpoch(finalized.epoch());
        finalized.levels().forEach((name, level) -> response.finalizedFeatures().add(
                new ApiVersionsResponse.FinalizedFeatureKey().setName(name).setMinVersionLevel(level)
                        .setMaxVersionLevel(level)));
    }

    /**
     * An error with no API list, as Kafka's {@code ApiVersionsRequest.getErrorResponse} answers anything
     * but an unsupported version ({@link #unsupportedVersionResponse}): a client that sent a bad request
     * must not take versions from its answer.
     */
    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        return new ApiVersionsResponse().setErrorCode(error.code());
    }

    /**
     * The v0-encodable answer to an ApiVersions request of a version this broker does not know, as
     * Kafka's: UNSUPPORTED_VERSION with ApiVersions' own range only, which the client retries within.
     */
    public static ApiVersionsResponse unsupportedVersionResponse(ApiHandlerRegistry registry) {
        List<ApiVersionsResponse.ApiVersion> own = new ArrayList<>(1);
        for (ApiHandler handler : registry.handlers()) {
            if (handler.apiKey() == ApiKeys.API_VERSIONS) {
                own.add(new ApiVersionsResponse.ApiVersion().setApiKey(handler.apiKey().id())
                        .setMinVersion(handler.minVersion()).setMaxVersion(handler.maxVersion()));
            }
        }
        return new ApiVersionsResponse().setApiKeys(own).setErrorCode(Errors.UNSUPPORTED_VERSION.code());
    }

    private static ApiVersionsResponse supported(ApiHandlerRegistry registry) {
        List<ApiVersionsResponse.ApiVersion> versions = new ArrayList<>();
        for (ApiHandler handler : registry.handlers()) {
            versions.add(new ApiVersionsResponse.ApiVersion()
                    .setApiKey(handler.apiKey().id())
                    .setMinVersion(handler.minVersion())
                    .setMaxVersion(handler.maxVersion()));
        }
        return new ApiVersionsResponse().setApiKeys(versions);
    }
}

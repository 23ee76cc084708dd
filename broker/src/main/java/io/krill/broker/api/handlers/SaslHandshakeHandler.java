package io.krill.broker.api.handlers;

import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.security.authentication.SaslServerAuthenticator;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.SaslHandshakeRequest;
import io.krill.wire.message.SaslHandshakeResponse;
import io.krill.wire.protocol.ApiMessage;
import java.util.List;

/**
 * SaslHandshake v0-1: the client names its SASL mechanism. v1 continues with SaslAuthenticate requests,
 * v0 with raw size-prefixed tokens (the legacy flow, which the network layer carries). An unknown or
 * disabled mechanism gets UNSUPPORTED_SASL_MECHANISM with the enabled ones, a handshake out of order
 * ILLEGAL_SASL_STATE; both then close the connection. On a listener without SASL the answer is
 * ILLEGAL_SASL_STATE, as Kafka gives.
 *
 * <p>Thread-safe: stateless (the per-connection state is the connection's authenticator).
 */
public final class SaslHandshakeHandler extends AbstractApiHandler {
    public SaslHandshakeHandler() {
        super(ApiKeys.SASL_HANDSHAKE, 0, 1);
    }

    @Override
    public void handle(Request request) {
        SaslHandshakeRequest body = request.body();
        SaslServerAuthenticator sasl = request.connection().sasl();
        if (sasl == null) {
            request.respond(errorResponse(request, Errors.ILLEGAL_SASL_STATE));
            return;
        }
        SaslServerAuthenticator.HandshakeOutcome outcome = sasl.handshake(request.version(), body.mechanism());
        request.respond(new SaslHandshakeResponse().setErrorCode(outcome.error().code())
                .setMechanisms(List.copyOf(outcome.enabledMechanisms())));
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        return new SaslHandshakeResponse().setErrorCode(error.code());
    }
}

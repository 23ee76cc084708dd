package io.krill.broker.api.handlers;

import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.security.authentication.SaslServerAuthenticator;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.SaslAuthenticateRequest;
import io.krill.wire.message.SaslAuthenticateResponse;
import io.krill.wire.protocol.ApiMessage;

/**
 * SaslAuthenticate v0-2: one token of the SASL exchange chosen by SaslHandshake v1. A failure answers
 * SASL_AUTHENTICATION_FAILED with the mechanism's message, then the connection closes; success on v1+
 * carries the session lifetime ({@code connections.max.reauth.ms}, 0 for none). Without a handshake
 * before it, or on a listener without SASL, the answer is ILLEGAL_SASL_STATE.
 *
 * <p>Thread-safe: stateless (the per-connection state is the connection's authenticator).
 */
public final class SaslAuthenticateHandler extends AbstractApiHandler {
    public SaslAuthenticateHandler() {
        super(ApiKeys.SASL_AUTHENTICATE, 0, 2);
    }

    @Override
    public void handle(Request request) {
        SaslAuthenticateRequest body = request.body();
        SaslServerAuthenticator sasl = request.connection().sasl();
        if (sasl == null) {
            request.respond(new SaslAuthenticateResponse().setErrorCode(Errors.ILLEGAL_SASL_STATE.code())
                    .setErrorMessage("SaslAuthenticate request received on a listener without SASL"));
            return;
        }
        SaslServerAuthenticator.AuthenticateOutcome outcome = sasl.authenticate(body.authBytes());
        request.respond(new SaslAuthenticateResponse().setErrorCode(outcome.error().code())
                .setErrorMessage(outcome.errorMessage()).setAuthBytes(outcome.token())
                .setSessionLifetimeMs(outcome.sessionLifetimeMs()));
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        return new SaslAuthenticateResponse().setErrorCode(error.code()).setErrorMessage(error.message());
    }
}

package io.krill.broker.security.sasl;

/**
 * A failed SASL exchange: bad credentials, unknown user, malformed token. The message goes back to the
 * client in SaslAuthenticate's error message (SASL_AUTHENTICATION_FAILED), so it names no secret.
 */
public final class SaslAuthenticationException extends Exception {
    public SaslAuthenticationException(String message) {
        super(message);
    }
}

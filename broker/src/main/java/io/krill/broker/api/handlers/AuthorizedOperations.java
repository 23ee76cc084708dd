package io.krill.broker.api.handlers;

/**
 * Constants of the authorized-operations bitfields (bit n for AclOperation code n, as Kafka's
 * {@code Utils.to32BitField}); the fields of real resources come from
 * {@link io.krill.broker.security.authorizer.Authorization#authorizedOperations}. Constants only.
 */
final class AuthorizedOperations {
    /** Kafka's value when the client did not ask for authorized operations. */
    static final int OMITTED = Integer.MIN_VALUE;

    /** Every operation a topic supports: what an unknown topic's entry carries, as before authorization. */
    static final int TOPIC = (1 << 3) | (1 << 4) | (1 << 5) | (1 << 6) | (1 << 7) | (1 << 8) | (1 << 10) | (1 << 11);

    private AuthorizedOperations() {
    }
}

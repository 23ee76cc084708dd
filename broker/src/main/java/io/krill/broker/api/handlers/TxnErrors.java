package io.krill.broker.api.handlers;

import io.krill.wire.error.Errors;

/**
 * Version rules shared by the transaction APIs. Stateless.
 */
final class TxnErrors {
    private TxnErrors() {
    }

    /**
     * PRODUCER_FENCED as a request of {@code version} may carry it: versions below
     * {@code firstFencedVersion} predate the code (KIP-588) and get INVALID_PRODUCER_EPOCH, as Kafka
     * answers them.
     */
    static Errors forVersion(Errors error, short version, int firstFencedVersion) {
        return error == Errors.PRODUCER_FENCED && version < firstFencedVersion ? Errors.INVALID_PRODUCER_EPOCH : error;
    }
}

package io.krill.compat.support;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The guard of tests that need transactions: they are skipped while the broker does not advertise the
 * APIs a transactional producer calls, and start running by themselves once it does. InitProducerId is
 * advertised for idempotent producers already; a broker that serves AddPartitionsToTxn and EndTxn also
 * gives producer ids to transactional ids.
 */
public final class TransactionApis {
    private static final ApiKeys[] KEYS = {ApiKeys.INIT_PRODUCER_ID, ApiKeys.ADD_PARTITIONS_TO_TXN,
        ApiKeys.ADD_OFFSETS_TO_TXN, ApiKeys.END_TXN, ApiKeys.TXN_OFFSET_COMMIT};

    private TransactionApis() {
    }

    public static void assumeServed(BrokerApis apis) {
        assumeTrue(apis.serves(KEYS), "the broker does not advertise the transaction APIs (InitProducerId, "
                + "AddPartitionsToTxn, AddOffsetsToTxn, EndTxn, TxnOffsetCommit) yet; this test runs by itself once "
                + "it does");
    }
}

package io.krill.compat.support;

import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The check of tests that need transactions: the broker must advertise every API a transactional producer
 * (and a transactional consume-transform-produce loop) calls. It fails the test when one is missing, so a
 * transaction handler dropped from the broker's table shows as a failure, not as a skip.
 */
public final class TransactionApis {
    private static final ApiKeys[] KEYS = {ApiKeys.INIT_PRODUCER_ID, ApiKeys.ADD_PARTITIONS_TO_TXN,
        ApiKeys.ADD_OFFSETS_TO_TXN, ApiKeys.END_TXN, ApiKeys.TXN_OFFSET_COMMIT};

    private TransactionApis() {
    }

    /** Fails unless the broker advertises InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn, EndTxn, TxnOffsetCommit. */
    public static void assertServed(BrokerApis apis) {
        apis.assertServes("a transactional producer", KEYS);
    }
}

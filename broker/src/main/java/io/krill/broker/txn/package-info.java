/**
 * The transaction coordinator (docs/transactions.md): on the leader of each partition of
 * {@code __transaction_state}, the transactional ids hashing to it, their producer ids and epochs and
 * the state of their transactions, persisted as records of that partition ({@link
 * io.krill.broker.txn.TransactionRecords}) and reloaded on leadership. {@link
 * io.krill.broker.txn.TransactionCoordinator} runs the state machine (InitProducerId, AddPartitionsToTxn,
 * AddOffsetsToTxn, EndTxn, timeouts, expiry, the admin views); {@link
 * io.krill.broker.txn.TransactionMarkerSender} writes commit and abort markers to partition leaders with
 * WriteTxnMarkers; {@link io.krill.broker.txn.TransactionVerifier} asks the coordinator of a transactional
 * id, on this broker or another ({@link io.krill.broker.txn.RemoteVerificationSender}), whether partitions
 * are in a producer's open transaction (KIP-890 part 1), for the produce path's check of transactional
 * batches ({@link io.krill.broker.txn.TransactionalProduceCheck}) and the group coordinator's
 * TxnOffsetCommit, and {@link io.krill.broker.txn.VerificationErrors} tells the outcome per API and
 * version; {@link io.krill.broker.txn.ProducerIdManager} hands out cluster-unique producer ids.
 */
package io.krill.broker.txn;

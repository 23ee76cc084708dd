package io.krill.broker.txn;

import io.krill.log.TopicPartition;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.DescribeTransactionsResponse;
import io.krill.wire.message.ListTransactionsResponse;
import io.krill.wire.record.RecordBatch;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The admin views of a {@link TransactionCoordinator}'s state (DescribeTransactions, ListTransactions,
 * {@code kafka-transactions}): read-only, each transactional id read under its metadata's monitor.
 *
 * <p>Stateless; thread-safe.
 */
final class TransactionListing {
    private TransactionListing() {
    }

    /** DescribeTransactions for one transactional id. */
    static DescribeTransactionsResponse.TransactionState describe(TransactionCoordinator coordinator,
                                                                  String transactionalId) {
        // An error leaves the other fields at the schema's defaults (0), as Kafka's coordinator does.
        DescribeTransactionsResponse.TransactionState described = new DescribeTransactionsResponse.TransactionState()
                .setTransactionalId(transactionalId)
                .setTransactionState("");
        if (transactionalId == null || transactionalId.isEmpty()) {
            return described.setTransactionalId(transactionalId == null ? "" : transactionalId)
                    .setErrorCode(Errors.INVALID_REQUEST.code());
        }
        TransactionMetadata md;
        try {
            md = coordinator.metadataOf(transactionalId);
        } catch (ApiException e) {
            return described.setErrorCode(e.error().code());
        }
        if (md == null) {
            return described.setErrorCode(Errors.TRANSACTIONAL_ID_NOT_FOUND.code());
        }
        synchronized (md) {
            TransactionValue v = md.current();
            if (v.state() == TransactionState.DEAD || v.producerEpoch() == RecordBatch.NO_PRODUCER_EPOCH) {
                return described.setErrorCode(Errors.TRANSACTIONAL_ID_NOT_FOUND.code());
            }
            Map<String, List<Integer>> byTopic = new TreeMap<>();
            for (TopicPartition tp : v.partitions()) {
                byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition());
            }
            byTopic.forEach((topic, partitions) -> described.topics().add(
                    new DescribeTransactionsResponse.TopicData().setTopic(topic).setPartitions(partitions)));
            return described.setErrorCode(Errors.NONE.code())
                    .setTransactionState(v.state().displayName())
                    .setTransactionTimeoutMs(v.timeoutMs())
                    .setTransactionStartTimeMs(v.txnStartTimestamp())
                    .setProducerId(v.producerId())
                    .setProducerEpoch(v.producerEpoch());
        }
    }

    /**
     * ListTransactions over the partitions this broker coordinates. Empty filters match everything;
     * {@code minDurationMs} < 0 matches every transaction, else only those whose (last) transaction
     * started more than that long ago, as Kafka filters; {@code pattern} null matches every id. COORDINATOR_LOAD_IN_PROGRESS while a partition loads.
     */
    static ListTransactionsResponse list(TransactionCoordinator coordinator, Set<String> states,
                                         Set<Long> producerIds, long minDurationMs, Pattern pattern) {
        ListTransactionsResponse response = new ListTransactionsResponse();
        Set<TransactionState> wanted = new HashSet<>();
        for (String name : states) {
            TransactionState state = TransactionState.forName(name);
            if (state == null) {
                response.unknownStateFilters().add(name);
            } else {
                wanted.add(state);
            }
        }
        if (!states.isEmpty() && wanted.isEmpty()) {
            return response;
        }
        long now = coordinator.now();
        boolean allLoaded = coordinator.forEachLoadedTransaction(md -> {
            TransactionValue v;
            synchronized (md) {
                v = md.current();
            }
            if (v.state() == TransactionState.DEAD || v.producerEpoch() == RecordBatch.NO_PRODUCER_EPOCH
                    || (!wanted.isEmpty() && !wanted.contains(v.state()))
                    || (!producerIds.isEmpty() && !producerIds.contains(v.producerId()))
                    || (minDurationMs >= 0 && now - v.txnStartTimestamp() <= minDurationMs)
                    || (pattern != null && !pattern.matcher(md.transactionalId()).matches())) {
                return;
            }
            response.transactionStates().add(new ListTransactionsResponse.TransactionState()
                    .setTransactionalId(md.transactionalId())
                    .setProducerId(v.producerId())
                    .setTransactionState(v.state().displayName()));
        });
        if (!allLoaded) {
            response.setErrorCode(Errors.COORDINATOR_LOAD_IN_PROGRESS.code());
        }
        return response;
    }
}

package io.krill.broker.console;

import io.krill.controller.metadata.BrokerInfo;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.DescribeTransactionsRequest;
import io.krill.wire.message.DescribeTransactionsResponse;
import io.krill.wire.message.ListTransactionsRequest;
import io.krill.wire.message.ListTransactionsResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

/**
 * {@code /console/api/transactions}: every broker's ListTransactions (a broker lists the transactional ids
 * it coordinates), then DescribeTransactions of those ids at the same broker; only the ids the principal
 * may DESCRIBE, and in them only the topics it may DESCRIBE.
 *
 * <p>Thread-safety: stateless beyond its thread-safe view.
 */
final class TransactionsApi {
    static final short LIST_TRANSACTIONS_VERSION = 1;
    static final short DESCRIBE_TRANSACTIONS_VERSION = 0;

    private record Txn(String id, long producerId, int producerEpoch, String state, int timeoutMs, int coordinator,
                       Map<String, List<Integer>> partitions) {
    }

    private final ClusterView cluster;

    TransactionsApi(ClusterView cluster) {
        this.cluster = cluster;
    }

    byte[] list(ConsoleAccess access) {
        BrokerClient client = cluster.client();
        Answers answers = new Answers(client.timeoutMs());
        Map<Integer, CompletableFuture<List<String>>> listings = new LinkedHashMap<>();
        for (BrokerInfo broker : cluster.image().brokers()) {
            listings.put(broker.nodeId(), client.call(broker.nodeId(), ApiKeys.LIST_TRANSACTIONS,
                    LIST_TRANSACTIONS_VERSION, new ListTransactionsRequest(), (ListTransactionsResponse response) -> {
                        List<String> ids = new ArrayList<>();
                        if (response.errorCode() == Errors.NONE.code()) {
                            for (ListTransactionsResponse.TransactionState t : response.transactionStates()) {
                                if (access.describeTransactionalId(t.transactionalId())) {
                                    ids.add(t.transactionalId());
                                }
                            }
                        }
                        return ids;
                    }));
        }
        Map<Integer, CompletableFuture<List<Txn>>> described = new LinkedHashMap<>();
        listings.forEach((broker, future) -> {
            List<String> ids = answers.get(broker, future);
            if (ids != null && !ids.isEmpty()) {
                described.put(broker, describe(broker, ids));
            }
        });
        Map<String, Txn> txns = new TreeMap<>();
        described.forEach((broker, future) -> {
            List<Txn> answer = answers.get(broker, future);
            if (answer != null) {
                answer.forEach(t -> txns.put(t.id(), t));
            }
        });
        return Json.bytes(json -> {
            json.writeStartObject();
            json.writeArrayFieldStart("transactions");
            for (Txn t : txns.values()) {
                json.writeStartObject();
                json.writeStringField("transactionalId", t.id());
                json.writeNumberField("producerId", t.producerId());
                json.writeNumberField("producerEpoch", t.producerEpoch());
                json.writeStringField("state", t.state());
                json.writeNumberField("timeoutMs", t.timeoutMs());
                json.writeNumberField("coordinator", t.coordinator());
                json.writeArrayFieldStart("partitions");
                for (Map.Entry<String, List<Integer>> e : t.partitions().entrySet()) {
                    if (!access.describeTopic(e.getKey())) {
                        continue;
                    }
                    for (int p : new TreeSet<>(e.getValue())) {
                        json.writeStartObject();
                        json.writeStringField("topic", e.getKey());
                        json.writeNumberField("partition", p);
                        json.writeEndObject();
                    }
                }
                json.writeEndArray();
                json.writeEndObject();
            }
            json.writeEndArray();
            TopicsApi.unavailable(json, answers.unavailable());
            json.writeEndObject();
        });
    }

    private CompletableFuture<List<Txn>> describe(int broker, List<String> ids) {
        return cluster.client().call(broker, ApiKeys.DESCRIBE_TRANSACTIONS, DESCRIBE_TRANSACTIONS_VERSION,
                new DescribeTransactionsRequest().setTransactionalIds(ids), (DescribeTransactionsResponse response) -> {
                    List<Txn> txns = new ArrayList<>();
                    for (DescribeTransactionsResponse.TransactionState t : response.transactionStates()) {
                        if (t.errorCode() != Errors.NONE.code()) {
                            continue;
                        }
                        Map<String, List<Integer>> partitions = new TreeMap<>();
                        for (DescribeTransactionsResponse.TopicData d : t.topics()) {
                            partitions.computeIfAbsent(d.topic(), k -> new ArrayList<>()).addAll(d.partitions());
                        }
                        txns.add(new Txn(t.transactionalId(), t.producerId(), t.producerEpoch(), t.transactionState(),
                                t.transactionTimeoutMs(), broker, partitions));
                    }
                    return txns;
                });
    }
}

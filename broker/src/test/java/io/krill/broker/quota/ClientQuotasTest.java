package io.krill.broker.quota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.api.Request;
import io.krill.broker.api.ResponseChannel;
import io.krill.broker.config.SecurityProtocol;
import io.krill.broker.security.KafkaPrincipal;
import io.krill.broker.security.Session;
import io.krill.controller.metadata.MetadataImage;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.FetchRequest;
import io.krill.wire.message.ProduceRequest;
import io.krill.wire.message.RequestHeader;
import io.krill.wire.protocol.ApiMessage;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Which entity's quota applies to a (user, client-id), in Kafka's order of precedence, with users as
 * authenticated principals; and how usage is shared or kept apart.
 */
class ClientQuotasTest {
    private static final ResponseChannel NOWHERE = new ResponseChannel() {
        @Override
        public void send(Request request, ApiMessage response) {
        }

        @Override
        public void close(Request request, String reason) {
        }

        @Override
        public void execute(Runnable task) {
            task.run();
        }

        @Override
        public void whenClosed(Runnable action) {
            // the connection of a test request never closes
        }
    };

    private final ClientQuotas quotas = new ClientQuotas(11, 1, null);
    private final Map<String, Map<String, String>> entities = new HashMap<>();

    private void set(String entity, String key, String value) {
        entities.computeIfAbsent(entity, e -> new HashMap<>()).put(key, value);
        quotas.onChange(null, new MetadataImage("c", 1, List.of(), List.of(), entities));
    }

    private void remove(String entity) {
        entities.remove(entity);
        quotas.onChange(null, new MetadataImage("c", 1, List.of(), List.of(), entities));
    }

    private static Request request(ApiKeys api, ApiMessage body, String user, String clientId) {
        InetSocketAddress peer = new InetSocketAddress("127.0.0.1", 5555);
        Session session = Session.authenticatedAs(KafkaPrincipal.user(user), peer, "SASL_PLAINTEXT",
                SecurityProtocol.SASL_PLAINTEXT);
        RequestHeader header = new RequestHeader().setRequestApiKey(api.id()).setRequestApiVersion((short) 12)
                .setClientId(clientId);
        return new Request(header, api, body, new Request.Connection(peer, "SASL_PLAINTEXT", "c-1", session),
                NOWHERE, 0, System.nanoTime());
    }

    private double produceQuota(String user, String clientId) {
        return quotas.quota(QuotaType.PRODUCE, user, clientId);
    }

    @Test
    void mostSpecificEntityWinsInKafkasOrder() {
        String key = "producer_byte_rate";
        set("clients/<default>", key, "8");
        assertEquals(8, produceQuota("alice", "app"));
        set("clients/app", key, "7");
        assertEquals(7, produceQuota("alice", "app"));
        assertEquals(8, produceQuota("alice", "other"));
        set("users/<default>", key, "6");
        assertEquals(6, produceQuota("alice", "app"), "any user entity beats client-id entities");
        set("users/<default>/clients/<default>", key, "5");
        assertEquals(5, produceQuota("alice", "app"));
        set("users/<default>/clients/app", key, "4");
        assertEquals(4, produceQuota("alice", "app"));
        assertEquals(5, produceQuota("alice", "other"));
        set("users/alice", key, "3");
        assertEquals(3, produceQuota("alice", "app"));
        assertEquals(4, produceQuota("bob", "app"), "bob still gets the default user's");
        set("users/alice/clients/<default>", key, "2");
        assertEquals(2, produceQuota("alice", "app"));
        set("users/alice/clients/app", key, "1");
        assertEquals(1, produceQuota("alice", "app"));
        assertEquals(2, produceQuota("alice", "other"));

        remove("users/alice/clients/app");
        assertEquals(2, produceQuota("alice", "app"), "a removed entity is forgotten");
    }

    @Test
    void eachQuotaTypeIsResolvedOnItsOwn() {
        set("users/alice", "producer_byte_rate", "1000");
        set("clients/app", "consumer_byte_rate", "2000");
        assertEquals(1000, quotas.quota(QuotaType.PRODUCE, "alice", "app"));
        assertEquals(2000, quotas.quota(QuotaType.FETCH, "alice", "app"));
        assertTrue(Double.isNaN(quotas.quota(QuotaType.REQUEST, "alice", "app")));
        assertFalse(quotas.enabled(QuotaType.REQUEST));
    }

    @Test
    void usersShareTheirAllowanceAndDefaultsAreKeptApart() {
        set("users/<default>", "producer_byte_rate", "1000");
        long now = System.currentTimeMillis();
        ProduceRequest body = new ProduceRequest();
        // 10 s worth at once is within the quota; alice's second client shares alice's allowance.
        assertEquals(0, quotas.recordProduce(request(ApiKeys.PRODUCE, body, "alice", "a"), 10_000, now));
        assertTrue(quotas.recordProduce(request(ApiKeys.PRODUCE, body, "alice", "b"), 1000, now) > 0);
        // bob matches the same default entity but is measured on his own.
        assertEquals(0, quotas.recordProduce(request(ApiKeys.PRODUCE, body, "bob", "a"), 10_000, now));
    }

    @Test
    void noQuotaNoThrottleAndFollowersAreExempt() {
        long now = System.currentTimeMillis();
        Request produce = request(ApiKeys.PRODUCE, new ProduceRequest(), "alice", "app");
        assertEquals(0, quotas.recordProduce(produce, Long.MAX_VALUE / 4, now));
        assertEquals(Long.MAX_VALUE, quotas.maxFetchBytes(produce, now));

        set("users/alice", "request_percentage", "1");
        Request follower = request(ApiKeys.FETCH, new FetchRequest().setReplicaId(2), "alice", "app");
        assertEquals(0, quotas.recordRequestTime(follower, 60_000_000_000L, now), "a replica's fetch is exempt");
        Request consumer = request(ApiKeys.FETCH, new FetchRequest().setReplicaId(-1), "alice", "app");
        assertEquals(1000, quotas.recordRequestTime(consumer, 60_000_000_000L, now),
                "a minute of thread time against 1%: throttled, capped at one window");

        set("users/alice", "consumer_byte_rate", "100");
        assertEquals(100 * 10, quotas.maxFetchBytes(consumer, now), "what 10 windows allow");
    }
}

package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.support.Clients;
import io.krill.compat.support.ToolRunner;
import io.krill.compat.support.ToolRunner.Result;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterClientQuotasOptions;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.apache.kafka.common.quota.ClientQuotaFilterComponent;
import org.apache.kafka.tools.ConfigCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Client quotas managed with kafka-configs ({@code ConfigCommand} 4.4: AlterClientQuotas and
 * DescribeClientQuotas under the hood) and with the Admin client's alterClientQuotas /
 * describeClientQuotas: clients, users, defaults and user/client-id pairs; filters; validate_only;
 * refusals.
 */
class ClientQuotasToolTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension();

    @TempDir
    Path tmp;

    private Result configs(String... extra) {
        return ToolRunner.kafkaConfigs(tmp, KRILL.bootstrapServers(), extra);
    }

    private static Admin admin() {
        return Admin.create(Clients.base(KRILL.bootstrapServers()));
    }

    private static Map<ClientQuotaEntity, Map<String, Double>> describe(Admin admin, ClientQuotaFilter filter)
            throws Exception {
        return admin.describeClientQuotas(filter).entities().get(60, TimeUnit.SECONDS);
    }

    private static ClientQuotaEntity entity(String... typeAndName) {
        Map<String, String> entries = new HashMap<>();
        for (int i = 0; i < typeAndName.length; i += 2) {
            entries.put(typeAndName[i], typeAndName[i + 1]);
        }
        return new ClientQuotaEntity(entries);
    }

    @Test
    void kafkaConfigsAddsDescribesAndDeletesQuotas() throws Exception {
        String quotas = "producer_byte_rate=1024,consumer_byte_rate=2048";
        configs("--alter", "--add-config", quotas, "--entity-type", "clients", "--entity-name", "app").assertSuccess();
        configs("--alter", "--add-config", quotas, "--entity-type", "users", "--entity-name", "alice").assertSuccess();
        configs("--alter", "--add-config", "request_percentage=50", "--entity-type", "users", "--entity-default")
                .assertSuccess();
        configs("--alter", "--add-config", "producer_byte_rate=4096", "--entity-type", "users", "--entity-name", "alice",
                "--entity-type", "clients", "--entity-name", "app").assertSuccess();
        configs("--alter", "--add-config", "consumer_byte_rate=512", "--entity-type", "clients", "--entity-default")
                .assertSuccess();

        Result client = configs("--describe", "--entity-type", "clients", "--entity-name", "app").assertSuccess();
        assertTrue(client.out().contains("Quota configs for client-id 'app' are "), client.describe());
        assertTrue(client.out().contains("producer_byte_rate=1024.0"), client.describe());
        assertTrue(client.out().contains("consumer_byte_rate=2048.0"), client.describe());

        Result pair = configs("--describe", "--entity-type", "users", "--entity-name", "alice", "--entity-type", "clients",
                "--entity-name", "app").assertSuccess();
        assertTrue(pair.out().contains("user-principal 'alice', client-id 'app'"), pair.describe());
        assertTrue(pair.out().contains("producer_byte_rate=4096.0"), pair.describe());

        Result defaults = configs("--describe", "--entity-type", "clients", "--entity-default").assertSuccess();
        assertTrue(defaults.out().contains("the default client-id are consumer_byte_rate=512.0"), defaults.describe());

        try (Admin admin = admin()) {
            Map<ClientQuotaEntity, Map<String, Double>> all = describe(admin, ClientQuotaFilter.all());
            Map<String, String> defaultUser = new HashMap<>();
            defaultUser.put(ClientQuotaEntity.USER, null);
            assertEquals(Map.of("producer_byte_rate", 1024.0, "consumer_byte_rate", 2048.0),
                    all.get(entity(ClientQuotaEntity.USER, "alice")), all.toString());
            assertEquals(Map.of("request_percentage", 50.0), all.get(new ClientQuotaEntity(defaultUser)), all.toString());
            assertEquals(5, all.size(), all.toString());
        }

        configs("--alter", "--delete-config", "producer_byte_rate", "--entity-type", "clients", "--entity-name", "app")
                .assertSuccess();
        Result after = configs("--describe", "--entity-type", "clients", "--entity-name", "app").assertSuccess();
        assertTrue(after.out().contains("consumer_byte_rate=2048.0") && !after.out().contains("producer_byte_rate"),
                after.describe());

        Result bad = configs("--alter", "--add-config", "producer_byte_rate=-5", "--entity-type", "clients",
                "--entity-name", "app");
        assertEquals(1, bad.exitCode(), bad.describe());
        assertTrue(bad.err().contains("must be greater than 0"), bad.describe());
    }

    @Test
    void adminAltersWithValidateOnlyAndFiltersDescriptions() throws Exception {
        ClientQuotaEntity bob = entity(ClientQuotaEntity.USER, "bob");
        ClientQuotaEntity bobWorker = entity(ClientQuotaEntity.USER, "bob", ClientQuotaEntity.CLIENT_ID, "worker");
        try (Admin admin = admin()) {
            admin.alterClientQuotas(List.of(new ClientQuotaAlteration(bob,
                    List.of(new ClientQuotaAlteration.Op("producer_byte_rate", 1e6)))),
                    new AlterClientQuotasOptions().validateOnly(true)).all().get(60, TimeUnit.SECONDS);
            ClientQuotaFilter bobOnly = ClientQuotaFilter.containsOnly(
                    List.of(ClientQuotaFilterComponent.ofEntity(ClientQuotaEntity.USER, "bob")));
            assertEquals(Map.of(), describe(admin, bobOnly), "validate_only stores nothing");

            admin.alterClientQuotas(List.of(
                    new ClientQuotaAlteration(bob, List.of(new ClientQuotaAlteration.Op("producer_byte_rate", 1e6))),
                    new ClientQuotaAlteration(bobWorker, List.of(
                            new ClientQuotaAlteration.Op("request_percentage", 25.5),
                            new ClientQuotaAlteration.Op("controller_mutation_rate", 10.0))))).all().get(60, TimeUnit.SECONDS);
            assertEquals(Map.of(bob, Map.of("producer_byte_rate", 1e6)), describe(admin, bobOnly));
            Map<ClientQuotaEntity, Map<String, Double>> bobs = describe(admin, ClientQuotaFilter.contains(
                    List.of(ClientQuotaFilterComponent.ofEntity(ClientQuotaEntity.USER, "bob"))));
            assertEquals(Map.of(bob, Map.of("producer_byte_rate", 1e6),
                    bobWorker, Map.of("request_percentage", 25.5, "controller_mutation_rate", 10.0)), bobs);
            Map<ClientQuotaEntity, Map<String, Double>> anyClient = describe(admin, ClientQuotaFilter.contains(
                    List.of(ClientQuotaFilterComponent.ofEntityType(ClientQuotaEntity.CLIENT_ID))));
            assertTrue(anyClient.containsKey(bobWorker) && !anyClient.containsKey(bob), anyClient.toString());

            ExecutionException unknownKey = assertThrows(ExecutionException.class, () -> admin.alterClientQuotas(List.of(
                    new ClientQuotaAlteration(bob, List.of(new ClientQuotaAlteration.Op("bytes_per_day", 1.0)))))
                    .all().get(60, TimeUnit.SECONDS));
            assertInstanceOf(InvalidRequestException.class, unknownKey.getCause());

            admin.alterClientQuotas(List.of(
                    new ClientQuotaAlteration(bob, List.of(new ClientQuotaAlteration.Op("producer_byte_rate", null))),
                    new ClientQuotaAlteration(bobWorker, List.of(
                            new ClientQuotaAlteration.Op("request_percentage", null),
                            new ClientQuotaAlteration.Op("controller_mutation_rate", null))))).all().get(60, TimeUnit.SECONDS);
            assertEquals(Map.of(), describe(admin, ClientQuotaFilter.contains(
                    List.of(ClientQuotaFilterComponent.ofEntity(ClientQuotaEntity.USER, "bob")))));
        }
    }
}

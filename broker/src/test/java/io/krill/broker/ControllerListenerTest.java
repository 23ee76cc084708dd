package io.krill.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.krill.broker.testing.TestBroker;
import io.krill.controller.metadata.BrokerInfo;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A KRaft-style config with a CONTROLLER listener (as the apache/kafka image has) binds only the client listener. */
class ControllerListenerTest {

    @Test
    void controllerListenersAreNeitherBoundNorAdvertised() throws Exception {
        try (TestBroker broker = TestBroker.start(Map.of(
                "listeners", "PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0",
                "listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                "advertised.listeners", "PLAINTEXT://127.0.0.1:0",
                "controller.listener.names", "CONTROLLER",
                "process.roles", "broker,controller"))) {
            assertEquals(1, broker.broker().boundAddresses().size());
            BrokerInfo self = broker.broker().metadata().image().broker(1);
            assertEquals(1, self.endpoints().size());
            assertEquals(broker.port(), self.endpoint("PLAINTEXT").port());
        }
    }
}

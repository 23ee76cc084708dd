package io.krill.broker;

/**
 * Entry point of {@code bin/krill-server-start.sh}: {@code KrillServer <server.properties> [--override k=v ...]}.
 *
 * <p>The network broker is not assembled yet (the broker issue builds it); until then this entry point
 * says so and exits with status 2 rather than pretending to serve.
 */
public final class KrillServer {
    private KrillServer() {
    }

    public static void main(String[] args) {
        System.err.println("Krill: the network broker is not available yet in this build "
                + "(the protocol layer and the log are; see docs/architecture.md).");
        System.exit(2);
    }
}

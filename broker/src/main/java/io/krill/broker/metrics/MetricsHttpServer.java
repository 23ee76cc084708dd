package io.krill.broker.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.prometheus.metrics.exporter.httpserver.MetricsHandler;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;

/**
 * The broker's HTTP endpoint ({@code krill.http.port}): {@code /metrics} in Prometheus' text format,
 * {@code /health} (200 while the process serves HTTP at all: liveness) and {@code /ready} (200 once the
 * broker accepts Kafka requests, 503 before and while stopping: readiness), for orchestrators.
 *
 * <p>Thread-safety: requests are served by one daemon thread; start and stop from the owner.
 */
public final class MetricsHttpServer implements AutoCloseable {
    private final HttpServer server;
    private final ExecutorService executor;

    public MetricsHttpServer(int port, BrokerMetrics metrics, BooleanSupplier ready) throws IOException {
        server = HttpServer.create(new InetSocketAddress(port), 16);
        server.createContext("/metrics", new MetricsHandler(metrics.registry()));
        server.createContext("/health", exchange -> reply(exchange, 200, "ok\n"));
        server.createContext("/ready", exchange -> {
            boolean isReady = ready.getAsBoolean();
            reply(exchange, isReady ? 200 : 503, isReady ? "ready\n" : "not ready\n");
        });
        executor = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "krill-http");
            thread.setDaemon(true);
            return thread;
        });
        server.setExecutor(executor);
        server.start();
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private static void reply(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}

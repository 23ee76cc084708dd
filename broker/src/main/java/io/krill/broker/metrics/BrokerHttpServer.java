package io.krill.broker.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.prometheus.metrics.exporter.httpserver.MetricsHandler;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import javax.net.ssl.SSLContext;

/**
 * The broker's HTTP endpoint ({@code krill.http.port}): {@code /metrics} in Prometheus' text format,
 * {@code /health} (200 while the process serves HTTP at all: liveness) and {@code /ready} (200 once the
 * broker accepts Kafka requests, 503 before and while stopping: readiness), for orchestrators; and, when
 * given, the web console under {@code /console} (docs/console.md), whose handler runs its requests on a
 * pool of its own. With a TLS context (a console listener with SSL) every path is served over HTTPS.
 *
 * <p>Thread-safety: requests are served by one daemon thread ({@code krill-http}; the console hands its
 * requests on at once); start and stop from the owner.
 */
public final class BrokerHttpServer implements AutoCloseable {
    private final HttpServer server;
    private final ExecutorService executor;

    public BrokerHttpServer(int port, BrokerMetrics metrics, BooleanSupplier ready) throws IOException {
        this(port, metrics, ready, null, null);
    }

    /**
     * @param console the handler of {@code /console}, or null for no console
     * @param tls     the server's TLS context for HTTPS, or null for plain HTTP
     */
    public BrokerHttpServer(int port, BrokerMetrics metrics, BooleanSupplier ready, HttpHandler console,
                            SSLContext tls) throws IOException {
        if (tls != null) {
            HttpsServer https = HttpsServer.create(new InetSocketAddress(port), 16);
            https.setHttpsConfigurator(new HttpsConfigurator(tls));
            server = https;
        } else {
            server = HttpServer.create(new InetSocketAddress(port), 16);
        }
        server.createContext("/metrics", new MetricsHandler(metrics.registry()));
        server.createContext("/health", exchange -> reply(exchange, 200, "ok\n"));
        server.createContext("/ready", exchange -> {
            boolean isReady = ready.getAsBoolean();
            reply(exchange, isReady ? 200 : 503, isReady ? "ready\n" : "not ready\n");
        });
        if (console != null) {
            server.createContext("/console", console);
        }
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

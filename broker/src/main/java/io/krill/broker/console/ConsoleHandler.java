package io.krill.broker.console;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves {@code /console/}: the HTTP server's thread only hands each exchange to a small bounded pool
 * ({@code console-http-<i>}, {@value #THREADS} threads, {@value #QUEUE} waiting; beyond that 503 at once),
 * so a slow page never holds up {@code /metrics}. Each request is authenticated
 * ({@link ConsoleAuthenticator}), then answered from the static files or the JSON API
 * ({@link ConsoleApi}). GET (and HEAD for files) never changes anything; the actions are POST and DELETE
 * under {@code /console/api/} only, and each must carry {@code Content-Type: application/json} and
 * {@code X-Krill-Console: 1} (a header no other site's form or plain cross-origin request can set: the CSRF
 * guard), with a body of at most {@link JsonBody#MAX_BYTES}.
 *
 * <p>Thread-safety: thread-safe; it holds only thread-safe collaborators and its pool.
 */
public final class ConsoleHandler implements HttpHandler, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ConsoleHandler.class);
    static final String PREFIX = "/console/";
    static final String API_PREFIX = "api/";
    static final int THREADS = 4;
    static final int QUEUE = 32;
    static final String CSRF_HEADER = "X-Krill-Console";
    /** The most of an over-long action body read (and dropped) before it is refused: see {@link #refused}. */
    static final int DRAIN_BYTES = 1 << 20;

    private final ConsoleAuthenticator authenticator;
    private final ConsoleApi api;
    private final StaticResources resources;
    private final ThreadPoolExecutor pool;

    ConsoleHandler(ConsoleAuthenticator authenticator, ConsoleApi api, StaticResources resources) {
        this.authenticator = authenticator;
        this.api = api;
        this.resources = resources;
        AtomicInteger count = new AtomicInteger();
        this.pool = new ThreadPoolExecutor(THREADS, THREADS, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(QUEUE),
                runnable -> {
                    Thread thread = new Thread(runnable, "console-http-" + count.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
        this.pool.allowCoreThreadTimeOut(true);
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        try {
            pool.execute(() -> serve(exchange));
        } catch (RejectedExecutionException e) {
            send(exchange, 503, "application/json",
                    Json.error("THROTTLING_QUOTA_EXCEEDED", "the console is busy; try again"));
        }
    }

    private void serve(HttpExchange exchange) {
        try (exchange) {
            try {
                answer(exchange);
            } catch (ConsoleException e) {
                if (e.status() == 401) {
                    exchange.getResponseHeaders().set("WWW-Authenticate", "Basic realm=\"krill\", charset=\"UTF-8\"");
                }
                send(exchange, e.status(), "application/json", Json.error(e.error(), e.getMessage()));
            } catch (RuntimeException e) {
                LOG.error("Console request {} failed", exchange.getRequestURI(), e);
                send(exchange, 500, "application/json",
                        Json.error("UNKNOWN_SERVER_ERROR", "unexpected error; the broker's log has it"));
            }
        } catch (IOException e) {
            LOG.debug("Console response to {} not sent: {}", exchange.getRemoteAddress(), e.toString());
        }
    }

    private void answer(HttpExchange exchange) throws IOException {
        String method = exchange.getRequestMethod();
        boolean head = method.equals("HEAD");
        boolean write = method.equals("POST") || method.equals("DELETE");
        URI uri = exchange.getRequestURI();
        String rawPath = uri.getRawPath();
        boolean apiPath = rawPath.startsWith(PREFIX + API_PREFIX);
        if (!method.equals("GET") && !head && !(write && apiPath)) {
            exchange.getResponseHeaders().set("Allow", apiPath ? "GET, POST, DELETE" : "GET, HEAD");
            throw new ConsoleException(405, "BAD_REQUEST", "method " + method + " not allowed here");
        }
        if (rawPath.equals("/console")) {
            exchange.getResponseHeaders().set("Location", PREFIX);
            send(exchange, 301, "text/plain; charset=utf-8", new byte[0]);
            return;
        }
        if (!rawPath.startsWith(PREFIX)) {
            throw new ConsoleException(404, "NOT_FOUND", "not found");
        }
        InetAddress address = exchange.getRemoteAddress() == null ? null : exchange.getRemoteAddress().getAddress();
        ConsoleAccess access = authenticator.authenticate(exchange.getRequestHeaders().getFirst("Authorization"),
                address);
        String rest = rawPath.substring(PREFIX.length());
        if (write) {
            api.requireWritable();
            JsonBody body = JsonBody.parse(writeBody(exchange));
            ConsoleActions.Result result = api.act(method, rest.substring(API_PREFIX.length()), body, access);
            exchange.getResponseHeaders().set("Cache-Control", "no-store");
            send(exchange, result.status(), "application/json", result.body());
            return;
        }
        if (rest.startsWith(API_PREFIX)) {
            byte[] body = api.answer(rest.substring(API_PREFIX.length()), query(uri.getRawQuery()), access);
            exchange.getResponseHeaders().set("Cache-Control", "no-store");
            send(exchange, 200, "application/json", body);
            return;
        }
        StaticResources.Resource resource = resources.find(decode(rest));
        if (resource == null) {
            throw new ConsoleException(404, "NOT_FOUND", "no such file: " + rest);
        }
        exchange.getResponseHeaders().set("Cache-Control",
                resource.immutable() ? "public, max-age=31536000, immutable" : "no-cache");
        exchange.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
        send(exchange, 200, resource.contentType(), head ? null : resource.bytes());
    }

    /**
     * The body of an action, once its CSRF guard holds: 403 without {@code X-Krill-Console: 1} or without a
     * JSON content type; 413 when longer than {@link JsonBody#MAX_BYTES} (by its Content-Length, or as read).
     */
    static byte[] writeBody(HttpExchange exchange) throws IOException {
        String type = exchange.getRequestHeaders().getFirst("Content-Type");
        String mediaType = type == null ? "" : type.split(";", 2)[0].trim().toLowerCase(java.util.Locale.ROOT);
        if (!"1".equals(exchange.getRequestHeaders().getFirst(CSRF_HEADER)) || !mediaType.equals("application/json")) {
            throw refused(exchange, new ConsoleException(403, "CSRF_CHECK_FAILED",
                    "an action needs Content-Type: application/json and " + CSRF_HEADER + ": 1"));
        }
        String length = exchange.getRequestHeaders().getFirst("Content-Length");
        if (length != null) {
            long declared;
            try {
                declared = Long.parseLong(length.trim());
            } catch (NumberFormatException e) {
                throw ConsoleException.badRequest("bad Content-Length");
            }
            if (declared > JsonBody.MAX_BYTES) {
                throw refused(exchange, tooLarge());
            }
        }
        try (java.io.InputStream in = exchange.getRequestBody()) {
            byte[] body = in.readNBytes(JsonBody.MAX_BYTES + 1);
            if (body.length > JsonBody.MAX_BYTES) {
                throw refused(exchange, tooLarge());
            }
            return body;
        }
    }

    private static ConsoleException tooLarge() {
        return new ConsoleException(413, "BAD_REQUEST", "a body of at most " + JsonBody.MAX_BYTES + " bytes");
    }

    /**
     * {@code refusal}, after reading and dropping up to {@link #DRAIN_BYTES} of the request's body: a server that
     * closes a connection with the request still arriving resets it, and the client may then lose the answer
     * (the JDK's server drains only 64 KiB by itself). A longer body gets the answer and a closed connection.
     */
    private static ConsoleException refused(HttpExchange exchange, ConsoleException refusal) throws IOException {
        java.io.InputStream in = exchange.getRequestBody();
        byte[] scratch = new byte[8192];
        long left = DRAIN_BYTES;
        int n;
        while (left > 0 && (n = in.read(scratch, 0, (int) Math.min(scratch.length, left))) > 0) {
            left -= n;
        }
        if (left == 0) {
            exchange.getResponseHeaders().set("Connection", "close"); // more may be on its way
        }
        return refusal;
    }

    /** The query parameters, percent-decoded; the first of repeated names wins. */
    static Map<String, String> query(String rawQuery) {
        Map<String, String> params = new HashMap<>();
        if (rawQuery == null || rawQuery.isEmpty()) {
            return params;
        }
        if (rawQuery.length() > 4096) {
            throw ConsoleException.badRequest("query too long");
        }
        for (String pair : rawQuery.split("&")) {
            int eq = pair.indexOf('=');
            String name = decode(eq < 0 ? pair : pair.substring(0, eq));
            String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
            params.putIfAbsent(name, value);
        }
        return params;
    }

    static String decode(String raw) {
        try {
            return URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw ConsoleException.badRequest("malformed percent-encoding");
        }
    }

    private static void send(HttpExchange exchange, int status, String contentType, byte[] body)
            throws IOException {
        exchange.getResponseHeaders().set("Content-Type", contentType);
        if (body == null) {
            exchange.sendResponseHeaders(status, -1); // HEAD: headers only
            return;
        }
        exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }
}

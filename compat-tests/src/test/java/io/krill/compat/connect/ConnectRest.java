package io.krill.compat.connect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

/**
 * The few calls of Kafka Connect's REST API the tests make (the API every Connect user drives), over the
 * JDK's HTTP client. Thread-safe (the HTTP client is).
 */
final class ConnectRest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final String base;

    ConnectRest(String host, int port) {
        this.base = "http://" + host + ":" + port;
    }

    /** An HTTP answer: status and body. */
    record Answer(int status, String body) {
        JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new AssertionError("not JSON (" + status + "): " + body, e);
            }
        }
    }

    Answer get(String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(base + path)).GET());
    }

    /** {@code PUT /connectors/<name>/config}: creates or updates a connector. */
    Answer putConnector(String name, Map<String, String> config) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(base + "/connectors/" + name + "/config"))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(config))));
    }

    /** {@code GET /connectors/<name>/status}, or null when it is not 200. */
    JsonNode status(String name) throws IOException, InterruptedException {
        Answer answer = get("/connectors/" + name + "/status");
        return answer.status() == 200 ? answer.json() : null;
    }

    /** The connector and all its tasks (at least one) RUNNING. */
    boolean isRunning(String name) throws IOException, InterruptedException {
        JsonNode status = status(name);
        if (status == null || !"RUNNING".equals(status.path("connector").path("state").asText())) {
            return false;
        }
        JsonNode tasks = status.path("tasks");
        if (tasks.size() == 0) {
            return false;
        }
        for (JsonNode task : tasks) {
            if (!"RUNNING".equals(task.path("state").asText())) {
                return false;
            }
        }
        return true;
    }

    /** The worker id ({@code host:port} of its REST listener) that runs task {@code task}, or null. */
    String taskWorker(String name, int task) throws IOException, InterruptedException {
        JsonNode status = status(name);
        if (status == null) {
            return null;
        }
        for (JsonNode t : status.path("tasks")) {
            if (t.path("id").asInt() == task) {
                return t.path("worker_id").asText();
            }
        }
        return null;
    }

    private Answer send(HttpRequest.Builder request) throws IOException, InterruptedException {
        HttpResponse<String> response = HTTP.send(request.timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
        return new Answer(response.statusCode(), response.body());
    }

    @Override
    public String toString() {
        return base;
    }
}

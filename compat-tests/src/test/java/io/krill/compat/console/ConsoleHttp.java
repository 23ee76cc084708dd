package io.krill.compat.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

/** GETs and actions (POST, DELETE) of a broker's console API with the JDK's HTTP client, answers parsed as JSON trees. */
final class ConsoleHttp {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** One answer: status, body, and the body as JSON (null when it is not JSON). */
    record Answer(int status, String body, JsonNode json, HttpResponse<String> response) {
    }

    private final String base;
    private final String authorization;

    ConsoleHttp(int port) {
        this("http://127.0.0.1:" + port, null);
    }

    private ConsoleHttp(String base, String authorization) {
        this.base = base;
        this.authorization = authorization;
    }

    /** The same console with HTTP Basic credentials. */
    ConsoleHttp as(String user, String password) {
        String token = Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
        return new ConsoleHttp(base, "Basic " + token);
    }

    Answer get(String path) throws Exception {
        return send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30)));
    }

    /** An action as the page sends it: JSON body, {@code X-Krill-Console: 1}. */
    Answer post(String path, String json) throws Exception {
        return send("POST", path, json, "application/json", true);
    }

    Answer delete(String path) throws Exception {
        return send("DELETE", path, "", "application/json", true);
    }

    /** Any request: {@code contentType} and the CSRF header as given (null: not sent). */
    Answer send(String method, String path, String body, String contentType, boolean csrfHeader) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30))
                .method(method, HttpRequest.BodyPublishers.ofString(body));
        if (contentType != null) {
            request.header("Content-Type", contentType);
        }
        if (csrfHeader) {
            request.header("X-Krill-Console", "1");
        }
        return send(request);
    }

    private Answer send(HttpRequest.Builder request) throws Exception {
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        HttpResponse<String> response = CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
        JsonNode json = null;
        String type = response.headers().firstValue("Content-Type").orElse("");
        if (type.startsWith("application/json")) {
            json = JSON.readTree(response.body());
        }
        return new Answer(response.statusCode(), response.body(), json, response);
    }

    /** The JSON of a 200 answer; fails with the body otherwise. */
    JsonNode json(String path) throws Exception {
        Answer answer = get(path);
        if (answer.status() != 200) {
            throw new AssertionError("GET " + path + " answered " + answer.status() + ": " + answer.body());
        }
        return answer.json();
    }

    /** The element of {@code array} whose {@code field} is {@code value}, or null. */
    static JsonNode find(JsonNode array, String field, String value) {
        for (JsonNode node : array) {
            if (node.path(field).asText().equals(value)) {
                return node;
            }
        }
        return null;
    }
}

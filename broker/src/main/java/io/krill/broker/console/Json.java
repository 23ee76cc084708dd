package io.krill.broker.console;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collection;

/**
 * The console's JSON, written with Jackson's streaming generator (no object mapping: the API's shapes are
 * written field by field where they are assembled, as docs/console.md draws them).
 *
 * <p>Thread-safety: the factory is thread-safe; each body has its own generator.
 */
final class Json {
    private static final JsonFactory FACTORY = new JsonFactory();

    /** Writes one JSON document. */
    @FunctionalInterface
    interface Body {
        void write(JsonGenerator json) throws IOException;
    }

    private Json() {
    }

    static byte[] bytes(Body body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(1024);
        try (JsonGenerator json = FACTORY.createGenerator(out, JsonEncoding.UTF8)) {
            body.write(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
        }
        return out.toByteArray();
    }

    static byte[] error(String error, String message) {
        return bytes(json -> {
            json.writeStartObject();
            json.writeStringField("error", error);
            json.writeStringField("message", message);
            json.writeEndObject();
        });
    }

    static void intArray(JsonGenerator json, String field, Collection<Integer> values) throws IOException {
        json.writeArrayFieldStart(field);
        for (int v : values) {
            json.writeNumber(v);
        }
        json.writeEndArray();
    }

    /** A number field, or null. */
    static void longOrNull(JsonGenerator json, String field, Long value) throws IOException {
        if (value == null) {
            json.writeNullField(field);
        } else {
            json.writeNumberField(field, value.longValue());
        }
    }
}

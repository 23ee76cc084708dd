package io.krill.wire.generator;

import java.util.List;

/**
 * One schema file.
 *
 * <p>Immutable.
 *
 * @param apiKey                the API key, or null for non-API schemas (headers, data)
 * @param type                  "request", "response", "header", "data", ...
 * @param name                  the schema name, e.g. {@code ProduceRequest}
 * @param validVersions         versions of the message; empty for removed APIs
 * @param flexibleVersions      versions using compact encodings and tagged fields
 * @param fields                top-level fields
 * @param commonStructs         structs shared by several fields
 * @param listeners             listener names (broker, controller) for requests, empty otherwise
 * @param latestVersionUnstable whether the highest version is still unstable
 */
public record MessageSpec(Integer apiKey, String type, String name, Versions validVersions,
                          Versions flexibleVersions, List<FieldSpec> fields, List<StructSpec> commonStructs,
                          List<String> listeners, boolean latestVersionUnstable) {

    public boolean isApi() {
        return apiKey != null;
    }

    public boolean isRequest() {
        return "request".equals(type);
    }

    public boolean isResponse() {
        return "response".equals(type);
    }

    /**
     * A record of a Kafka coordinator's internal topic ({@code "coordinator-key"} or
     * {@code "coordinator-value"}): its {@code apiKey} is the record type that prefixes the key.
     */
    public boolean isCoordinatorRecord() {
        return "coordinator-key".equals(type) || "coordinator-value".equals(type);
    }

    public StructSpec struct() {
        return new StructSpec(name, validVersions, fields);
    }
}

package io.krill.broker.security.authorizer;

/** Kafka's ACL resource types with their wire codes; UNKNOWN and ANY appear only in filters. */
public enum ResourceType {
    UNKNOWN(0), ANY(1), TOPIC(2), GROUP(3), CLUSTER(4), TRANSACTIONAL_ID(5), DELEGATION_TOKEN(6), USER(7);

    /** The one name a CLUSTER resource has. */
    public static final String CLUSTER_NAME = "kafka-cluster";
    private static final ResourceType[] BY_CODE = values();

    private final byte code;

    ResourceType(int code) {
        this.code = (byte) code;
    }

    public byte code() {
        return code;
    }

    /** The type of a wire code; UNKNOWN for codes Kafka does not define. */
    public static ResourceType fromCode(byte code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : UNKNOWN;
    }
}

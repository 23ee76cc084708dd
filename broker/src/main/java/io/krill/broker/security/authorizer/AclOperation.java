package io.krill.broker.security.authorizer;

/**
 * Kafka's ACL operations with their wire codes (bit n of an authorized-operations field is code n).
 * ANY appears only in filters; ALL in an ACL covers every operation.
 */
public enum AclOperation {
    UNKNOWN(0), ANY(1), ALL(2), READ(3), WRITE(4), CREATE(5), DELETE(6), ALTER(7), DESCRIBE(8), CLUSTER_ACTION(9),
    DESCRIBE_CONFIGS(10), ALTER_CONFIGS(11), IDEMPOTENT_WRITE(12), CREATE_TOKENS(13), DESCRIBE_TOKENS(14),
    TWO_PHASE_COMMIT(15);

    private static final AclOperation[] BY_CODE = values();

    private final byte code;

    AclOperation(int code) {
        this.code = (byte) code;
    }

    public byte code() {
        return code;
    }

    public static AclOperation fromCode(byte code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : UNKNOWN;
    }

    /**
     * Whether an ALLOW ACL for this operation grants {@code requested}: ALL grants everything, READ,
     * WRITE, DELETE and ALTER grant DESCRIBE, ALTER_CONFIGS grants DESCRIBE_CONFIGS (Kafka's implied
     * operations). DENY ACLs are not widened this way: they deny only their operation (or ALL).
     */
    public boolean allowImplies(AclOperation requested) {
        if (this == ALL || this == requested) {
            return true;
        }
        return switch (requested) {
            case DESCRIBE -> this == READ || this == WRITE || this == DELETE || this == ALTER;
            case DESCRIBE_CONFIGS -> this == ALTER_CONFIGS;
            default -> false;
        };
    }
}

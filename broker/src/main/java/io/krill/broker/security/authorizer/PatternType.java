package io.krill.broker.security.authorizer;

/**
 * How a resource pattern's name matches resource names: LITERAL (the name, or every resource when it is
 * "*") and PREFIXED (names starting with it) are stored; ANY and MATCH appear only in filters.
 */
public enum PatternType {
    UNKNOWN(0), ANY(1), MATCH(2), LITERAL(3), PREFIXED(4);

    private static final PatternType[] BY_CODE = values();

    private final byte code;

    PatternType(int code) {
        this.code = (byte) code;
    }

    public byte code() {
        return code;
    }

    public static PatternType fromCode(byte code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : UNKNOWN;
    }

    /** True for the types a stored ACL may have. */
    public boolean isSpecific() {
        return this == LITERAL || this == PREFIXED;
    }
}

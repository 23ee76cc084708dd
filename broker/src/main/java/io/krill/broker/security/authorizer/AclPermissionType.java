package io.krill.broker.security.authorizer;

/** Whether an ACL allows or denies; ANY appears only in filters. */
public enum AclPermissionType {
    UNKNOWN(0), ANY(1), DENY(2), ALLOW(3);

    private static final AclPermissionType[] BY_CODE = values();

    private final byte code;

    AclPermissionType(int code) {
        this.code = (byte) code;
    }

    public byte code() {
        return code;
    }

    public static AclPermissionType fromCode(byte code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : UNKNOWN;
    }
}

package io.krill.wire.record;

/**
 * The codec of a record batch, bits 0-2 of its attributes. Ids are the protocol's.
 */
public enum CompressionType {
    NONE(0, "none"),
    GZIP(1, "gzip"),
    SNAPPY(2, "snappy"),
    LZ4(3, "lz4"),
    ZSTD(4, "zstd");

    private static final CompressionType[] BY_ID = values();

    public final int id;
    public final String configName;

    CompressionType(int id, String configName) {
        this.id = id;
        this.configName = configName;
    }

    /** The codec with this id, or {@code null} for ids 5-7, which the protocol does not define. */
    public static CompressionType forId(int id) {
        return id >= 0 && id < BY_ID.length ? BY_ID[id] : null;
    }

    /** The codec named as in the {@code compression.type} config, or {@code null}. */
    public static CompressionType forName(String name) {
        for (CompressionType type : BY_ID) {
            if (type.configName.equalsIgnoreCase(name)) {
                return type;
            }
        }
        return null;
    }
}

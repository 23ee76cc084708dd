package io.krill.broker.config;

import java.util.Objects;

/**
 * One operation of an IncrementalAlterConfigs request. Immutable.
 *
 * @param name  the key
 * @param op    what to do
 * @param value the value (SET) or comma-separated items (APPEND/SUBTRACT); ignored for DELETE
 */
public record AlterConfigOp(String name, OpType op, String value) {
    /** The operation, with its id on the wire. */
    public enum OpType {
        SET(0),
        DELETE(1),
        APPEND(2),
        SUBTRACT(3);

        private final int id;

        OpType(int id) {
            this.id = id;
        }

        public int id() {
            return id;
        }

        /** @throws IllegalArgumentException for an unknown id */
        public static OpType forId(int id) {
            for (OpType t : values()) {
                if (t.id == id) {
                    return t;
                }
            }
            throw new IllegalArgumentException("Unknown config operation type " + id);
        }
    }

    public AlterConfigOp {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(op, "op");
    }
}

package io.krill.broker.config;

import java.util.ArrayList;
import java.util.List;
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

    /**
     * The comma-separated list {@code current} (null: empty) with this APPEND (items not there yet, in
     * order) or SUBTRACT (each item's first occurrence removed) applied, as Kafka applies them to LIST keys.
     */
    public String applyToList(String current) {
        if (op != OpType.APPEND && op != OpType.SUBTRACT) {
            throw new IllegalStateException(op + " is not a list operation");
        }
        List<String> items = new ArrayList<>(ConfigType.splitList(current));
        for (String item : ConfigType.splitList(value)) {
            if (op == OpType.APPEND && !items.contains(item)) {
                items.add(item);
            } else if (op == OpType.SUBTRACT) {
                items.remove(item);
            }
        }
        return String.join(",", items);
    }
}

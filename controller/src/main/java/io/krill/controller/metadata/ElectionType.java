package io.krill.controller.metadata;

import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;

/**
 * The kinds of leader election an operator may ask for (Kafka's ElectLeaders {@code electionType},
 * KIP-460); the values are the wire's. Immutable.
 */
public enum ElectionType {
    /** Move leadership to the first replica of the assignment, when it is live and in the ISR. */
    PREFERRED((byte) 0),
    /** Give a partition that has no leader a live replica as leader, from outside the ISR if need be. */
    UNCLEAN((byte) 1);

    private final byte value;

    ElectionType(byte value) {
        this.value = value;
    }

    public byte value() {
        return value;
    }

    /** The type of wire value {@code value}; INVALID_REQUEST for an unknown one. */
    public static ElectionType forValue(byte value) {
        for (ElectionType type : values()) {
            if (type.value == value) {
                return type;
            }
        }
        throw new ApiException(Errors.INVALID_REQUEST, "Unknown election type " + value);
    }
}

package io.krill.wire.record;

/** Whether a batch's timestamps were set by the producer or by the broker on append (bit 3 of attributes). */
public enum TimestampType {
    CREATE_TIME,
    LOG_APPEND_TIME
}

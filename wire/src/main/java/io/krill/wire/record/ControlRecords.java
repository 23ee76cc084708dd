package io.krill.wire.record;

import io.netty.buffer.ByteBuf;

/**
 * Layout of the records of control batches, which carry broker metadata instead of user data.
 *
 * <pre>
 * key (every control record):    version int16 (0) | type int16 ({@link ControlRecordType})
 * value of ABORT / COMMIT:       version int16 (0) | coordinatorEpoch int32
 * </pre>
 * Readers accept key and value versions above 0 and read the version 0 fields, as Kafka's do; a negative
 * version or a field too short for version 0 is corrupt.
 *
 * <p>Stateless, thread-safe.
 */
public final class ControlRecords {
    public static final short KEY_VERSION = 0;
    public static final int KEY_SIZE = 4;
    public static final short END_TRANSACTION_VALUE_VERSION = 0;
    public static final int END_TRANSACTION_VALUE_SIZE = 6;

    private ControlRecords() {
    }

    /**
     * The type of a control record (one of a control batch).
     *
     * @throws CorruptRecordException if the key is null, shorter than 4 bytes or of negative version
     */
    public static ControlRecordType type(Record record) {
        if (record.keySize() < KEY_SIZE) {
            throw new CorruptRecordException("control record key of " + record.keySize() + " bytes, needs " + KEY_SIZE);
        }
        ByteBuf buffer = record.buffer();
        short version = buffer.getShort(record.keyIndex());
        if (version < 0) {
            throw new CorruptRecordException("control record key version " + version);
        }
        return ControlRecordType.forId(buffer.getShort(record.keyIndex() + 2));
    }

    /**
     * The coordinator epoch of a transaction marker (an ABORT or COMMIT control record).
     *
     * @throws CorruptRecordException if the value is null, too short or of negative version
     */
    public static int coordinatorEpoch(Record record) {
        if (record.valueSize() < END_TRANSACTION_VALUE_SIZE) {
            throw new CorruptRecordException("transaction marker value of " + record.valueSize() + " bytes, needs "
                    + END_TRANSACTION_VALUE_SIZE);
        }
        ByteBuf buffer = record.buffer();
        short version = buffer.getShort(record.valueIndex());
        if (version < 0) {
            throw new CorruptRecordException("transaction marker version " + version);
        }
        return buffer.getInt(record.valueIndex() + 2);
    }

    static void writeKey(ByteBuf out, ControlRecordType type) {
        out.writeShort(KEY_VERSION);
        out.writeShort(type.id);
    }

    static void writeEndTransactionValue(ByteBuf out, int coordinatorEpoch) {
        out.writeShort(END_TRANSACTION_VALUE_VERSION);
        out.writeInt(coordinatorEpoch);
    }
}

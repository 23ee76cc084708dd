package io.krill.log.record;

import io.krill.wire.record.CorruptRecordException;
import io.krill.wire.record.RecordBatch;
import io.netty.buffer.ByteBuf;

/**
 * The single record of a control batch (always uncompressed), parsed by hand: key = int16 version, int16
 * type (0 abort, 1 commit, others e.g. leader-change markers are "other"); for commit/abort the value is
 * EndTxnMarker = int16 version, int32 coordinator epoch.
 *
 * @param type             the control type, {@link #ABORT}, {@link #COMMIT} or another value
 * @param coordinatorEpoch the transaction coordinator's epoch from the value, or -1 if absent
 */
public record ControlRecord(short type, int coordinatorEpoch) {
    public static final short ABORT = 0;
    public static final short COMMIT = 1;

    public boolean isTransactionMarker() {
        return type == ABORT || type == COMMIT;
    }

    public boolean isAbort() {
        return type == ABORT;
    }

    /**
     * Parses the first record of the control batch at absolute {@code batchIndex} of {@code buf} (the
     * whole batch must be readable).
     *
     * @throws CorruptRecordException if the batch is not an uncompressed control batch with a parsable record
     */
    public static ControlRecord parse(ByteBuf buf, int batchIndex) {
        RecordBatch batch = new RecordBatch().wrap(buf, batchIndex);
        if (!batch.isControl() || batch.recordCount() < 1
                || batch.compression() != io.krill.wire.record.CompressionType.NONE) {
            throw new CorruptRecordException("not an uncompressed control batch with a record: " + batch);
        }
        int end = batchIndex + batch.sizeInBytes();
        Varints in = new Varints().reset(buf, batchIndex + RecordBatch.RECORDS_OFFSET, end);
        int length = in.readVarint();
        int recordEnd = in.index() + length;
        if (length <= 0 || recordEnd > end) {
            throw new CorruptRecordException("control record length " + length + " overruns its batch");
        }
        in.reset(buf, in.index(), recordEnd);
        in.readByte(); // attributes
        in.readVarlong(); // timestamp delta
        in.readVarint(); // offset delta
        int keyLength = in.readVarint();
        if (keyLength < 4) {
            throw new CorruptRecordException("control record key of " + keyLength + " bytes");
        }
        int keyIndex = in.index();
        in.skip(keyLength);
        short type = buf.getShort(keyIndex + 2);
        int coordinatorEpoch = -1;
        int valueLength = in.readVarint();
        if (valueLength >= 6) {
            coordinatorEpoch = buf.getInt(in.index() + 2);
        }
        return new ControlRecord(type, coordinatorEpoch);
    }
}

package io.krill.broker.share;

import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks the shape of one partition's acknowledgement batches, as ShareFetch and ShareAcknowledge carry
 * them, before any is applied: offsets in order and not overlapping, one type for the whole batch or one
 * per offset, known types (RENEW only in a request that says so, v2). A bad batch is INVALID_REQUEST for
 * the partition, as in Kafka. Checks the count before building per-offset lists.
 *
 * <p>Thread-safety: stateless.
 */
public final class Acknowledgements {
    /** One batch as read from a request. */
    public record Batch(long firstOffset, long lastOffset, List<Byte> types) {
    }

    private Acknowledgements() {
    }

    /** The batches as {@link SharePartition.Acknowledgement}s, or INVALID_REQUEST. */
    public static List<SharePartition.Acknowledgement> parse(List<Batch> batches, boolean renewAllowed) {
        List<SharePartition.Acknowledgement> acks = new ArrayList<>(batches.size());
        long previousLast = -1;
        for (Batch batch : batches) {
            if (batch.firstOffset() < 0 || batch.lastOffset() < batch.firstOffset()) {
                throw invalid("Acknowledgement batch " + batch.firstOffset() + "-" + batch.lastOffset() + " is empty");
            }
            if (batch.firstOffset() <= previousLast) {
                throw invalid("Acknowledgement batches overlap or are out of order at " + batch.firstOffset());
            }
            previousLast = batch.lastOffset();
            List<Byte> types = batch.types();
            long span = batch.lastOffset() - batch.firstOffset() + 1;
            if (types == null || types.isEmpty() || (types.size() != 1 && types.size() != span)) {
                throw invalid("Acknowledgement batch " + batch.firstOffset() + "-" + batch.lastOffset() + " has "
                        + (types == null ? 0 : types.size()) + " types, expected 1 or " + span);
            }
            List<AcknowledgeType> parsed = new ArrayList<>(types.size());
            for (Byte id : types) {
                AcknowledgeType type = id == null ? null : AcknowledgeType.of(id);
                if (type == null || (type == AcknowledgeType.RENEW && !renewAllowed)) {
                    throw invalid("Invalid acknowledge type " + id);
                }
                parsed.add(type);
            }
            acks.add(new SharePartition.Acknowledgement(batch.firstOffset(), batch.lastOffset(), parsed));
        }
        return acks;
    }

    private static ApiException invalid(String message) {
        return new ApiException(Errors.INVALID_REQUEST, message);
    }
}

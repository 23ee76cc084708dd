package io.krill.controller.cluster;

import io.krill.controller.metadata.PartitionState;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.UUID;

/**
 * The binary form of one partition's state, shared by the partition record ({@link MetadataRecords})
 * and the entries of a {@link PartitionDigest}, so that the two cannot drift apart.
 *
 * <p>Layout (big-endian), 64 bytes for three replicas all in sync:
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                 topic id: 16 bytes (4 words)                  |
 *  +---------------------------------------------------------------+
 *  | partition | leader | leader epoch | partition epoch (4 x i32) |
 *  +---------------------------------------------------------------+
 *  | replicas, isr, adding, removing: each a u16 count, then i32s  |
 *  +---------------------------------------------------------------+
 *  | layout 2 only: elr, last known elr, the same way              |
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>Two layouts, told apart by the magic of the record or digest that holds them: {@link #LAYOUT_1}
 * (the first four lists) and {@link #LAYOUT_2} (then the eligible leader replicas and the last known
 * ones). A state without eligible leader replicas is written in layout 1 ({@link #layoutOf}), so a
 * cluster that never turns the feature on writes the very bytes it wrote before the feature existed,
 * and records written before it still read.
 *
 * <p>Stateless; thread-safe.
 */
final class PartitionStateCodec {
    /** The fewest bytes an encoded state takes: the id, four ints and four empty lists. */
    static final int MIN_SIZE = 16 + 4 * 4 + 4 * 2;
    /** Topic id, four ints, replicas, ISR, adding and removing replicas. */
    static final int LAYOUT_1 = 1;
    /** Layout 1, then the eligible leader replicas and the last known ones. */
    static final int LAYOUT_2 = 2;

    private PartitionStateCodec() {
    }

    /** A decoded state and the id of the topic it belongs to. */
    record Decoded(UUID topicId, PartitionState state) {
    }

    /** The layout {@code state} needs: layout 1 unless it has eligible leader replicas. */
    static int layoutOf(PartitionState state) {
        return state.hasEligibleLeaderReplicas() ? LAYOUT_2 : LAYOUT_1;
    }

    static int size(PartitionState state, int layout) {
        int size = MIN_SIZE + 4 * (state.replicas().size() + state.isr().size() + state.addingReplicas().size()
                + state.removingReplicas().size());
        if (layout >= LAYOUT_2) {
            size += 2 * 2 + 4 * (state.eligibleLeaderReplicas().size() + state.lastKnownElr().size());
        }
        return size;
    }

    /**
     * Writes {@code state} in {@code layout}.
     *
     * @throws IllegalArgumentException when layout 1 is asked for a state with eligible leader replicas
     */
    static void write(DataOutputStream out, UUID topicId, PartitionState state, int layout) throws IOException {
        if (layout < LAYOUT_2 && state.hasEligibleLeaderReplicas()) {
            throw new IllegalArgumentException("layout " + layout + " cannot hold the eligible leader replicas of "
                    + state);
        }
        out.writeLong(topicId.getMostSignificantBits());
        out.writeLong(topicId.getLeastSignificantBits());
        out.writeInt(state.partition());
        out.writeInt(state.leader());
        out.writeInt(state.leaderEpoch());
        out.writeInt(state.partitionEpoch());
        writeList(out, state.replicas());
        writeList(out, state.isr());
        writeList(out, state.addingReplicas());
        writeList(out, state.removingReplicas());
        if (layout >= LAYOUT_2) {
            writeList(out, state.eligibleLeaderReplicas());
            writeList(out, state.lastKnownElr());
        }
    }

    private static void writeList(DataOutputStream out, List<Integer> ids) throws IOException {
        out.writeShort(ids.size());
        for (int id : ids) {
            out.writeInt(id);
        }
    }

    /**
     * Reads one state at {@code in}'s position, or returns null when the bytes cannot be one (truncated,
     * a count larger than what is left, a state {@link PartitionState} refuses); nothing is allocated
     * for a count before it is checked against the bytes that remain.
     */
    static Decoded read(ByteBuffer in, int layout) {
        try {
            UUID topicId = new UUID(in.getLong(), in.getLong());
            int partition = in.getInt();
            int leader = in.getInt();
            int leaderEpoch = in.getInt();
            int partitionEpoch = in.getInt();
            List<Integer> replicas = readList(in);
            List<Integer> isr = readList(in);
            List<Integer> adding = readList(in);
            List<Integer> removing = readList(in);
            List<Integer> elr = layout >= LAYOUT_2 ? readList(in) : List.of();
            List<Integer> lastKnownElr = layout >= LAYOUT_2 ? readList(in) : List.of();
            if (replicas == null || isr == null || adding == null || removing == null || elr == null
                    || lastKnownElr == null || partition < 0) {
                return null;
            }
            return new Decoded(topicId, new PartitionState(partition, leader, leaderEpoch, replicas, isr,
                    partitionEpoch, adding, removing, elr, lastKnownElr));
        } catch (BufferUnderflowException | IllegalArgumentException e) {
            return null;
        }
    }

    private static List<Integer> readList(ByteBuffer in) {
        int n = Short.toUnsignedInt(in.getShort());
        if (n > in.remaining() / 4) {
            return null;
        }
        Integer[] ids = new Integer[n];
        for (int i = 0; i < n; i++) {
            ids[i] = in.getInt();
        }
        return List.of(ids);
    }
}

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
 * </pre>
 *
 * <p>Stateless; thread-safe.
 */
final class PartitionStateCodec {
    /** The fewest bytes an encoded state takes: the id, four ints and four empty lists. */
    static final int MIN_SIZE = 16 + 4 * 4 + 4 * 2;

    private PartitionStateCodec() {
    }

    /** A decoded state and the id of the topic it belongs to. */
    record Decoded(UUID topicId, PartitionState state) {
    }

    static int size(PartitionState state) {
        return MIN_SIZE + 4 * (state.replicas().size() + state.isr().size() + state.addingReplicas().size()
                + state.removingReplicas().size());
    }

    static void write(DataOutputStream out, UUID topicId, PartitionState state) throws IOException {
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
    static Decoded read(ByteBuffer in) {
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
            if (replicas == null || isr == null || adding == null || removing == null || partition < 0) {
                return null;
            }
            return new Decoded(topicId, new PartitionState(partition, leader, leaderEpoch, replicas, isr,
                    partitionEpoch, adding, removing));
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

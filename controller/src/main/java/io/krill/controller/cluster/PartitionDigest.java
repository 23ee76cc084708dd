package io.krill.controller.cluster;

import io.krill.controller.metadata.PartitionState;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The content of one digest node: every partition record that one multi-op writes, so that the other
 * brokers read one node per multi instead of one per record. ZooKeeper's watch events carry no data,
 * only the path and the zxid of the transaction that fired them; a multi is one transaction, so a
 * digest node whose modification zxid equals a partition event's zxid was written by that very multi
 * and holds exactly the record that event announces. A digest that has since been overwritten (its
 * zxid differs) is simply not used: the record is read as before. The digest is therefore an
 * optimisation only; the partition nodes stay the records of truth.
 *
 * <p>Layout (big-endian):
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |          magic 'KPD1' (layout 1) or 'KPD2' (layout 2)         |
 *  +---------------------------------------------------------------+
 *  |                      entry count                              |
 *  +---------------------------------------------------------------+
 *  then per entry:
 *  | topic length (u16)            | topic, UTF-8 ...              |
 *  | the state as {@link PartitionStateCodec} lays it out          |
 * </pre>
 * A digest is in layout 2 when any of its states has eligible leader replicas, else in layout 1.
 *
 * <p>Stateless; thread-safe.
 */
final class PartitionDigest {
    static final int MAGIC = 0x4b504431; // "KPD1"
    static final int MAGIC_2 = 0x4b504432; // "KPD2"

    private PartitionDigest() {
    }

    /** One record of a digest: the topic it belongs to and its state. */
    record Entry(String topic, UUID topicId, PartitionState state) {
    }

    static byte[] encode(List<Entry> entries) {
        int layout = PartitionStateCodec.LAYOUT_1;
        for (Entry entry : entries) {
            layout = Math.max(layout, PartitionStateCodec.layoutOf(entry.state()));
        }
        int size = 8;
        for (Entry entry : entries) {
            size += 2 + entry.topic().length() * 3 + PartitionStateCodec.size(entry.state(), layout);
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(size);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(layout == PartitionStateCodec.LAYOUT_1 ? MAGIC : MAGIC_2);
            out.writeInt(entries.size());
            for (Entry entry : entries) {
                byte[] topic = entry.topic().getBytes(StandardCharsets.UTF_8);
                out.writeShort(topic.length);
                out.write(topic);
                PartitionStateCodec.write(out, entry.topicId(), entry.state(), layout);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
        }
        return bytes.toByteArray();
    }

    /**
     * The entries of {@code data}, or null when it is not a digest (an empty node, as created, or bytes
     * that do not parse): the caller then reads the records themselves.
     */
    static List<Entry> decode(byte[] data) {
        if (data == null || data.length < 8) {
            return null;
        }
        ByteBuffer in = ByteBuffer.wrap(data);
        try {
            int magic = in.getInt();
            if (magic != MAGIC && magic != MAGIC_2) {
                return null;
            }
            int layout = magic == MAGIC ? PartitionStateCodec.LAYOUT_1 : PartitionStateCodec.LAYOUT_2;
            int count = in.getInt();
            // every entry takes at least its topic's length and a state: a count the data cannot hold is
            // refused before anything is allocated for it
            if (count < 0 || count > in.remaining() / (2 + PartitionStateCodec.MIN_SIZE)) {
                return null;
            }
            List<Entry> entries = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                int topicLength = Short.toUnsignedInt(in.getShort());
                if (topicLength > in.remaining()) {
                    return null;
                }
                String topic = new String(data, in.position(), topicLength, StandardCharsets.UTF_8);
                in.position(in.position() + topicLength);
                PartitionStateCodec.Decoded decoded = PartitionStateCodec.read(in, layout);
                if (decoded == null) {
                    return null;
                }
                entries.add(new Entry(topic, decoded.topicId(), decoded.state()));
            }
            return in.hasRemaining() ? null : entries;
        } catch (BufferUnderflowException e) {
            return null; // truncated
        }
    }
}

package io.krill.compat.cluster;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.MetadataResponse.PartitionMetadata;
import org.apache.kafka.common.requests.MetadataResponse.TopicMetadata;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * One request on a plain socket to one chosen broker, encoded and decoded by kafka-clients. For what the
 * Admin client cannot show: the leader epoch of a partition (its {@code TopicPartitionInfo} has none),
 * and the answer of one particular broker (an Admin client sends each call to whichever broker it likes).
 */
public final class RawRequests {
    private static final short METADATA_VERSION = 12;

    private RawRequests() {
    }

    /** Sends {@code request} at {@code version} to {@code address} ("host:port") and returns the answer. */
    static <R extends AbstractResponse> R send(String address, AbstractRequest.Builder<?> request, short version) {
        return send(address, request, version, 5_000);
    }

    /** As {@link #send(String, AbstractRequest.Builder, short)}, waiting up to {@code timeoutMs} for the answer. */
    @SuppressWarnings("unchecked")
    public static <R extends AbstractResponse> R send(String address, AbstractRequest.Builder<?> request, short version,
                                                      int timeoutMs) {
        String[] hostPort = address.split(":");
        RequestHeader header = new RequestHeader(request.apiKey(), version, "krill-cluster-probe", 1);
        ByteBuffer bytes = request.build(version).serializeWithHeader(header);
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])), 5_000);
            socket.setSoTimeout(timeoutMs);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.writeInt(bytes.remaining());
            out.write(bytes.array(), bytes.arrayOffset() + bytes.position(), bytes.remaining());
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte[] response = new byte[in.readInt()];
            in.readFully(response);
            return (R) AbstractResponse.parseResponse(ByteBuffer.wrap(response), header);
        } catch (IOException e) {
            throw new UncheckedIOException(request.apiKey() + " request to " + address + " failed", e);
        }
    }

    /** Metadata v12 for {@code topics} (no auto-creation); an empty list asks for brokers only. */
    public static MetadataResponse metadata(String address, List<String> topics) {
        return send(address, new MetadataRequest.Builder(topics, false), METADATA_VERSION);
    }

    /** The partition as {@code address} describes it in Metadata; fails if the broker names an error. */
    static PartitionMetadata partition(String address, String topic, int partition) {
        for (TopicMetadata t : metadata(address, List.of(topic)).topicMetadata()) {
            if (t.topic().equals(topic)) {
                if (t.error() != Errors.NONE) {
                    throw new IllegalStateException("metadata of " + topic + " from " + address + ": " + t.error());
                }
                for (PartitionMetadata p : t.partitionMetadata()) {
                    if (p.partition() == partition) {
                        return p;
                    }
                }
            }
        }
        throw new IllegalStateException("no metadata for " + topic + "-" + partition + " from " + address);
    }
}

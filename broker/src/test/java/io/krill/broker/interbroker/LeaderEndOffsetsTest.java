package io.krill.broker.interbroker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.security.InterBrokerConnector;
import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.ListOffsetsRequest;
import io.krill.wire.message.ListOffsetsResponse;
import io.krill.wire.message.RequestHeader;
import io.krill.wire.message.ResponseHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link LeaderEndOffsets} without a cluster: a partition led here is answered at once from the local high
 * watermark; another leader is asked with ListOffsets (latest, read_uncommitted, as a consumer), here a fake
 * leader on a loopback socket; whatever cannot be told is -1, never a failed future.
 */
class LeaderEndOffsetsTest {
    private static final String LISTENER = "INTERNAL";
    private static final int SELF = 1;
    private static final int LEADER = 2;
    private static final int GONE = 3;

    private FakeLeader leader;
    private int deadPort;
    private final Map<String, Long> localLeaders = new ConcurrentHashMap<>();
    private LeaderEndOffsets endOffsets;

    @BeforeEach
    void setUp() throws IOException {
        leader = new FakeLeader();
        try (ServerSocket closed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            deadPort = closed.getLocalPort(); // nothing listens there once closed
        }
        MetadataImage image = new MetadataImage("cluster", SELF, List.of(
                broker(SELF, 1), broker(LEADER, leader.port()), broker(GONE, deadPort)), List.of(
                topic("t", SELF, LEADER, LEADER, LEADER, PartitionState.NO_LEADER),
                topic("elsewhere", GONE)));
        endOffsets = new LeaderEndOffsets(SELF, () -> image,
                (topic, partition) -> localLeaders.getOrDefault(topic + "-" + partition, -1L),
                LISTENER, InterBrokerConnector.plaintext(), 3_000);
    }

    @AfterEach
    void tearDown() throws IOException {
        endOffsets.close();
        leader.close();
    }

    private static BrokerInfo broker(int id, int port) {
        return new BrokerInfo(id, null, Map.of(LISTENER, new BrokerInfo.Endpoint(LISTENER, "127.0.0.1", port)));
    }

    /** One partition per given leader, in order. */
    private static TopicImage topic(String name, int... leaders) {
        List<PartitionState> partitions = new ArrayList<>();
        for (int i = 0; i < leaders.length; i++) {
            List<Integer> replicas = leaders[i] == PartitionState.NO_LEADER ? List.of(GONE) : List.of(leaders[i]);
            partitions.add(new PartitionState(i, leaders[i], 3, replicas, replicas, 0));
        }
        return new TopicImage(name, UUID.randomUUID(), partitions, Map.of(), false);
    }

    private static long get(CompletableFuture<Long> future) throws Exception {
        return future.get(10, TimeUnit.SECONDS);
    }

    @Test
    void aPartitionLedHereIsItsHighWatermarkAtOnce() throws Exception {
        localLeaders.put("t-0", 42L);
        CompletableFuture<Long> answer = endOffsets.endOffset("t", 0);
        assertTrue(answer.isDone());
        assertEquals(42L, get(answer));
        assertEquals(0, leader.requests.size());
    }

    @Test
    void aPartitionLedHereByTheImageButNotYetByItsReplicaIsUnknown() throws Exception {
        assertEquals(-1L, get(endOffsets.endOffset("t", 0)));
        assertEquals(0, leader.requests.size());
    }

    @Test
    void unknownPartitionsAndPartitionsWithoutLeaderAreUnknown() throws Exception {
        assertEquals(-1L, get(endOffsets.endOffset("no-such-topic", 0)));
        assertEquals(-1L, get(endOffsets.endOffset("t", 9)));
        assertEquals(-1L, get(endOffsets.endOffset("t", -1)));
        assertEquals(-1L, get(endOffsets.endOffset("t", 4)));
        assertEquals(0, leader.requests.size());
    }

    @Test
    void anotherLeaderIsAskedForTheLatestOffsetAsAConsumerAsksIt() throws Exception {
        leader.answers.put("t-1", 10L);
        leader.answers.put("t-2", 20L);
        leader.answers.put("t-3", 0L);
        CompletableFuture<Long> one = endOffsets.endOffset("t", 1);
        CompletableFuture<Long> two = endOffsets.endOffset("t", 2);
        CompletableFuture<Long> twoAgain = endOffsets.endOffset("t", 2);
        CompletableFuture<Long> three = endOffsets.endOffset("t", 3);
        assertEquals(10L, get(one));
        assertEquals(20L, get(two));
        assertEquals(20L, get(twoAgain));
        assertEquals(0L, get(three));
        assertFalse(leader.requests.isEmpty());
        Set<String> asked = new HashSet<>();
        for (ListOffsetsRequest request : leader.requests) {
            assertEquals(-1, request.replicaId());
            assertEquals(0, request.isolationLevel());
            Set<String> inThisRequest = new HashSet<>();
            for (ListOffsetsRequest.ListOffsetsTopic t : request.topics()) {
                for (ListOffsetsRequest.ListOffsetsPartition p : t.partitions()) {
                    assertEquals(-1L, p.timestamp());
                    assertTrue(inThisRequest.add(t.name() + "-" + p.partitionIndex()), "a partition once per request");
                }
            }
            asked.addAll(inThisRequest);
        }
        assertEquals(Set.of("t-1", "t-2", "t-3"), asked);
        assertTrue(leader.requests.size() <= 4);
    }

    @Test
    void aPartitionTheLeaderRefusesOrLeavesOutIsUnknown() throws Exception {
        leader.answers.put("t-1", 10L);
        leader.refused.put("t-2", Errors.NOT_LEADER_OR_FOLLOWER);
        leader.leftOut.add("t-3");
        CompletableFuture<Long> one = endOffsets.endOffset("t", 1);
        CompletableFuture<Long> two = endOffsets.endOffset("t", 2);
        CompletableFuture<Long> three = endOffsets.endOffset("t", 3);
        assertEquals(10L, get(one));
        assertEquals(-1L, get(two));
        assertEquals(-1L, get(three));
    }

    @Test
    void anUnreachableLeaderIsUnknown() throws Exception {
        assertEquals(-1L, get(endOffsets.endOffset("elsewhere", 0)));
    }

    @Test
    void afterCloseEverythingRemoteIsUnknown() throws Exception {
        localLeaders.put("t-0", 7L);
        endOffsets.close();
        assertEquals(-1L, get(endOffsets.endOffset("t", 1)));
        assertEquals(7L, get(endOffsets.endOffset("t", 0)));
    }

    /** A leader on a loopback socket answering ListOffsets from its maps; keeps the requests it read. */
    private static final class FakeLeader implements AutoCloseable {
        final Map<String, Long> answers = new ConcurrentHashMap<>();
        final Map<String, Errors> refused = new ConcurrentHashMap<>();
        final Set<String> leftOut = ConcurrentHashMap.newKeySet();
        final List<ListOffsetsRequest> requests = new CopyOnWriteArrayList<>();
        private final ServerSocket server;
        private final List<Socket> sockets = new CopyOnWriteArrayList<>();
        private final Thread acceptor;

        FakeLeader() throws IOException {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            acceptor = new Thread(this::accept, "fake-leader");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        int port() {
            return server.getLocalPort();
        }

        private void accept() {
            while (!server.isClosed()) {
                try {
                    Socket socket = server.accept();
                    sockets.add(socket);
                    Thread serving = new Thread(() -> serve(socket), "fake-leader-connection");
                    serving.setDaemon(true);
                    serving.start();
                } catch (IOException e) {
                    return;
                }
            }
        }

        private void serve(Socket socket) {
            try (socket) {
                DataInputStream in = new DataInputStream(socket.getInputStream());
                OutputStream out = socket.getOutputStream();
                while (true) {
                    byte[] frame = new byte[in.readInt()];
                    in.readFully(frame);
                    ByteBuf buf = Unpooled.wrappedBuffer(frame);
                    short version = buf.getShort(2);
                    RequestHeader header = new RequestHeader();
                    header.read(buf, ApiKeys.LIST_OFFSETS.requestHeaderVersion(version));
                    assertEquals(ApiKeys.LIST_OFFSETS.id(), header.requestApiKey());
                    ListOffsetsRequest request = new ListOffsetsRequest();
                    request.read(buf, version);
                    requests.add(request);
                    ByteBuf answer = Unpooled.buffer();
                    answer.writeInt(0);
                    new ResponseHeader().setCorrelationId(header.correlationId())
                            .write(answer, ApiKeys.LIST_OFFSETS.responseHeaderVersion(version));
                    respond(request).write(answer, version);
                    answer.setInt(0, answer.readableBytes() - 4);
                    byte[] bytes = new byte[answer.readableBytes()];
                    answer.readBytes(bytes);
                    out.write(bytes);
                    out.flush();
                }
            } catch (IOException e) {
                // the client went away, or the test ended
            }
        }

        private ListOffsetsResponse respond(ListOffsetsRequest request) {
            ListOffsetsResponse response = new ListOffsetsResponse();
            for (ListOffsetsRequest.ListOffsetsTopic t : request.topics()) {
                ListOffsetsResponse.ListOffsetsTopicResponse topic =
                        new ListOffsetsResponse.ListOffsetsTopicResponse().setName(t.name());
                response.topics().add(topic);
                for (ListOffsetsRequest.ListOffsetsPartition p : t.partitions()) {
                    String key = t.name() + "-" + p.partitionIndex();
                    if (leftOut.contains(key)) {
                        continue;
                    }
                    ListOffsetsResponse.ListOffsetsPartitionResponse partition =
                            new ListOffsetsResponse.ListOffsetsPartitionResponse().setPartitionIndex(p.partitionIndex())
                                    .setTimestamp(-1).setLeaderEpoch(3);
                    Errors error = refused.getOrDefault(key, answers.containsKey(key) ? Errors.NONE
                            : Errors.UNKNOWN_TOPIC_OR_PARTITION);
                    partition.setErrorCode(error.code()).setOffset(error == Errors.NONE ? answers.get(key) : -1L);
                    topic.partitions().add(partition);
                }
            }
            return response;
        }

        @Override
        public void close() throws IOException {
            server.close();
            for (Socket socket : sockets) {
                socket.close();
            }
        }
    }
}

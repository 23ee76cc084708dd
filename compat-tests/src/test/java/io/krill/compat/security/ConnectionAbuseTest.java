package io.krill.compat.security;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.KrillBrokerExtension;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.ApiVersionsRequest;
import io.krill.wire.message.ApiVersionsResponse;
import io.netty.buffer.PooledByteBufAllocator;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Junk before authentication: thousands of connections to a SASL listener sending garbage, half frames
 * and oversized length prefixes must not grow the broker's memory beyond a bound nor stop an
 * authenticated producer; and {@code max.connections.per.ip} refuses connections beyond its limit at
 * accept time and gives the slot back when one closes.
 */
class ConnectionAbuseTest {
    static final int CONNECTIONS = 3000;
    static final long MEMORY_BOUND = 96L * 1024 * 1024;

    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension()
            .with("listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0")
            .with("sasl.enabled.mechanisms", "PLAIN")
            .with("sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required "
                    + "user_alice=\"alice-secret\";")
            .with("socket.listen.backlog.size", "4096")
            .with("max.connections.per.ip.overrides", "127.0.0.2:5");

    private static int port(int listener) {
        return KRILL.broker().boundAddresses().get(listener).getPort();
    }

    private static long usedMemory() {
        System.gc();
        Runtime rt = Runtime.getRuntime();
        var metric = PooledByteBufAllocator.DEFAULT.metric();
        return rt.totalMemory() - rt.freeMemory() + metric.usedDirectMemory() + metric.usedHeapMemory();
    }

    @Test
    void junkFromThousandsOfUnauthenticatedConnectionsIsBounded() throws Exception {
        String topic = "abuse-survivor";
        Map<String, String> alice = SaslListenerTest.plain("alice", "alice-secret");
        String bootstrap = "127.0.0.1:" + port(1);
        SecureClients.createTopic(bootstrap, alice, topic, 1, (short) 1);

        AtomicBoolean flooding = new AtomicBoolean(true);
        AtomicInteger acked = new AtomicInteger();
        AtomicReference<Throwable> producerFailure = new AtomicReference<>();
        Thread producing = new Thread(() -> {
            try (KafkaProducer<String, String> producer = SecureClients.producer(bootstrap, alice)) {
                while (flooding.get()) {
                    Future<RecordMetadata> ack = producer.send(new ProducerRecord<>(topic, 0, null, "during-flood"));
                    ack.get(20, TimeUnit.SECONDS);
                    acked.incrementAndGet();
                }
            } catch (Throwable t) {
                producerFailure.set(t);
            }
        }, "authenticated-producer");
        producing.start();
        await().atMost(Duration.ofSeconds(20)).until(() -> acked.get() > 0 || producerFailure.get() != null);

        long before = usedMemory();
        List<SocketChannel> held = new ArrayList<>();
        byte[] junk = new byte[256];
        new java.util.Random(42).nextBytes(junk);
        junk[0] = 0x7f; // a size prefix far beyond sasl.server.max.receive.size
        try {
            for (int i = 0; i < CONNECTIONS; i++) {
                SocketChannel ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", port(1)));
                held.add(ch);
                switch (i % 3) {
                    case 0 -> ch.write(ByteBuffer.wrap(junk));
                    // half a frame: announces 4000 bytes, sends 2000, then nothing
                    case 1 -> ch.write(ByteBuffer.allocate(2004).putInt(4000).position(0).limit(2004));
                    // an oversized length prefix (100 MB) and a few bytes
                    default -> ch.write(ByteBuffer.allocate(12).putInt(100 * 1024 * 1024).position(0));
                }
            }
            int ackedBefore = acked.get();
            await("the authenticated producer keeps producing during the flood").atMost(Duration.ofSeconds(20))
                    .until(() -> acked.get() > ackedBefore + 20 || producerFailure.get() != null);
            long during = usedMemory();
            assertTrue(during - before < MEMORY_BOUND, "memory grew by " + (during - before) / 1024 / 1024
                    + " MiB with " + CONNECTIONS + " junk connections (bound " + MEMORY_BOUND / 1024 / 1024 + " MiB)");
        } finally {
            for (SocketChannel ch : held) {
                ch.close();
            }
            flooding.set(false);
            producing.join(30_000);
        }
        assertFalse(producing.isAlive(), "the authenticated producer did not stop within 30 s");
        assertEquals(null, producerFailure.get(), "the authenticated producer failed during the flood");
        assertTrue(KRILL.recentLog().contains("before authentication"), "junk frames were refused");
    }

    @Test
    void maxConnectionsPerIpRefusesBeyondTheLimitAndReleasesOnClose() throws Exception {
        InetAddress from = InetAddress.getByName("127.0.0.2");
        List<Socket> open = new ArrayList<>();
        try {
            for (int i = 0; i < 5; i++) {
                Socket s = connectFrom(from);
                open.add(s);
                assertTrue(apiVersionsAnswered(s), "connection " + (i + 1) + " of 5 is served");
            }
            try (Socket sixth = connectFrom(from)) {
                assertTrue(closedByBroker(sixth), "the 6th connection from 127.0.0.2 must be closed at accept");
            }
            try (Socket other = new Socket("127.0.0.1", port(0))) {
                other.setSoTimeout(10_000);
                assertTrue(apiVersionsAnswered(other), "other addresses are not limited by 127.0.0.2's override");
            }
            open.remove(0).close();
            await("a slot is given back when a connection closes").atMost(Duration.ofSeconds(10))
                    .ignoreExceptions().until(() -> {
                        Socket s = connectFrom(from);
                        if (apiVersionsAnswered(s)) {
                            open.add(s);
                            return true;
                        }
                        s.close();
                        return false;
                    });
        } finally {
            for (Socket s : open) {
                s.close();
            }
        }
    }

    private static Socket connectFrom(InetAddress local) throws IOException {
        Socket s = new Socket();
        s.bind(new InetSocketAddress(local, 0));
        s.connect(new InetSocketAddress("127.0.0.1", port(0)), 5000);
        s.setSoTimeout(10_000);
        return s;
    }

    private static boolean apiVersionsAnswered(Socket s) throws IOException {
        io.netty.buffer.ByteBuf buf = io.netty.buffer.Unpooled.buffer();
        buf.writeInt(0);
        short version = 3;
        new io.krill.wire.message.RequestHeader().setRequestApiKey(ApiKeys.API_VERSIONS.id())
                .setRequestApiVersion(version).setCorrelationId(1).setClientId("limit")
                .write(buf, ApiKeys.API_VERSIONS.requestHeaderVersion(version));
        new ApiVersionsRequest().setClientSoftwareName("limit").setClientSoftwareVersion("1").write(buf, version);
        buf.setInt(0, buf.readableBytes() - 4);
        byte[] bytes = new byte[buf.readableBytes()];
        buf.readBytes(bytes);
        try {
            OutputStream out = s.getOutputStream();
            out.write(bytes);
            out.flush();
            DataInputStream in = new DataInputStream(s.getInputStream());
            byte[] response = new byte[in.readInt()];
            in.readFully(response);
            io.netty.buffer.ByteBuf rb = io.netty.buffer.Unpooled.wrappedBuffer(response);
            new io.krill.wire.message.ResponseHeader().read(rb, ApiKeys.API_VERSIONS.responseHeaderVersion(version));
            ApiVersionsResponse answer = new ApiVersionsResponse();
            answer.read(rb, version);
            return answer.errorCode() == Errors.NONE.code();
        } catch (SocketException | java.io.EOFException e) {
            return false;
        }
    }

    private static boolean closedByBroker(Socket s) throws IOException {
        try {
            return s.getInputStream().read() < 0;
        } catch (SocketException e) {
            return true;
        }
    }
}

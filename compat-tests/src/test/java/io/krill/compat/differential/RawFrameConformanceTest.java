package io.krill.compat.differential;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.RequestHeader;
import io.krill.wire.protocol.ApiMessage;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.requests.AbstractResponse;
import org.junit.jupiter.api.Test;

/**
 * Malformed and oversize requests, written as raw bytes to both brokers: what a client observes (an
 * answer, and then its content; the connection closed; or nothing, the broker waiting for more) must be
 * the same. After each case both brokers must still serve a well-formed request on a new connection.
 */
class RawFrameConformanceTest extends DifferentialTest {
    /** How long a client waits for an answer or a close before it calls the connection open. */
    private static final Duration WAIT = Duration.ofMillis(1500);
    /** socket.request.max.bytes, the same default on both brokers (100 MiB). */
    private static final int SOCKET_REQUEST_MAX_BYTES = 104_857_600;
    private static final int CORRELATION_ID = 4242;

    @Test
    void aFrameLengthAboveSocketRequestMaxBytes() {
        compareRaw("a frame length above socket.request.max.bytes", concat(int32(SOCKET_REQUEST_MAX_BYTES + 1),
                new byte[64]), RawExchange.Kind.CLOSED, null, (short) 0);
    }

    @Test
    void aNegativeFrameLength() {
        compareRaw("a negative frame length", concat(int32(-1), new byte[16]), RawExchange.Kind.CLOSED, null,
                (short) 0);
    }

    @Test
    void anEmptyFrame() {
        compareRaw("an empty frame (length 0)", int32(0), RawExchange.Kind.CLOSED, null, (short) 0);
    }

    @Test
    void aTruncatedBody() {
        byte[] request = request(ApiKeys.METADATA, (short) 12, 2, ClientRequests.metadata((short) 12, "diff-raw-a",
                "diff-raw-b"));
        byte[] cut = Arrays.copyOf(request, request.length - 12);
        compareRaw("Metadata v12 with its body cut short (the frame's length says so)", frame(cut),
                RawExchange.Kind.CLOSED, ApiKeys.METADATA, (short) 12);
    }

    @Test
    void aFrameCutShortThenSilence() {
        byte[] request = request(ApiKeys.METADATA, (short) 12, 2, ClientRequests.metadata((short) 12, "diff-raw-a"));
        byte[] partial = Arrays.copyOf(frame(request), 4 + request.length / 2);
        compareRaw("half a Metadata v12 frame, then nothing", partial, RawExchange.Kind.OPEN, ApiKeys.METADATA,
                (short) 12);
    }

    @Test
    void anUnknownApiKey() {
        compareRaw("an unknown API key (9999)", frame(header(9999, 0, 1)), RawExchange.Kind.CLOSED, null, (short) 0);
    }

    @Test
    void aVersionBeyondTheApis() {
        compareRaw("Metadata v99", frame(concat(header(ApiKeys.METADATA.id(), 99, 2), new byte[] {0, 0, 0})),
                RawExchange.Kind.CLOSED, null, (short) 0);
    }

    @Test
    void aVersionKafka4Removed() {
        // Produce v0: acks 1, timeout 1000, no topics
        byte[] body = concat(new byte[] {0, 1}, int32(1000), int32(0));
        compareRaw("Produce v0 (removed in Kafka 4)", frame(concat(header(ApiKeys.PRODUCE.id(), 0, 1), body)),
                RawExchange.Kind.CLOSED, null, (short) 0);
    }

    /**
     * A deliberate difference, asserted as one: the body's first bytes are then read as the header's
     * tagged fields. Kafka takes two tags 0 of size 0 (it does not check their order) and reads the rest
     * as a Metadata request of no topics; Krill refuses tags that are not strictly increasing (KIP-482:
     * a field appears at most once, in tag order) and closes the connection, as it does for any frame it
     * cannot parse. No client writes such a header; guessing what a malformed one meant is not Krill's
     * policy. Both must serve the next connection.
     */
    @Test
    void aHeaderVersionTheApiVersionDoesNotHaveClosesTheConnection() {
        String title = "Metadata v12 under a request header v1 (no tagged fields)";
        byte[] body = body(ClientRequests.metadata((short) 12, "diff-raw-a"), (short) 12);
        byte[] bytes = frame(concat(header(ApiKeys.METADATA.id(), 12, 1), body));
        RawExchange.Outcome onKafka = kafka().sendRaw(bytes, WAIT);
        RawExchange.Outcome onKrill = krill().sendRaw(bytes, WAIT);
        System.out.println(title + ": kafka " + onKafka + ", krill " + onKrill);
        Coverage.INSTANCE.record("(raw frames)", (short) -1, title, "deliberate difference: kafka " + onKafka.kind()
                + ", krill " + onKrill.kind());
        assertEquals(RawExchange.Kind.ANSWERED, onKafka.kind(), "Kafka misreads the body as header tags and answers");
        assertEquals(RawExchange.Kind.CLOSED, onKrill.kind(), "Krill refuses the malformed header and closes");
        both(side -> assertEquals(0, ((ApiVersionsResponseData) side.send(ApiKeys.API_VERSIONS,
                ClientRequests.apiVersions()).data()).errorCode(), side + " serves after " + title));
    }

    @Test
    void aClientIdLongerThanTheFrame() {
        ByteBuf buf = Unpooled.buffer();
        buf.writeShort(ApiKeys.METADATA.id()).writeShort(1).writeInt(CORRELATION_ID).writeShort(500);
        buf.writeBytes(new byte[8]);
        compareRaw("a client id longer than its frame", frame(bytes(buf)), RawExchange.Kind.CLOSED, null, (short) 0);
    }

    @Test
    void apiVersionsWithATruncatedBody() {
        byte[] request = request(ApiKeys.API_VERSIONS, (short) 3, 2, ClientRequests.apiVersions());
        compareRaw("ApiVersions v3 with its body cut short", frame(Arrays.copyOf(request, request.length - 6)),
                RawExchange.Kind.CLOSED, ApiKeys.API_VERSIONS, (short) 3);
    }

    @Test
    void twoRequestsInOneWrite() {
        byte[] first = frame(request(ApiKeys.METADATA, (short) 12, 2, ClientRequests.metadata((short) 12, "diff-raw-a")));
        byte[] second = frame(concat(header(9999, 0, 1), new byte[0]));
        compareRaw("Metadata v12 then an unknown API key in one write: the first is answered", concat(first, second),
                RawExchange.Kind.ANSWERED, ApiKeys.METADATA, (short) 12);
    }

    // ---- the comparison

    /**
     * Sends {@code bytes} to both, compares what each client observed, and, for answers to a known
     * {@code api}, the answers as kafka-clients parses them; then checks both still serve.
     */
    private static void compareRaw(String title, byte[] bytes, RawExchange.Kind expectedOnKafka, ApiKeys api,
                                   short version) {
        RawExchange.Outcome onKafka = kafka().sendRaw(bytes, WAIT);
        RawExchange.Outcome onKrill = krill().sendRaw(bytes, WAIT);
        String outcome = "kafka " + onKafka + ", krill " + onKrill;
        System.out.println(title + ": " + outcome);
        List<String> problems = new ArrayList<>();
        if (onKafka.kind() != expectedOnKafka) {
            problems.add("Kafka " + onKafka + ", not " + expectedOnKafka + " (the case is not testing what it claims)");
        }
        if (onKafka.kind() != onKrill.kind()) {
            problems.add("a client observes " + outcome + answerOf("kafka", onKafka, api, version)
                    + answerOf("krill", onKrill, api, version));
        } else if (onKafka.kind() == RawExchange.Kind.ANSWERED) {
            if (onKafka.correlationId() != onKrill.correlationId()) {
                problems.add("correlation ids differ: " + outcome);
            } else if (api != null) {
                ResponseDiff diff = ResponseDiff.compare(title, api.apiName(), parsed(api, version, onKafka),
                        parsed(api, version, onKrill), AllowList.DEFAULT);
                System.out.println(diff.report());
                if (!diff.unexpected().isEmpty()) {
                    problems.add(diff.report());
                }
            }
        }
        Coverage.INSTANCE.record("(raw frames)", (short) -1, title, problems.isEmpty() ? "match" : "DIFFERENT: " + outcome);
        both(side -> assertEquals(0, ((ApiVersionsResponseData) side.send(ApiKeys.API_VERSIONS,
                ClientRequests.apiVersions()).data()).errorCode(), side + " serves after " + title));
        if (!problems.isEmpty()) {
            throw new AssertionError(title + ": " + String.join("\n", problems));
        }
    }

    private static String answerOf(String side, RawExchange.Outcome outcome, ApiKeys api, short version) {
        if (outcome.kind() != RawExchange.Kind.ANSWERED || api == null) {
            return "";
        }
        try {
            return "; " + side + " answered " + parsed(api, version, outcome);
        } catch (RuntimeException e) {
            return "; " + side + "'s answer does not parse: " + e;
        }
    }

    private static JsonNode parsed(ApiKeys api, short version, RawExchange.Outcome outcome) {
        org.apache.kafka.common.requests.RequestHeader judge = new org.apache.kafka.common.requests.RequestHeader(
                org.apache.kafka.common.protocol.ApiKeys.forId(api.id()), version, "krill-differential", CORRELATION_ID);
        AbstractResponse response = AbstractResponse.parseResponse(ByteBuffer.wrap(outcome.answer()), judge);
        return ResponseJson.write(response.data(), version);
    }

    private static byte[] header(int apiKey, int apiVersion, int headerVersion) {
        ByteBuf buf = Unpooled.buffer();
        new RequestHeader().setRequestApiKey((short) apiKey).setRequestApiVersion((short) apiVersion)
                .setCorrelationId(CORRELATION_ID).setClientId("krill-differential").write(buf, (short) headerVersion);
        return bytes(buf);
    }

    private static byte[] request(ApiKeys api, short version, int headerVersion, ApiMessage body) {
        return concat(header(api.id(), version, headerVersion), body(body, version));
    }

    private static byte[] body(ApiMessage body, short version) {
        ByteBuf buf = Unpooled.buffer();
        body.write(buf, version);
        return bytes(buf);
    }

    private static byte[] frame(byte[] payload) {
        return concat(int32(payload.length), payload);
    }

    private static byte[] int32(int value) {
        return ByteBuffer.allocate(4).putInt(value).array();
    }

    private static byte[] concat(byte[]... parts) {
        ByteBuf buf = Unpooled.buffer();
        for (byte[] part : parts) {
            buf.writeBytes(part);
        }
        return bytes(buf);
    }

    private static byte[] bytes(ByteBuf buf) {
        try {
            byte[] bytes = new byte[buf.readableBytes()];
            buf.readBytes(bytes);
            return bytes;
        } finally {
            buf.release();
        }
    }
}

package io.krill.wire.message;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.krill.wire.protocol.ApiMessage;
import io.krill.wire.protocol.MalformedMessageException;
import io.krill.wire.protocol.RawTaggedField;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageUtil;
import org.junit.jupiter.api.Test;

/**
 * Request header v1-v2 and response header v0-v1 against kafka-clients, and the way a broker reads a
 * request frame and writes a response frame with them. (Request header v0 left the 4.4.0 schema
 * with ControlledShutdown v0; it is rejected like any undefined version.)
 */
class HeaderTest {

    @Test
    void requestHeaderMatchesKafkaAtEveryVersion() {
        for (short v = 1; v <= 2; v++) {
            for (String clientId : new String[] {"client-é", "", null}) {
                RequestHeaderData kafka = new RequestHeaderData().setRequestApiKey((short) 3)
                    .setRequestApiVersion((short) 12).setCorrelationId(0x01020304).setClientId(clientId);
                RequestHeader krill = new RequestHeader().setRequestApiKey((short) 3).setRequestApiVersion((short) 12)
                    .setCorrelationId(0x01020304).setClientId(clientId);
                byte[] expected = KafkaCodec.write(kafka, v);
                assertArrayEquals(expected, KrillCodec.write(krill, v), "v" + v + " " + clientId);
                assertEquals(krill, KrillCodec.read(RequestHeader.class, expected, v));
            }
        }
    }

    @Test
    void requestHeaderV2KeepsAClassicInt16ClientIdAndAddsTaggedFields() {
        RequestHeader h = new RequestHeader().setRequestApiKey((short) 18).setRequestApiVersion((short) 4)
            .setCorrelationId(9).setClientId("ab");
        byte[] v2 = KrillCodec.write(h, (short) 2);
        // api key, api version, correlation id, int16 length 2, "ab", no tagged fields.
        assertArrayEquals(new byte[] {0, 18, 0, 4, 0, 0, 0, 9, 0, 2, 'a', 'b', 0}, v2);
        h.unknownTaggedFields().add(new RawTaggedField(5, new byte[] {7}));
        byte[] tagged = KrillCodec.write(h, (short) 2);
        assertArrayEquals(tagged, KafkaCodec.write(KafkaCodec.read(RequestHeaderData.class, tagged, (short) 2),
            (short) 2));
    }

    @Test
    void requestHeaderV0IsNotInTheSchema() {
        assertThrows(MalformedMessageException.class,
            () -> new RequestHeader().read(Unpooled.wrappedBuffer(new byte[8]), (short) 0));
    }

    @Test
    void responseHeaderMatchesKafkaAtEveryVersion() {
        for (short v = 0; v <= 1; v++) {
            byte[] expected = KafkaCodec.write(new ResponseHeaderData().setCorrelationId(-7), v);
            ResponseHeader krill = new ResponseHeader().setCorrelationId(-7);
            assertArrayEquals(expected, KrillCodec.write(krill, v));
            assertEquals(krill, KrillCodec.read(ResponseHeader.class, expected, v));
        }
    }

    @Test
    void brokerReadsARequestFrameItsHeaderVersionDependsOn() {
        // A client's Metadata v12 request: header v2, then the body.
        MetadataRequestData body = new MetadataRequestData().setAllowAutoTopicCreation(false)
            .setTopics(java.util.List.of(new MetadataRequestData.MetadataRequestTopic().setName("t")));
        RequestHeaderData header = new RequestHeaderData().setRequestApiKey((short) 3).setRequestApiVersion((short) 12)
            .setCorrelationId(42).setClientId("c");
        ByteBuffer h = MessageUtil.toByteBufferAccessor(header, (short) 2).buffer();
        ByteBuffer b = MessageUtil.toByteBufferAccessor(body, (short) 12).buffer();
        ByteBuf frame = Unpooled.wrappedBuffer(h, b);

        short apiKey = frame.getShort(frame.readerIndex());
        short apiVersion = frame.getShort(frame.readerIndex() + 2);
        ApiKeys api = ApiKeys.forId(apiKey);
        RequestHeader krillHeader = new RequestHeader();
        krillHeader.read(frame, api.requestHeaderVersion(apiVersion));
        ApiMessage request = api.newRequest();
        request.read(frame, apiVersion);

        assertFalse(frame.isReadable());
        assertEquals(42, krillHeader.correlationId());
        assertEquals("c", krillHeader.clientId());
        MetadataRequest metadata = (MetadataRequest) request;
        assertFalse(metadata.allowAutoTopicCreation());
        assertEquals("t", metadata.topics().get(0).name());
        assertEquals(io.krill.wire.protocol.ByteBufCodec.ZERO_UUID, metadata.topics().get(0).topicId());
    }

    @Test
    void brokerWritesAnApiVersionsResponseWithHeaderV0EvenWhenFlexible() {
        short version = 3;
        ApiVersionsResponse body = new ApiVersionsResponse().setErrorCode((short) 0);
        body.apiKeys().add(new ApiVersionsResponse.ApiVersion().setApiKey((short) 0).setMinVersion((short) 3)
            .setMaxVersion((short) 13));
        ResponseHeader header = new ResponseHeader().setCorrelationId(42);
        short headerVersion = ApiKeys.API_VERSIONS.responseHeaderVersion(version);
        assertEquals(0, headerVersion);

        int size = header.size(headerVersion) + body.size(version);
        ByteBuf frame = Unpooled.buffer(4 + size);
        frame.writeInt(size);
        header.write(frame, headerVersion);
        body.write(frame, version);

        ByteBuffer nio = frame.nioBuffer();
        assertEquals(size, nio.getInt());
        ByteBufferAccessor in = new ByteBufferAccessor(nio);
        assertEquals(42, new ResponseHeaderData(in, headerVersion).correlationId());
        ApiVersionsResponseData kafka = new ApiVersionsResponseData(in, version);
        assertEquals(13, kafka.apiKeys().find((short) 0).maxVersion());
        assertEquals(0, in.remaining());
    }
}

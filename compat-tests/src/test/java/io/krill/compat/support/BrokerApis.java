package io.krill.compat.support;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ResponseHeader;

/**
 * What a broker says it serves, asked with one ApiVersions v3 request on a plain socket (encoded and
 * decoded by kafka-clients). Krill serves every API its tests drive, so a test asserts on it
 * ({@link #assertServes}) rather than skipping: a handler dropped from the broker's table fails the tests
 * that need it, naming the missing APIs, instead of turning them into skips that hide the regression.
 */
public final class BrokerApis {
    private final Map<ApiKeys, short[]> versions;

    private BrokerApis(Map<ApiKeys, short[]> versions) {
        this.versions = versions;
    }

    public static BrokerApis probe(String host, int port) {
        short version = 3;
        RequestHeader header = new RequestHeader(ApiKeys.API_VERSIONS, version, "krill-compat-probe", 1);
        ByteBuffer request = new ApiVersionsRequest.Builder().build(version).serializeWithHeader(header);
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 10_000);
            socket.setSoTimeout(10_000);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.writeInt(request.remaining());
            out.write(request.array(), request.arrayOffset() + request.position(), request.remaining());
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte[] response = new byte[in.readInt()];
            in.readFully(response);
            ByteBuffer buffer = ByteBuffer.wrap(response);
            ResponseHeader.parse(buffer, ApiKeys.API_VERSIONS.responseHeaderVersion(version));
            ApiVersionsResponseData data = ApiVersionsResponse.parse(
                    new org.apache.kafka.common.protocol.ByteBufferAccessor(buffer), version).data();
            if (data.errorCode() != 0) {
                throw new IllegalStateException("ApiVersions error " + data.errorCode());
            }
            Map<ApiKeys, short[]> versions = new EnumMap<>(ApiKeys.class);
            for (ApiVersionsResponseData.ApiVersion v : data.apiKeys()) {
                if (ApiKeys.hasId(v.apiKey())) {
                    versions.put(ApiKeys.forId(v.apiKey()), new short[] {v.minVersion(), v.maxVersion()});
                }
            }
            return new BrokerApis(versions);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public boolean serves(ApiKeys... keys) {
        for (ApiKeys key : keys) {
            if (!versions.containsKey(key)) {
                return false;
            }
        }
        return true;
    }

    /** Those of {@code keys} that the broker does not advertise, in the order given. */
    public List<ApiKeys> missing(ApiKeys... keys) {
        return Arrays.stream(keys).filter(key -> !versions.containsKey(key)).toList();
    }

    /** Fails (an AssertionError naming them) unless the broker advertises every one of {@code keys}. */
    public void assertServes(String why, ApiKeys... keys) {
        List<ApiKeys> missing = missing(keys);
        if (!missing.isEmpty()) {
            throw new AssertionError("the broker does not advertise " + missing + " in ApiVersions, which " + why
                    + " needs (every API is served: a handler missing from the broker's table is a regression)");
        }
    }

    public Map<ApiKeys, short[]> versions() {
        return versions;
    }
}

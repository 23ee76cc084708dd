/**
 * Hand-written runtime support for the generated Kafka protocol messages in
 * {@code io.krill.wire.message}: the {@link io.krill.wire.protocol.Message} contract, the primitive
 * encoders in {@link io.krill.wire.protocol.ByteBufCodec}, tagged-field bookkeeping and the two
 * exceptions ({@link io.krill.wire.protocol.MalformedMessageException} for bad input,
 * {@link io.krill.wire.protocol.UnwritableMessageException} for a message that cannot be written).
 *
 * <p>Reading a request frame (after the 4-byte size prefix):
 * <pre>{@code
 * short apiKey = frame.getShort(frame.readerIndex());
 * short version = frame.getShort(frame.readerIndex() + 2);
 * ApiKeys api = ApiKeys.forId(apiKey);            // null: unknown key
 * // check api != null && !api.isRemoved() && version is advertised, else answer UNSUPPORTED_VERSION
 * RequestHeader header = new RequestHeader();
 * header.read(frame, api.requestHeaderVersion(version));
 * ApiMessage request = api.newRequest();
 * request.read(frame, version);                   // MalformedMessageException on bad input
 * }</pre>
 * Writing a response frame:
 * <pre>{@code
 * short hv = api.responseHeaderVersion(version);  // always 0 for ApiVersions
 * ResponseHeader rh = new ResponseHeader().setCorrelationId(header.correlationId());
 * int size = rh.size(hv) + response.size(version);
 * ByteBuf out = alloc.buffer(4 + size);
 * out.writeInt(size);
 * rh.write(out, hv);
 * response.write(out, version);
 * }</pre>
 */
package io.krill.wire.protocol;

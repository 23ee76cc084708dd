/**
 * Hand-written runtime support for the generated Kafka protocol messages in
 * {@code io.krill.wire.message}: the {@link io.krill.wire.protocol.Message} contract, the primitive
 * encoders in {@link io.krill.wire.protocol.ByteBufCodec}, the {@link io.krill.wire.protocol.Records}
 * values of {@code records} fields, tagged-field bookkeeping and the two exceptions
 * ({@link io.krill.wire.protocol.MalformedMessageException} for bad input,
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
 * <p>Records: a {@code records} field holds {@link io.krill.wire.protocol.Records}. Read from a
 * request, it is a {@link io.krill.wire.protocol.ByteBufRecords} over a slice of the frame, whose
 * bytes {@code partition.records().buffer()} gives. Records in memory are set as
 * {@code ByteBufRecords.of(buf)}; records in a segment file as the broker's file-backed
 * {@code Records}, which write nothing but note the writer index in a collector, so that the frame
 * goes out without copying them:
 * <pre>{@code
 * int size = rh.size(hv) + response.size(version);  // counts every sizeInBytes(), file-backed too
 * out.writeInt(size);
 * rh.write(out, hv);
 * response.write(out, version);                     // out ends up shorter by the file-backed bytes
 * // send out[0, i1), region 1, out[i1, i2), region 2, ..., out[in, end): one FileRegion per noted
 * // index i, in order, each of its records' sizeInBytes() bytes
 * }</pre>
 */
package io.krill.wire.protocol;

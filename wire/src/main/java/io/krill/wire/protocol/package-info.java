/**
 * Hand-written runtime support for the generated Kafka protocol messages in
 * {@code io.krill.wire.message}: the {@link io.krill.wire.protocol.Message} contract, the primitive
 * encoders in {@link io.krill.wire.protocol.ByteBufCodec}, tagged-field bookkeeping and the two
 * exceptions ({@link io.krill.wire.protocol.MalformedMessageException} for bad input,
 * {@link io.krill.wire.protocol.UnwritableMessageException} for a message that cannot be written).
 */
package io.krill.wire.protocol;

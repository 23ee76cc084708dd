/**
 * The record batch codecs ({@link io.krill.wire.record.compression.Compression}), each in the framing Kafka
 * clients use, decompressing under a byte limit.
 */
package io.krill.wire.record.compression;

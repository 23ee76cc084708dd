package io.krill.log.producer;

/**
 * What producer state keeps of one of a producer's recent batches: its sequence range, offset range and
 * max timestamp. Duplicate detection compares incoming batches with these.
 */
public record BatchMetadata(int firstSeq, int lastSeq, long firstOffset, long lastOffset, long timestamp) {
}

package io.krill.log;

/**
 * What one append did for one producer id: its epoch, the sequence of its first record in the append
 * and of its last, and the offsets they got. Summarised from batch headers only.
 */
public record ProducerAppend(long producerId, short producerEpoch, int firstSequence, int lastSequence,
        long firstOffset, long lastOffset, boolean transactional) {
}

/**
 * The little record-level decoding the log needs before wire's {@code Record} flyweight and codecs land:
 * the control record of a transaction marker (the append path's only per-record decode), and a walker
 * over the records of an <em>uncompressed</em> batch (offset-for-timestamp within a batch, compaction).
 * Compressed batches are reported as such; see {@link io.krill.log.record.BatchRecords}.
 */
package io.krill.log.record;

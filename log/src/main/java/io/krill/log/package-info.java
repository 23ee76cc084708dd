/**
 * The segmented, append-only partition log: a library with no network code, called by the broker and
 * replication.
 *
 * <h2>What the broker calls</h2>
 * <ul>
 * <li>{@link io.krill.log.LogManager} ({@link io.krill.log.LogManagerConfig}): the logs of all
 *     {@code log.dirs}; {@code startup()}, {@code getOrCreateLog(tp, LogConfig)}, {@code getLog(tp)},
 *     {@code deleteLog(tp)}, {@code updateTopicConfig}, {@code checkpointHighWatermarks} /
 *     {@code readHighWatermarks}, {@code addFailureListener}, {@code offlineLogDirs()}, {@code close()}.
 *     It owns the scheduler (retention, flush.ms, checkpoints, producer expiry, delayed deletes) and the
 *     {@link io.krill.log.LogCleaner} thread.</li>
 * <li>{@link io.krill.log.PartitionLog} ({@link io.krill.log.LogConfig}): one partition.
 *     {@code appendAsLeader(ByteBuf, leaderEpoch, AppendOrigin)} and {@code appendAsFollower(ByteBuf)}
 *     return {@link io.krill.log.AppendInfo}; {@code read(offset, maxBytes, maxOffset, minOneBatch)}
 *     returns a {@link io.krill.log.LogReadResult} holding a zero-copy {@link io.krill.log.FileSlice}
 *     (close it after sending); {@code fetchOffsetByTimestamp}, {@code endOffsetForEpoch},
 *     {@code collectAbortedTransactions}, {@code firstUnstableOffset}, {@code producerState(pid)},
 *     {@code truncateTo}, {@code truncateFullyAndStartAt}, {@code deleteRecordsBefore},
 *     {@code deleteOldSegments}, {@code flush}, {@code roll}, {@code updateHighWatermark}.</li>
 * <li>Typed failures extend {@link io.krill.log.LogException} and name their Kafka error
 *     ({@code error()}, a wire {@code Errors} value): offset out of range, storage error (offline log dir), producer fencing and
 *     sequence errors, batch too large; malformed input raises wire's {@code CorruptRecordException}.</li>
 * </ul>
 *
 * <h2>On disk</h2>
 * <pre>
 * &lt;log dir&gt;/.lock, .kafka_cleanshutdown, recovery-point-offset-checkpoint, log-start-offset-checkpoint,
 *             cleaner-offset-checkpoint, replication-offset-checkpoint
 * &lt;log dir&gt;/&lt;topic&gt;-&lt;partition&gt;/
 *     00000000000000000000.log        batches as appended        ({@link io.krill.log.FileRecords})
 *     00000000000000000000.index      offset -&gt; position         ({@link io.krill.log.OffsetIndex})
 *     00000000000000000000.timeindex  timestamp -&gt; offset        ({@link io.krill.log.TimeIndex})
 *     00000000000000000000.txnindex   aborted transactions       ({@link io.krill.log.TransactionIndex})
 *     00000000000000000042.snapshot   producer state             ({@link io.krill.log.producer.ProducerSnapshotFile})
 *     leader-epoch-checkpoint         epoch start offsets        ({@link io.krill.log.checkpoint.LeaderEpochCheckpointFile})
 * transient suffixes: .deleted (awaiting deletion), .cleaned / .swap (compaction output), .tmp (checkpoints)
 * </pre>
 * A new log is its directory and one {@code .log} file: an index file appears with the index's first
 * entry, a snapshot at the first roll or clean close, the epoch checkpoint at the first flush after an
 * epoch (see {@code LogSegment} for how a missing index file is told from a lost one).
 *
 * <h2>Threads</h2>
 * A partition's mutations hold its lock only for the operation; reads take no lock and see only batches
 * below the published log end offset. Files of inactive segments are opened on demand and bounded by an
 * {@link io.krill.log.OpenFileCache}; channels and mappings are reference counted, so eviction or deletion
 * never pulls a file from under a reader.
 */
package io.krill.log;

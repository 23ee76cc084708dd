package io.krill.broker.console;

import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import io.krill.log.TopicPartition;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.FetchRequest;
import io.krill.wire.message.FetchResponse;
import io.krill.wire.protocol.Records;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The record browser: a page of one partition's records read from its leader as a consumer reads them
 * (Fetch v12 by topic name, replica id -1, no wait), from an offset, from the first offset at or after a
 * time (ListOffsets), or the last {@code limit} records. A page reads at most {@value #FETCH_BYTES} bytes
 * of batches in all (the first batch always whole, as a Fetch returns it), in at most {@value #MAX_FETCHES}
 * Fetches, so a page of large records may end short of {@code limit}; {@code nextOffset} says where to go
 * on.
 *
 * <p>Thread-safety: stateless beyond its collaborators; thread-safe.
 */
final class RecordBrowser {
    static final short FETCH_VERSION = 12;
    static final int FETCH_BYTES = 1024 * 1024;
    static final int MAX_FETCHES = 8;
    static final int MAX_LIMIT = 500;

    /** What was asked: exactly one of offset and timestamp, or neither (the last {@code limit} records). */
    record Query(String topic, int partition, Long offset, Long timestamp, int limit, boolean readCommitted) {
    }

    record Result(String topic, int partition, long startOffset, long endOffset, long nextOffset,
                  List<RecordPage.Entry> records) {
    }

    private final ClusterView cluster;

    RecordBrowser(ClusterView cluster) {
        this.cluster = cluster;
    }

    Result browse(Query query) {
        MetadataImage image = cluster.image();
        TopicImage topic = image.topic(query.topic());
        if (topic == null) {
            throw ConsoleException.notFound(Errors.UNKNOWN_TOPIC_OR_PARTITION, "no topic " + query.topic());
        }
        PartitionState state = topic.partition(query.partition());
        if (state == null) {
            throw ConsoleException.notFound(Errors.UNKNOWN_TOPIC_OR_PARTITION,
                    "topic " + query.topic() + " has no partition " + query.partition());
        }
        if (!state.hasLeader() || image.broker(state.leader()) == null) {
            throw ConsoleException.unavailable(Errors.LEADER_NOT_AVAILABLE,
                    query.topic() + "-" + query.partition() + " has no leader");
        }
        int leader = state.leader();
        TopicPartition tp = new TopicPartition(query.topic(), query.partition());
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(cluster.client().timeoutMs());
        byte isolation = (byte) (query.readCommitted() ? 1 : 0);
        CompletableFuture<ClusterView.OffsetAnswer> earliest = cluster.listOffset(leader, tp, ClusterView.EARLIEST, isolation);
        CompletableFuture<ClusterView.OffsetAnswer> latest = cluster.listOffset(leader, tp, ClusterView.LATEST, isolation);
        CompletableFuture<ClusterView.OffsetAnswer> atTime = query.timestamp() == null ? null
                : cluster.listOffset(leader, tp, query.timestamp(), isolation);
        long start = offset(await(earliest, deadline, leader));
        long end = offset(await(latest, deadline, leader));
        long from;
        if (query.offset() != null) {
            from = Math.max(start, Math.min(end, query.offset()));
        } else if (atTime != null) {
            ClusterView.OffsetAnswer answer = await(atTime, deadline, leader);
            from = answer.error() == Errors.NONE && answer.offset() >= 0 ? Math.max(start, answer.offset()) : end;
        } else {
            from = Math.max(start, end - query.limit());
        }
        RecordPage page = new RecordPage(from, query.limit(), query.readCommitted());
        long highWatermark = end;
        int fetchedBytes = 0;
        for (int i = 0; i < MAX_FETCHES && !page.isFull() && page.nextOffset() < end && fetchedBytes < FETCH_BYTES; i++) {
            long at = page.nextOffset();
            FetchAnswer answer = await(fetch(leader, tp, at, isolation, FETCH_BYTES - fetchedBytes, page), deadline,
                    leader);
            if (answer.error() != Errors.NONE) {
                throw answer.error() == Errors.UNKNOWN_TOPIC_OR_PARTITION
                        ? ConsoleException.notFound(answer.error(), "the leader does not know " + tp)
                        : ConsoleException.unavailable(answer.error(), "the leader answered " + answer.error());
            }
            highWatermark = answer.highWatermark();
            fetchedBytes += answer.bytes();
            if (!answer.progressed() || page.nextOffset() == at) {
                break;
            }
        }
        return new Result(query.topic(), query.partition(), start, Math.max(end, highWatermark), page.nextOffset(),
                page.entries());
    }

    private record FetchAnswer(Errors error, long highWatermark, boolean progressed, int bytes) {
    }

    /** One Fetch from {@code offset}; its batches go into {@code page} on the client thread (their buffer is reused). */
    private CompletableFuture<FetchAnswer> fetch(int leader, TopicPartition tp, long offset, byte isolation,
                                                 int maxBytes, RecordPage page) {
        FetchRequest request = new FetchRequest().setReplicaId(-1).setMaxWaitMs(0).setMinBytes(0)
                .setMaxBytes(maxBytes).setIsolationLevel(isolation).setSessionId(0).setSessionEpoch(-1);
        request.topics().add(new FetchRequest.FetchTopic().setTopic(tp.topic()).setPartitions(new ArrayList<>(List.of(
                new FetchRequest.FetchPartition().setPartition(tp.partition()).setFetchOffset(offset)
                        .setPartitionMaxBytes(maxBytes)))));
        return cluster.client().call(leader, ApiKeys.FETCH, FETCH_VERSION, request, (FetchResponse response) -> {
            if (response.errorCode() != Errors.NONE.code()) {
                return new FetchAnswer(Errors.forCode(response.errorCode()), -1, false, 0);
            }
            for (FetchResponse.FetchableTopicResponse t : response.responses()) {
                for (FetchResponse.PartitionData p : t.partitions()) {
                    if (!t.topic().equals(tp.topic()) || p.partitionIndex() != tp.partition()) {
                        continue;
                    }
                    if (p.errorCode() != Errors.NONE.code()) {
                        return new FetchAnswer(Errors.forCode(p.errorCode()), -1, false, 0);
                    }
                    List<RecordPage.Aborted> aborted = new ArrayList<>();
                    if (p.abortedTransactions() != null) {
                        for (FetchResponse.AbortedTransaction a : p.abortedTransactions()) {
                            aborted.add(new RecordPage.Aborted(a.producerId(), a.firstOffset()));
                        }
                    }
                    Records records = p.records();
                    ByteBuf bytes = records == null ? null : records.buffer();
                    boolean progressed = page.add(bytes, aborted);
                    return new FetchAnswer(Errors.NONE, p.highWatermark(), progressed,
                            bytes == null ? 0 : bytes.readableBytes());
                }
            }
            return new FetchAnswer(Errors.UNKNOWN_TOPIC_OR_PARTITION, -1, false, 0);
        });
    }

    private static long offset(ClusterView.OffsetAnswer answer) {
        if (answer.error() == Errors.UNKNOWN_TOPIC_OR_PARTITION) {
            throw ConsoleException.notFound(answer.error(), "the leader does not know this partition");
        }
        if (answer.error() != Errors.NONE) {
            throw ConsoleException.unavailable(answer.error(), "the leader answered ListOffsets with " + answer.error());
        }
        return answer.offset();
    }

    private static <T> T await(CompletableFuture<T> future, long deadlineNanos, int broker) {
        try {
            return future.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ConsoleException.unavailable(Errors.REQUEST_TIMED_OUT, "interrupted");
        } catch (TimeoutException e) {
            future.cancel(false);
            throw ConsoleException.unavailable(Errors.REQUEST_TIMED_OUT, "broker " + broker + " did not answer in time");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof ConsoleException c) {
                throw c;
            }
            throw ConsoleException.unavailable(Errors.NETWORK_EXCEPTION, "broker " + broker + ": " + e.getCause());
        }
    }
}

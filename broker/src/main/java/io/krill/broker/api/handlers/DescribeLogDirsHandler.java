package io.krill.broker.api.handlers;

import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.log.LogManager;
import io.krill.log.PartitionLog;
import io.krill.log.TopicPartition;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.DescribeLogDirsRequest;
import io.krill.wire.message.DescribeLogDirsResponse;
import io.krill.wire.protocol.ApiMessage;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * DescribeLogDirs: for every configured log dir, its absolute path, the requested partitions it holds
 * (all of them for a null topic list) with their size in bytes, and from v4 the volume's total and
 * usable bytes. An offline dir, or one whose volume cannot be read, is KAFKA_STORAGE_ERROR. As in Kafka
 * on a leader, offsetLag is 0 and no log is a future log (Krill has no AlterReplicaLogDirs); no dir is
 * cordoned (v5).
 *
 * <p>Thread-safe: stateless; reads the log manager's snapshot of its logs.
 */
public final class DescribeLogDirsHandler extends AbstractApiHandler {
    private final Authorization authorization;
    private final LogManager logManager;

    public DescribeLogDirsHandler(LogManager logManager, Authorization authorization) {
        super(ApiKeys.DESCRIBE_LOG_DIRS, 1, 5);
        this.authorization = authorization;
        this.logManager = logManager;
    }

    @Override
    public void handle(Request request) {
        DescribeLogDirsRequest body = request.body();
        authorization.requireCluster(request, AclOperation.DESCRIBE);
        Set<TopicPartition> wanted = null;
        if (body.topics() != null) {
            wanted = new HashSet<>();
            for (DescribeLogDirsRequest.DescribableLogDirTopic topic : body.topics()) {
                for (int partition : topic.partitions()) {
                    wanted.add(new TopicPartition(topic.topic(), partition));
                }
            }
        }
        Map<Path, Map<String, DescribeLogDirsResponse.DescribeLogDirsTopic>> topicsByDir = new LinkedHashMap<>();
        for (PartitionLog log : logManager.allLogs()) {
            if (wanted != null && !wanted.contains(log.topicPartition())) {
                continue;
            }
            Path dir = log.dir().getParent().toAbsolutePath().normalize();
            topicsByDir.computeIfAbsent(dir, d -> new LinkedHashMap<>())
                    .computeIfAbsent(log.topicPartition().topic(), t -> new DescribeLogDirsResponse.DescribeLogDirsTopic().setName(t))
                    .partitions().add(new DescribeLogDirsResponse.DescribeLogDirsPartition()
                            .setPartitionIndex(log.topicPartition().partition())
                            .setPartitionSize(log.size())
                            .setOffsetLag(0)
                            .setIsFutureKey(false));
        }
        Set<Path> offline = logManager.offlineLogDirs();
        DescribeLogDirsResponse response = new DescribeLogDirsResponse();
        for (Path dir : logManager.logDirs()) {
            DescribeLogDirsResponse.DescribeLogDirsResult result = new DescribeLogDirsResponse.DescribeLogDirsResult()
                    .setLogDir(dir.toString());
            if (offline.contains(dir)) {
                result.setErrorCode(Errors.KAFKA_STORAGE_ERROR.code());
            } else {
                try {
                    FileStore store = Files.getFileStore(dir);
                    result.setTotalBytes(nonNegative(store.getTotalSpace()))
                            .setUsableBytes(nonNegative(store.getUsableSpace()))
                            .setTopics(new ArrayList<>(topicsByDir.getOrDefault(dir, Map.of()).values()));
                } catch (IOException e) {
                    result.setErrorCode(Errors.KAFKA_STORAGE_ERROR.code());
                }
            }
            response.results().add(result);
        }
        request.respond(response);
    }

    /** Kafka's adjustment for volumes larger than Long.MAX_VALUE bytes, which Java reports as negative. */
    private static long nonNegative(long bytes) {
        return bytes < 0 ? Long.MAX_VALUE : bytes;
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        return new DescribeLogDirsResponse().setErrorCode(error.code());
    }
}

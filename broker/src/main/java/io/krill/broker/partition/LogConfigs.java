package io.krill.broker.partition;

import io.krill.broker.config.TopicConfig;
import io.krill.log.LogConfig;
import io.krill.wire.record.TimestampType;

/** Translates a topic's effective configuration into the log's. Stateless. */
public final class LogConfigs {
    private LogConfigs() {
    }

    public static LogConfig from(TopicConfig topic) {
        return LogConfig.builder()
                .segmentBytes(topic.segmentBytes())
                .segmentMs(topic.segmentMs())
                .segmentJitterMs(topic.segmentJitterMs())
                .segmentIndexBytes(topic.segmentIndexBytes())
                .indexIntervalBytes(topic.indexIntervalBytes())
                .retentionMs(topic.retentionMs())
                .retentionBytes(topic.retentionBytes())
                .cleanupPolicy(String.join(",", topic.cleanupPolicy()))
                .deleteRetentionMs(topic.deleteRetentionMs())
                .minCompactionLagMs(topic.minCompactionLagMs())
                .maxCompactionLagMs(topic.maxCompactionLagMs())
                .minCleanableDirtyRatio(topic.minCleanableDirtyRatio())
                .flushMessages(topic.flushMessages())
                .flushMs(topic.flushMs())
                .fileDeleteDelayMs(topic.fileDeleteDelayMs())
                .timestampType(topic.logAppendTime() ? TimestampType.LOG_APPEND_TIME : TimestampType.CREATE_TIME)
                .build();
    }
}

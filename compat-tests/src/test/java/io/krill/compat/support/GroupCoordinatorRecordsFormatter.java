package io.krill.compat.support;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.coordinator.group.GroupCoordinatorRecordSerde;
import org.apache.kafka.coordinator.group.generated.CoordinatorRecordJsonConverters;
import org.apache.kafka.tools.consumer.CoordinatorRecordMessageFormatter;

/**
 * Kafka 4.4's formatter of {@code __consumer_offsets} with every record type of its group coordinator allowed:
 * its {@code GroupMetadataMessageFormatter} prints GroupMetadata only and its {@code ShareGroupMessageFormatter}
 * share group records only, while KIP-848 consumer group records have no formatter of their own in 4.4. The
 * same decoding ({@code GroupCoordinatorRecordSerde}, which fails the tool on a record it cannot read) and the
 * same JSON ({@code CoordinatorRecordJsonConverters}) as Kafka's formatters: nothing of Krill's.
 */
public final class GroupCoordinatorRecordsFormatter extends CoordinatorRecordMessageFormatter {
    public GroupCoordinatorRecordsFormatter() {
        super(new GroupCoordinatorRecordSerde());
    }

    @Override
    protected boolean isRecordTypeAllowed(short recordType) {
        return true;
    }

    @Override
    protected JsonNode keyAsJson(ApiMessage message) {
        return CoordinatorRecordJsonConverters.writeRecordKeyAsJson(message);
    }

    @Override
    protected JsonNode valueAsJson(ApiMessage message, short version) {
        return CoordinatorRecordJsonConverters.writeRecordValueAsJson(message, version);
    }
}

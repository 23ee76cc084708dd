package io.krill.compat.support;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.tools.consumer.group.ConsumerGroupCommand;

/**
 * {@code kafka-consumer-groups.sh --describe --offsets} (Kafka 4.4's ConsumerGroupCommand, in-process) as
 * a judge of what a client committed: one row per partition of a topic, read from the tool's table.
 */
public final class GroupOffsetsTool {
    /** One row of the table; "-" cells (nothing committed) are -1. */
    public record Row(long currentOffset, long logEndOffset, long lag) {
    }

    private GroupOffsetsTool() {
    }

    /** The rows of {@code topic} by partition, and the whole run for assertion messages. */
    public static Map<Integer, Row> describe(String bootstrap, String group, String topic) {
        ToolRunner.Result result = ToolRunner.run("kafka-consumer-groups", ConsumerGroupCommand::main,
                Duration.ofSeconds(60), "--bootstrap-server", bootstrap, "--describe", "--offsets", "--group", group)
                .assertSuccess();
        List<String> lines = result.outLines();
        int header = -1;
        for (int i = 0; i < lines.size() && header < 0; i++) {
            if (lines.get(i).trim().startsWith("GROUP ")) {
                header = i;
            }
        }
        assertTrue(header >= 0, "no table in\n" + result.describe());
        List<String> names = List.of(lines.get(header).trim().split("\\s+"));
        Map<Integer, Row> rows = new HashMap<>();
        for (String line : lines.subList(header + 1, lines.size())) {
            String[] cells = line.trim().split("\\s+");
            if (cells.length != names.size()) {
                break;
            }
            if (cells[names.indexOf("TOPIC")].equals(topic)) {
                rows.put(Integer.parseInt(cells[names.indexOf("PARTITION")]), new Row(
                        number(cells[names.indexOf("CURRENT-OFFSET")]), number(cells[names.indexOf("LOG-END-OFFSET")]),
                        number(cells[names.indexOf("LAG")])));
            }
        }
        assertTrue(!rows.isEmpty(), "no row for " + topic + " in\n" + result.describe());
        return rows;
    }

    private static long number(String cell) {
        return cell.equals("-") ? -1 : Long.parseLong(cell);
    }
}

package io.krill.log;

import java.util.Objects;

/**
 * A topic name and partition number. Its directory under a log dir is {@code <topic>-<partition>}; topic
 * names may contain '-' (never '/', '.' alone or ".."), so the number is whatever follows the last '-'.
 */
public record TopicPartition(String topic, int partition) implements Comparable<TopicPartition> {

    public TopicPartition {
        Objects.requireNonNull(topic, "topic");
        if (partition < 0) {
            throw new IllegalArgumentException("negative partition " + partition);
        }
    }

    /** The partition directory's name: {@code <topic>-<partition>}. */
    public String dirName() {
        return topic + "-" + partition;
    }

    /**
     * Parses a partition directory name, or returns {@code null} for names that are not one (no '-',
     * a non-numeric or negative partition, an empty topic, or a name with a '.' suffix such as
     * {@code -delete} or {@code -future} directories).
     */
    public static TopicPartition parseDirName(String name) {
        int dash = name.lastIndexOf('-');
        if (dash <= 0 || dash == name.length() - 1) {
            return null;
        }
        String number = name.substring(dash + 1);
        for (int i = 0; i < number.length(); i++) {
            if (!Character.isDigit(number.charAt(i))) {
                return null;
            }
        }
        try {
            return new TopicPartition(name.substring(0, dash), Integer.parseInt(number));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    @Override
    public int compareTo(TopicPartition o) {
        int c = topic.compareTo(o.topic);
        return c != 0 ? c : Integer.compare(partition, o.partition);
    }

    @Override
    public String toString() {
        return dirName();
    }
}

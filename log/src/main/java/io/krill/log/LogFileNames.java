package io.krill.log;

import java.nio.file.Path;

/**
 * File names inside a partition directory. Segment files are named by base offset, 20 digits:
 * {@code 00000000000000000000.log}, {@code .index}, {@code .timeindex}, {@code .txnindex}; producer
 * snapshots {@code <offset>.snapshot}. Transient suffixes appended to a whole name: {@code .deleted}
 * (awaiting asynchronous deletion), {@code .cleaned} (compaction output being written), {@code .swap}
 * (compaction output committed, replacing the old segments).
 */
final class LogFileNames {
    static final String LOG = ".log";
    static final String INDEX = ".index";
    static final String TIME_INDEX = ".timeindex";
    static final String TXN_INDEX = ".txnindex";
    static final String DELETED = ".deleted";
    static final String CLEANED = ".cleaned";
    static final String SWAP = ".swap";

    private LogFileNames() {
    }

    static String prefix(long offset) {
        String digits = Long.toString(offset);
        return "0".repeat(Math.max(0, 20 - digits.length())) + digits;
    }

    static Path file(Path dir, long baseOffset, String type, String suffix) {
        return dir.resolve(prefix(baseOffset) + type + suffix);
    }

    /** The offset a file name starts with (its part before the first '.'), or -1 if it is not 20 digits. */
    static long offsetOf(String fileName) {
        int dot = fileName.indexOf('.');
        if (dot != 20) {
            return -1;
        }
        for (int i = 0; i < 20; i++) {
            if (!Character.isDigit(fileName.charAt(i))) {
                return -1;
            }
        }
        try {
            return Long.parseLong(fileName.substring(0, 20));
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}

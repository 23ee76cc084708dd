package org.apache.kafka.common.utils;

/**
 * Test-only bridge, as {@link AppInfoParser}: MirrorMaker 4.3.1's driver calls {@code Exit.exit} and
 * {@code Exit.addShutdownHook}, which kafka-clients 4.4 moved to {@code org.apache.kafka.common.utils.internals}.
 */
public final class Exit {
    private Exit() {
    }

    public static void exit(int statusCode) {
        org.apache.kafka.common.utils.internals.Exit.exit(statusCode);
    }

    public static void exit(int statusCode, String message) {
        org.apache.kafka.common.utils.internals.Exit.exit(statusCode, message);
    }

    public static void halt(int statusCode) {
        org.apache.kafka.common.utils.internals.Exit.halt(statusCode);
    }

    public static void addShutdownHook(String name, Runnable runnable) {
        org.apache.kafka.common.utils.internals.Exit.addShutdownHook(name, runnable);
    }
}

package org.apache.kafka.common.utils;

/**
 * Test-only bridge for the Connect plugins of the connect/ tests, never on the test JVM's own path of use:
 * {@code io.krill.compat.connect.ConnectProcess} puts this class on the class path of the Connect worker
 * processes it starts. connect-file and connect-mirror 4.3.1 (Maven Central has no 4.4.0 of them yet, while
 * the workers run connect-runtime and kafka-clients 4.4.0) call {@code AppInfoParser.getVersion()}, which
 * kafka-clients 4.4 moved to {@code org.apache.kafka.common.utils.internals}; this forwards to it. Remove it
 * with {@link Exit} once the 4.4.0 plugins are used.
 */
public final class AppInfoParser {
    private AppInfoParser() {
    }

    public static String getVersion() {
        return org.apache.kafka.common.utils.internals.AppInfoParser.getVersion();
    }

    public static String getCommitId() {
        return org.apache.kafka.common.utils.internals.AppInfoParser.getCommitId();
    }
}

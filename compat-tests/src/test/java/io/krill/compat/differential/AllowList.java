package io.krill.compat.differential;

import java.util.List;

/**
 * The differences between Kafka's and Krill's answers that are legitimate: values that name the cluster
 * rather than describe the protocol's behaviour. Kept short and explicit; each entry gives its reason.
 * Everything not listed is compared exactly.
 *
 * <p>A path is a JSON pointer into the converter's tree ({@code /topics/0/errorCode}); in an entry,
 * {@code *} stands for one segment (a field name or an array index) and {@code **} for any number of
 * them. An entry lets the two values at a matching path differ (a whole subtree, if the path names one);
 * the path must still exist on both sides.
 *
 * <p>Immutable; thread-safe.
 */
final class AllowList {
    /** One legitimate difference. {@code api} is the API's name, or {@code *} for all. */
    record Entry(String api, String path, String reason) {
        boolean matches(String apiName, String pointer) {
            return (api.equals("*") || api.equals(apiName)) && glob(split(path), 0, split(pointer), 0);
        }

        @Override
        public String toString() {
            return api + " " + path + ": " + reason;
        }
    }

    static final AllowList DEFAULT = new AllowList(List.of(
            new Entry("*", "**/errorMessage",
                    "human-readable text (or none: null or empty); clients show it but never parse it, and the"
                            + " error code next to it is compared"),
            new Entry("Produce", "/responses/*/partitionResponses/*/recordErrors/*/batchIndexErrorMessage",
                    "a refused record's human-readable text (KIP-467); its batch index and the error code are compared"),
            new Entry("*", "/clusterId", "each cluster's own random id (Metadata, DescribeCluster)"),
            new Entry("DescribeLogDirs", "/results/*/logDir", "each broker's log directory, a temporary folder of its own"),
            new Entry("DescribeLogDirs", "/results/*/usableBytes",
                    "free space of the disk both log directories are on, which the other broker's writes change"),
            new Entry("*", "**/port", "each broker listens on a free ephemeral port"),
            new Entry("Fetch", "/sessionId", "each broker's random fetch session id (KIP-227); the session"
                    + " sequences check that one is set where a session opens"),
            new Entry("DescribeTransactions", "/transactionStates/*/transactionStartTimeMs",
                    "when the transaction began, by each broker's clock (the sequence checks it is set where it"
                            + " must be)"),
            new Entry("GetTelemetrySubscriptions", "/deltaTemporality",
                    "deliberate (docs/client-telemetry.md): Krill exports pushed sums on /metrics, where a counter is"
                            + " cumulative, so it asks for cumulative sums; Kafka asks its plugins' clients for deltas")));

    private final List<Entry> entries;

    AllowList(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    /** The entry that allows {@code pointer} of {@code apiName} to differ, or null. */
    Entry allowing(String apiName, String pointer) {
        for (Entry entry : entries) {
            if (entry.matches(apiName, pointer)) {
                return entry;
            }
        }
        return null;
    }

    List<Entry> entries() {
        return entries;
    }

    /** The segments of a pointer or of an entry's path (whose leading slash is optional). */
    private static String[] split(String pointer) {
        String path = pointer.startsWith("/") ? pointer.substring(1) : pointer;
        return path.isEmpty() ? new String[0] : path.split("/", -1);
    }

    private static boolean glob(String[] pattern, int p, String[] path, int i) {
        if (p == pattern.length) {
            return i == path.length;
        }
        if (pattern[p].equals("**")) {
            for (int k = i; k <= path.length; k++) {
                if (glob(pattern, p + 1, path, k)) {
                    return true;
                }
            }
            return false;
        }
        return i < path.length && (pattern[p].equals("*") || pattern[p].equals(path[i]))
                && glob(pattern, p + 1, path, i + 1);
    }
}

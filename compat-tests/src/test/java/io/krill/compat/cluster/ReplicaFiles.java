package io.krill.compat.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * A partition's segment files ({@code <log.dir>/<topic>-<partition>/*.log}) as the brokers left them on
 * disk: replication copies batches byte for byte, so replicas with the same log end have identical files.
 */
final class ReplicaFiles {
    private ReplicaFiles() {
    }

    /**
     * Waits until the replicas' segments on {@code brokers} have the same total size (the same log end),
     * then requires the same file names with the same bytes.
     */
    static void assertIdentical(KrillCluster cluster, String partitionDir, Collection<Integer> brokers) {
        await("replicas of " + partitionDir + " on " + brokers + " reach the same log end")
                .atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> brokers.stream().map(id -> totalSize(segments(cluster.dataDir(id).resolve(partitionDir))))
                        .distinct().count() == 1);
        int first = brokers.iterator().next();
        Map<String, byte[]> reference = segments(cluster.dataDir(first).resolve(partitionDir));
        assertNotEquals(0, totalSize(reference), "records in " + partitionDir);
        for (int id : brokers) {
            Map<String, byte[]> replica = segments(cluster.dataDir(id).resolve(partitionDir));
            assertEquals(reference.keySet(), replica.keySet(), "segment files of broker " + id + " vs " + first);
            for (String name : reference.keySet()) {
                assertArrayEquals(reference.get(name), replica.get(name),
                        partitionDir + "/" + name + " of broker " + id + " vs broker " + first);
            }
        }
    }

    /** The .log files of one replica, name to bytes (empty if the folder does not exist). */
    static Map<String, byte[]> segments(Path dir) {
        Map<String, byte[]> files = new TreeMap<>();
        if (!Files.isDirectory(dir)) {
            return files;
        }
        try (Stream<Path> list = Files.list(dir)) {
            for (Path p : list.filter(f -> f.getFileName().toString().endsWith(".log")).toList()) {
                files.put(p.getFileName().toString(), Files.readAllBytes(p));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    private static long totalSize(Map<String, byte[]> segments) {
        return segments.values().stream().mapToLong(b -> b.length).sum();
    }
}

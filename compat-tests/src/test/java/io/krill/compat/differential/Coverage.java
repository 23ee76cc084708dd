package io.krill.compat.differential;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What the run compared, per (API, version): each comparison made (a sequence at one version, or a raw
 * frame) with its outcome. Written at the end of the run to standard output and to
 * {@code target/differential-coverage.txt}, so that a reader sees which versions of which API were
 * really compared, not only which tests passed.
 *
 * <p>Thread-safe: every method is synchronized.
 */
final class Coverage {
    static final Coverage INSTANCE = new Coverage();
    private static final Path REPORT = Path.of("target", "differential-coverage.txt");

    /** One comparison: {@code version} is -1 for a raw frame that names no valid version. */
    record Compared(String api, short version, String sequence, String outcome) {
    }

    private final List<Compared> compared = new ArrayList<>();

    private Coverage() {
    }

    synchronized void record(String api, short version, String sequence, String outcome) {
        compared.add(new Compared(api, version, sequence, outcome));
    }

    synchronized String report() {
        Map<String, Map<Short, List<Compared>>> byApi = new TreeMap<>();
        for (Compared c : compared) {
            byApi.computeIfAbsent(c.api(), k -> new TreeMap<>()).computeIfAbsent(c.version(), k -> new ArrayList<>())
                    .add(c);
        }
        long pairs = byApi.values().stream().mapToLong(Map::size).sum();
        long sequences = compared.stream().map(Compared::sequence).distinct().count();
        long failed = compared.stream().filter(c -> !c.outcome().startsWith("match")).count();
        StringBuilder sb = new StringBuilder("differential coverage: ").append(byApi.size()).append(" APIs, ")
                .append(pairs).append(" (API, version) pairs, ").append(sequences).append(" sequences, ")
                .append(compared.size()).append(" comparisons, ").append(failed).append(" with differences\n");
        byApi.forEach((api, versions) -> versions.forEach((version, list) -> {
            sb.append(String.format("  %-28s %-4s %2d: ", api, version < 0 ? "raw" : "v" + version, list.size()));
            sb.append(list.stream().sorted(Comparator.comparing(Compared::sequence))
                    .map(c -> c.sequence() + (c.outcome().equals("match") ? "" : " [" + c.outcome() + "]"))
                    .collect(Collectors.joining("; "))).append('\n');
        }));
        return sb.toString();
    }

    /** Prints the report and writes it under target/ (when the working directory has one). */
    synchronized void writeReport() {
        if (compared.isEmpty()) {
            return;
        }
        String report = report();
        System.out.println(report);
        if (Files.isDirectory(REPORT.getParent())) {
            try {
                Files.writeString(REPORT, report, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}

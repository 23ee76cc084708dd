package io.krill.compat.faults;

import io.krill.compat.support.Processes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The few root commands the campaign runs ({@code ip}, {@code iptables}, {@code mount}), each a child
 * process with a deadline that is killed in every case ({@link Processes}). Commands are named by absolute
 * path where Debian installs them, since a test JVM's PATH may lack {@code /usr/sbin}.
 */
final class Shell {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private Shell() {
    }

    /** Runs the command and fails with its output unless it exits 0. */
    static String run(String... command) {
        return Processes.run(resolve(command), "", TIMEOUT).assertSuccess().out();
    }

    /** Runs the command and returns whether it exited 0 (for clean-up, where a missing thing is fine). */
    static boolean tryRun(String... command) {
        try {
            return Processes.run(resolve(command), "", TIMEOUT).exitCode() == 0;
        } catch (RuntimeException | AssertionError e) {
            return false;
        }
    }

    /** {@code command} run inside network namespace {@code ns}. */
    static String[] inNamespace(String ns, String... command) {
        List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", ns));
        full.addAll(Arrays.asList(command));
        return full.toArray(String[]::new);
    }

    static String executable(String name) {
        for (String dir : List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin")) {
            Path p = Path.of(dir, name);
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        return name;
    }

    private static List<String> resolve(String... command) {
        List<String> list = new ArrayList<>(Arrays.asList(command));
        list.set(0, executable(list.get(0)));
        return list;
    }
}

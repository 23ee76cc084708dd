package io.krill.compat.support;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a native client (kcat, python) as a child process with a deadline: standard input from a
 * string, standard output and error to files (no pipe can fill up and block it), and the process
 * (with its children) killed in every case before returning.
 */
public final class Processes {
    private Processes() {
    }

    public record Result(List<String> command, int exitCode, String out, String err) {
        public List<String> outLines() {
            return out.lines().filter(l -> !l.isEmpty()).toList();
        }

        public String describe() {
            return String.join(" ", command) + "\n  exit code: " + exitCode + "\n  --- stdout ---\n" + out
                    + "\n  --- stderr ---\n" + err;
        }

        public Result assertSuccess() {
            if (exitCode != 0) {
                throw new AssertionError("process failed:\n" + describe());
            }
            return this;
        }
    }

    /** True when {@code name} is an executable on the PATH. */
    public static boolean onPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, name))) {
                return true;
            }
        }
        return false;
    }

    public static Result run(List<String> command, String stdin, Duration timeout) {
        Path out = null;
        Path err = null;
        Process process = null;
        try {
            out = Files.createTempFile("compat-proc", ".out");
            err = Files.createTempFile("compat-proc", ".err");
            process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            try (OutputStream in = process.getOutputStream()) {
                in.write(stdin.getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                // the process closed its input early; its exit code and output tell why
            }
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                kill(process);
                throw new AssertionError(String.join(" ", command) + " did not finish within " + timeout
                        + "\n  --- stdout ---\n" + Files.readString(out) + "\n  --- stderr ---\n" + Files.readString(err));
            }
            return new Result(command, process.exitValue(), Files.readString(out), Files.readString(err));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } finally {
            if (process != null) {
                kill(process);
            }
            deleteQuietly(out);
            deleteQuietly(err);
        }
    }

    private static void kill(Process process) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        try {
            process.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void deleteQuietly(Path file) {
        if (file != null) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                // best effort
            }
        }
    }
}

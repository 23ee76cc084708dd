package io.krill.compat.support;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.awaitility.core.TerminalFailureException;

/**
 * A native client (a python script, kcat) that keeps running while a test drives it, as a group member
 * does: its standard output and error go to files the test reads at any time (no pipe can fill up and
 * block it), its standard input stays open for the test to write to, or to close when the client should
 * stop. Use with try-with-resources: {@link #close} kills the process and its children and removes the
 * files in every case. For clients that run to completion, {@link Processes#run} is simpler.
 */
public final class RunningProcess implements AutoCloseable {
    private final List<String> command;
    private final Process process;
    private final Path out;
    private final Path err;
    private final OutputStream stdin;
    private volatile boolean stopAsked;

    private RunningProcess(List<String> command, Process process, Path out, Path err) {
        this.command = List.copyOf(command);
        this.process = process;
        this.out = out;
        this.err = err;
        this.stdin = process.getOutputStream();
    }

    public static RunningProcess start(List<String> command) {
        Path out = null;
        Path err = null;
        try {
            out = Files.createTempFile("compat-running", ".out");
            err = Files.createTempFile("compat-running", ".err");
            Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile())
                    .start();
            return new RunningProcess(command, process, out, err);
        } catch (IOException e) {
            deleteQuietly(out);
            deleteQuietly(err);
            throw new UncheckedIOException(e);
        }
    }

    /** The non-empty lines the process has written to its standard output so far. */
    public List<String> outLines() {
        return read(out).lines().filter(l -> !l.isEmpty()).toList();
    }

    /** What the process has written to its standard error so far. */
    public String err() {
        return read(err);
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Writes a line to the process's standard input, at once. */
    public void send(String line) {
        try {
            stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            stdin.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write to " + describe(), e);
        }
    }

    /** Closes the process's standard input: the clients here take the end of input as "stop now". */
    public void closeInput() {
        stopAsked = true;
        try {
            stdin.close();
        } catch (IOException e) {
            // already gone; its exit code and output tell why
        }
    }

    /** Asks the process to stop as a terminal would (SIGTERM): kcat then closes its consumer cleanly. */
    public void terminate() {
        stopAsked = true;
        process.destroy();
    }

    /** Waits for the process to end; fails with its output if it is still running after the timeout. */
    public int awaitExit(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("still running after " + timeout + ": " + describe());
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /**
     * Waits until the condition holds; fails early when one of the processes ended without being asked
     * to stop, and in every failure with what each of them printed.
     */
    public static void waitFor(String what, Duration timeout, Callable<Boolean> condition,
            RunningProcess... watched) {
        try {
            Awaitility.await(what).atMost(timeout).pollInterval(Duration.ofMillis(100))
                    .failFast("a process ended unasked", () -> Arrays.stream(watched)
                            .anyMatch(p -> !p.stopAsked && !p.isAlive()))
                    .until(condition);
        } catch (ConditionTimeoutException | TerminalFailureException e) {
            throw new AssertionError(e.getMessage() + "\n" + Arrays.stream(watched).map(RunningProcess::describe)
                    .collect(Collectors.joining("\n")), e);
        }
    }

    /** The command, its state and everything it printed, for assertion messages. */
    public String describe() {
        String state = process.isAlive() ? "running" : "exit code " + process.exitValue();
        return String.join(" ", command) + "\n  " + state + "\n  --- stdout ---\n" + read(out)
                + "\n  --- stderr ---\n" + read(err);
    }

    @Override
    public void close() {
        closeInput();
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        try {
            process.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            deleteQuietly(out);
            deleteQuietly(err);
        }
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "(removed)";
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
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

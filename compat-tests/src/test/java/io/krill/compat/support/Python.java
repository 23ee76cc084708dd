package io.krill.compat.support;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * confluent-kafka-python (Debian's python3-confluent-kafka over the system librdkafka) for the tests
 * that run it: the interpreter that imports {@code confluent_kafka} (the test is skipped when none
 * does), and the test's scripts, copied from {@code src/test/resources/python} into a folder.
 */
public final class Python {
    private static final Path SYSTEM_PYTHON = Path.of("/usr/bin/python3");

    private final String interpreter;
    private final Path script;

    private Python(String interpreter, Path script) {
        this.interpreter = interpreter;
        this.script = script;
    }

    /**
     * Skips the calling test (class) unless confluent_kafka is importable; copies {@code python/<name>}
     * into {@code dir}.
     */
    public static Python withScript(String name, Path dir) {
        String interpreter = Files.isExecutable(SYSTEM_PYTHON) ? SYSTEM_PYTHON.toString() : "python3";
        assumeTrue(Files.isExecutable(SYSTEM_PYTHON) || Processes.onPath("python3"), "no python3");
        Processes.Result probe = Processes.run(List.of(interpreter, "-c", "import confluent_kafka"), "",
                Duration.ofSeconds(30));
        assumeTrue(probe.exitCode() == 0, "confluent_kafka is not importable by " + interpreter
                + " (apt-get install python3-confluent-kafka): " + probe.err());
        Path script = dir.resolve(name);
        try (InputStream in = Python.class.getResourceAsStream("/python/" + name)) {
            if (in == null) {
                throw new IOException("python/" + name + " is not on the class path");
            }
            Files.write(script, in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Python(interpreter, script);
    }

    /** The command that runs the script with these arguments. */
    public List<String> command(String... args) {
        List<String> command = new ArrayList<>(List.of(interpreter, script.toString()));
        command.addAll(List.of(args));
        return command;
    }

    /** Runs the script to its end and fails unless it exits with 0. */
    public Processes.Result run(Duration timeout, String... args) {
        return Processes.run(command(args), "", timeout).assertSuccess();
    }

    /** Starts the script in the background (close the result to stop it). */
    public RunningProcess start(String... args) {
        return RunningProcess.start(command(args));
    }
}

package io.krill.compat.support;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.utils.internals.Exit;

/**
 * Runs one of Kafka's command-line tools in this JVM as its {@code main} would run in its own: the
 * arguments as given, standard input from a string, standard output and error captured, and every
 * {@code Exit.exit}/{@code Exit.halt} turned into an exit code instead of the end of the test JVM.
 * Shutdown hooks the tool registers through {@code Exit.addShutdownHook} (ConsoleProducer closes, and
 * so flushes, its producer in one) run after the tool returns or exits, as the JVM would run them.
 *
 * <p>The tool runs on its own thread with a deadline: a tool that hangs fails the test, with what it had
 * printed so far. One tool at a time (the standard streams and the exit procedure are process-wide).
 */
public final class ToolRunner {
    /** A tool's {@code main}. */
    @FunctionalInterface
    public interface ToolMain {
        void main(String[] args) throws Exception;
    }

    /** What a tool did: its exit code (0 when main returned without calling exit), output and error. */
    public record Result(String tool, List<String> args, int exitCode, String out, String err, Throwable thrown) {
        public List<String> outLines() {
            return out.lines().filter(l -> !l.isBlank()).toList();
        }

        /** Everything known about the run, for assertion messages. */
        public String describe() {
            StringBuilder sb = new StringBuilder();
            sb.append(tool).append(' ').append(String.join(" ", args)).append("\n  exit code: ").append(exitCode)
                    .append("\n  --- stdout ---\n").append(out).append("\n  --- stderr ---\n").append(err);
            if (thrown != null) {
                sb.append("\n  --- thrown ---\n").append(thrown);
            }
            return sb.toString();
        }

        /** Fails unless the tool exited with 0; returns this for chaining. */
        public Result assertSuccess() {
            if (exitCode != 0) {
                throw new AssertionError("tool failed:\n" + describe(), thrown);
            }
            return this;
        }
    }

    /** Thrown from the exit procedure to unwind the tool's stack: an Error so catch (Exception) passes it. */
    private static final class ToolExit extends Error {
        private static final long serialVersionUID = 1L;

        ToolExit(int code) {
            super("Exit.exit(" + code + ") intercepted by ToolRunner", null, false, false);
        }
    }

    /** Keeps what is written until the tool calls exit for the first time. */
    private static final class UntilExit extends ByteArrayOutputStream {
        private final AtomicReference<Integer> exitCode;

        UntilExit(AtomicReference<Integer> exitCode) {
            this.exitCode = exitCode;
        }

        @Override
        public synchronized void write(int b) {
            if (exitCode.get() == null) {
                super.write(b);
            }
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            if (exitCode.get() == null) {
                super.write(b, off, len);
            }
        }
    }

    private static final Object LOCK = new Object();

    private ToolRunner() {
    }

    public static Result run(String tool, ToolMain main, Duration timeout, String... args) {
        return runWithInput(tool, main, timeout, "", args);
    }

    /**
     * kafka-configs ({@code ConfigCommand}) against {@code bootstrap}, with a client config file written
     * under {@code dir}, then {@code args}.
     */
    public static Result kafkaConfigs(Path dir, String bootstrap, String... args) {
        List<String> all = new ArrayList<>(List.of("--bootstrap-server", bootstrap, "--command-config",
                Clients.configFile(dir, bootstrap).toString()));
        all.addAll(List.of(args));
        return run("kafka-configs", org.apache.kafka.tools.ConfigCommand::main, Duration.ofSeconds(60),
                all.toArray(String[]::new));
    }

    /** Like {@link #run}, with {@code stdin} as the tool's standard input. */
    public static Result runWithInput(String tool, ToolMain main, Duration timeout, String stdin, String... args) {
        synchronized (LOCK) {
            return runLocked(tool, main, timeout, stdin, args);
        }
    }

    private static Result runLocked(String tool, ToolMain main, Duration timeout, String stdin, String[] args) {
        AtomicReference<Integer> exitCode = new AtomicReference<>();
        // A real JVM stops at the first exit: what the tool prints while its stack unwinds from there
        // (some tools catch Throwable around an exit) is not part of its output.
        ByteArrayOutputStream out = new UntilExit(exitCode);
        ByteArrayOutputStream err = new UntilExit(exitCode);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        List<Thread> hooks = new ArrayList<>();
        PrintStream savedOut = System.out;
        PrintStream savedErr = System.err;
        InputStream savedIn = System.in;
        PrintStream capturedOut = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream capturedErr = new PrintStream(err, true, StandardCharsets.UTF_8);
        Exit.Procedure exit = (code, message) -> {
            if (message != null && exitCode.get() == null) {
                capturedErr.println(message);
            }
            exitCode.compareAndSet(null, code);
            throw new ToolExit(code);
        };
        Exit.setExitProcedure(exit);
        Exit.setHaltProcedure(exit);
        Exit.setShutdownHookAdder((name, runnable) -> {
            synchronized (hooks) {
                hooks.add(new Thread(runnable, name));
            }
        });
        System.setOut(capturedOut);
        System.setErr(capturedErr);
        System.setIn(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
        Thread runner = new Thread(() -> {
            try {
                main.main(args);
            } catch (ToolExit e) {
                // exit code already recorded
            } catch (Throwable t) {
                // An exception out of main ends a real JVM with status 1 after printing it.
                thrown.set(t);
                t.printStackTrace(capturedErr);
                exitCode.compareAndSet(null, 1);
            }
        }, "tool-" + tool);
        runner.setDaemon(true);
        try {
            runner.start();
            runner.join(timeout.toMillis());
            if (runner.isAlive()) {
                runner.interrupt();
                runner.join(5_000);
                throw new AssertionError(tool + " did not finish within " + timeout + "\n" + new Result(tool,
                        List.of(args), -1, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8),
                        null).describe());
            }
            List<Thread> toRun;
            synchronized (hooks) {
                toRun = new ArrayList<>(hooks);
            }
            for (Thread hook : toRun) {
                hook.setDaemon(true);
                hook.start();
            }
            for (Thread hook : toRun) {
                hook.join(30_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while running " + tool, e);
        } finally {
            System.setOut(savedOut);
            System.setErr(savedErr);
            System.setIn(savedIn);
            Exit.resetExitProcedure();
            Exit.resetHaltProcedure();
            Exit.resetShutdownHookAdder();
        }
        capturedOut.flush();
        capturedErr.flush();
        Integer code = exitCode.get();
        return new Result(tool, List.of(args), code == null ? 0 : code, out.toString(StandardCharsets.UTF_8),
                err.toString(StandardCharsets.UTF_8), thrown.get());
    }
}

package io.krill.compat.support;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs a Kafka tool class in a JVM of its own, as kafka-run-class.sh does, with this test's class path
 * (kafka-tools 4.4 and its dependencies): for tools that rely on their JVM ending, like the verifiable
 * clients, which flush and print their final report from a Runtime shutdown hook and call System.exit.
 * Such a tool cannot run in the test's JVM through {@link ToolRunner}. The child JVM is killed in every
 * case ({@link Processes}).
 */
public final class JavaTool {
    private JavaTool() {
    }

    public static Processes.Result run(Class<?> mainClass, Duration timeout, String... args) {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                mainClass.getName()));
        command.addAll(List.of(args));
        return Processes.run(command, "", timeout);
    }
}

package io.krill.wire.generator;

import java.nio.file.Files;
import java.nio.file.Path;

/** Entry point of the build-time generator: {@code MessageGenerator <schemaDir> <outputDir>}. */
public final class MessageGenerator {
    private MessageGenerator() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: MessageGenerator <schemaDir> <outputDir>");
        }
        Files.createDirectories(Path.of(args[1]));
    }
}

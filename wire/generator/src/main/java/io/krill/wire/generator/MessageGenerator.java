package io.krill.wire.generator;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Entry point of the build-time generator: {@code MessageGenerator <schemaDir> <outputDir>}. Writes
 * one class per schema with at least one valid version, plus {@code ApiKeys}, into
 * {@code outputDir/io/krill/wire/message}. Files whose content is unchanged are left alone (so an
 * incremental build recompiles nothing), and stale files are deleted.
 */
public final class MessageGenerator {
    private MessageGenerator() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: MessageGenerator <schemaDir> <outputDir>");
        }
        int written = generate(Path.of(args[0]), Path.of(args[1]));
        System.out.println("krill-wire-generator: " + written + " files changed in " + args[1]);
    }

    /** Generates all sources; returns the number of files (re)written. */
    public static int generate(Path schemaDir, Path outputDir) throws IOException {
        List<MessageSpec> specs = SchemaLoader.loadAll(schemaDir);
        if (specs.isEmpty()) {
            throw new SchemaException("no schemas in " + schemaDir);
        }
        Path dir = outputDir.resolve(MessageClassEmitter.PACKAGE.replace('.', '/'));
        Files.createDirectories(dir);
        Set<Path> produced = new HashSet<>();
        int written = 0;
        for (MessageSpec spec : specs) {
            if (spec.validVersions().isEmpty()) {
                continue;
            }
            String source;
            try {
                source = new MessageClassEmitter(spec).emit();
            } catch (SchemaException e) {
                throw new SchemaException(spec.name() + ": " + e.getMessage());
            }
            written += writeIfChanged(dir.resolve(spec.name() + ".java"), source, produced);
        }
        written += writeIfChanged(dir.resolve("ApiKeys.java"), ApiKeysEmitter.emit(specs), produced);
        try (Stream<Path> existing = Files.list(dir)) {
            for (Path p : existing.toList()) {
                if (!produced.contains(p)) {
                    Files.delete(p);
                }
            }
        }
        return written;
    }

    private static int writeIfChanged(Path file, String content, Set<Path> produced) throws IOException {
        produced.add(file);
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        if (Files.exists(file) && java.util.Arrays.equals(Files.readAllBytes(file), bytes)) {
            return 0;
        }
        Files.write(file, bytes);
        return 1;
    }
}

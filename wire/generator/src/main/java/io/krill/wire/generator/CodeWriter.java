package io.krill.wire.generator;

/**
 * Accumulates Java source with four-space indentation. Lines ending in '{' indent what follows;
 * lines starting with '}' dedent first.
 *
 * <p>Not thread-safe.
 */
final class CodeWriter {
    private final StringBuilder out = new StringBuilder();
    private int indent;

    CodeWriter(int initialIndent) {
        this.indent = initialIndent;
    }

    CodeWriter line(String format, Object... args) {
        String text = args.length == 0 ? format : String.format(format, args);
        if (text.startsWith("}")) {
            indent--;
        }
        if (text.isEmpty()) {
            out.append('\n');
        } else {
            out.append("    ".repeat(indent)).append(text).append('\n');
        }
        if (text.endsWith("{")) {
            indent++;
        }
        return this;
    }

    CodeWriter blank() {
        return line("");
    }

    /** Appends pre-indented text verbatim. */
    CodeWriter raw(String text) {
        out.append(text);
        return this;
    }

    int indent() {
        return indent;
    }

    @Override
    public String toString() {
        return out.toString();
    }
}

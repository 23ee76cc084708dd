package io.krill.broker.security.sasl;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A parsed {@code sasl.jaas.config} value, the body of a JAAS login context as Kafka takes it:
 * <pre>
 *   org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="x" user_alice="y";
 * </pre>
 * One or more login modules, each {@code <class> <flag> [name=value]... ;}, where a value is a bare token or a
 * double- or single-quoted string with backslash escapes; {@code //} and {@code /* *}{@code /} comments; an option
 * given twice keeps its last value (all as Kafka's parser). Krill never loads the class: the name only says which mechanism
 * the options belong to. Parsing never echoes values in error messages (they hold passwords).
 *
 * <p>Immutable and thread-safe.
 */
public final class JaasConfig {
    /** Kafka's PLAIN login module; its {@code user_<name>} options are a PLAIN server's users. */
    public static final String PLAIN_LOGIN_MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule";
    /** Kafka's SCRAM login module; its {@code username}/{@code password} options are a client's credentials. */
    public static final String SCRAM_LOGIN_MODULE = "org.apache.kafka.common.security.scram.ScramLoginModule";

    /** The JAAS control flags. */
    public enum ControlFlag { REQUIRED, REQUISITE, SUFFICIENT, OPTIONAL }

    /** One login module entry: its class name, control flag and options (in the order given). */
    public record LoginModule(String className, ControlFlag flag, Map<String, String> options) {
        public LoginModule {
            options = Collections.unmodifiableMap(new LinkedHashMap<>(options));
        }

        /** Never prints option values: they hold passwords. */
        @Override
        public String toString() {
            return className + " " + flag.name().toLowerCase(Locale.ROOT) + " " + options.keySet();
        }
    }

    private final List<LoginModule> modules;

    private JaasConfig(List<LoginModule> modules) {
        this.modules = List.copyOf(modules);
    }

    /** Every login module, in order; never empty. */
    public List<LoginModule> modules() {
        return modules;
    }

    /** The first module of class {@code className}, if any. */
    public Optional<LoginModule> module(String className) {
        return modules.stream().filter(m -> m.className().equals(className)).findFirst();
    }

    @Override
    public String toString() {
        return modules.toString();
    }

    /**
     * Parses a JAAS config value.
     *
     * @throws IllegalArgumentException naming the position and what was expected, without echoing values
     */
    public static JaasConfig parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("JAAS config is missing");
        }
        return new JaasConfig(new Parser(text).parse());
    }

    /** A hand-written tokenizer-parser; the grammar is small enough not to need StreamTokenizer's quirks. */
    private static final class Parser {
        private final String text;
        private int pos;

        Parser(String text) {
            this.text = text;
        }

        List<LoginModule> parse() {
            List<LoginModule> result = new ArrayList<>();
            skipSpace();
            while (pos < text.length()) {
                result.add(module());
                skipSpace();
            }
            if (result.isEmpty()) {
                throw new IllegalArgumentException("JAAS config has no login module");
            }
            return result;
        }

        private LoginModule module() {
            String className = word("a login module class name");
            skipSpace();
            String flagText = word("a control flag (required, requisite, sufficient or optional)");
            ControlFlag flag;
            try {
                flag = ControlFlag.valueOf(flagText.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw error("invalid control flag '" + flagText + "' of login module " + className
                        + ": expected required, requisite, sufficient or optional");
            }
            Map<String, String> options = new LinkedHashMap<>();
            while (true) {
                skipSpace();
                if (pos >= text.length()) {
                    throw error("login module " + className + " is not terminated by ';'");
                }
                if (text.charAt(pos) == ';') {
                    pos++;
                    return new LoginModule(className, flag, options);
                }
                String name = word("an option name");
                skipSpace();
                if (pos >= text.length() || text.charAt(pos) != '=') {
                    throw error("option " + name + " of login module " + className + " has no '=value'");
                }
                pos++;
                skipSpace();
                String value = value(name);
                options.put(name, value);
            }
        }

        private String word(String what) {
            int start = pos;
            while (pos < text.length() && isWordChar(text.charAt(pos))) {
                pos++;
            }
            if (pos == start) {
                throw error("expected " + what);
            }
            return text.substring(start, pos);
        }

        private String value(String option) {
            if (pos < text.length() && (text.charAt(pos) == '"' || text.charAt(pos) == '\'')) {
                char quote = text.charAt(pos++);
                StringBuilder value = new StringBuilder();
                while (pos < text.length()) {
                    char c = text.charAt(pos++);
                    if (c == quote) {
                        return value.toString();
                    }
                    if (c == '\\') {
                        if (pos >= text.length()) {
                            break;
                        }
                        c = text.charAt(pos++);
                        switch (c) {
                            case 'n' -> c = '\n';
                            case 't' -> c = '\t';
                            case 'r' -> c = '\r';
                            case 'b' -> c = '\b';
                            case 'f' -> c = '\f';
                            default -> { } // \" \\ and any other escaped character stand for themselves
                        }
                    }
                    value.append(c);
                }
                throw error("the quoted value of option " + option + " is not terminated");
            }
            int start = pos;
            while (pos < text.length() && isWordChar(text.charAt(pos))) {
                pos++;
            }
            if (pos == start) {
                throw error("option " + option + " has no value");
            }
            return text.substring(start, pos);
        }

        private static boolean isWordChar(char c) {
            return !Character.isWhitespace(c) && c != '=' && c != ';' && c != '"' && c != '\'';
        }

        private void skipSpace() {
            while (pos < text.length()) {
                char c = text.charAt(pos);
                if (Character.isWhitespace(c)) {
                    pos++;
                } else if (text.startsWith("//", pos)) {
                    int end = text.indexOf('\n', pos);
                    pos = end < 0 ? text.length() : end + 1;
                } else if (text.startsWith("/*", pos)) {
                    int end = text.indexOf("*/", pos + 2);
                    if (end < 0) {
                        throw error("unterminated comment");
                    }
                    pos = end + 2;
                } else {
                    return;
                }
            }
        }

        private IllegalArgumentException error(String message) {
            return new IllegalArgumentException("Invalid JAAS config at character " + pos + ": " + message);
        }
    }
}

package io.krill.broker.security.ssl;

import io.krill.broker.config.ConfigException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code ssl.principal.mapping.rules}: turns a client certificate's distinguished name (RFC 2253, as
 * {@code X500Principal.getName()} gives it) into a principal name. Rules are tried in order; the first
 * whose pattern matches the whole name wins. {@code DEFAULT} keeps the name as it is;
 * {@code RULE:pattern/replacement/} rewrites it, with an optional {@code L} or {@code U} after the
 * last slash to lower- or upper-case the result. A name no rule matches is refused.
 *
 * <p>Immutable and thread-safe.
 */
public final class SslPrincipalMapper {
    private record Rule(Pattern pattern, String replacement, char caseFlag) {
        /** null: this rule does not match. */
        String apply(String name) {
            if (pattern == null) {
                return name;
            }
            Matcher m = pattern.matcher(name);
            if (!m.matches()) {
                return null;
            }
            String result = m.replaceAll(replacement);
            return caseFlag == 'L' ? result.toLowerCase(Locale.ROOT)
                    : caseFlag == 'U' ? result.toUpperCase(Locale.ROOT) : result;
        }
    }

    private final List<Rule> rules;

    private SslPrincipalMapper(List<Rule> rules) {
        this.rules = List.copyOf(rules);
    }

    /** @throws ConfigException when the rules do not parse */
    public static SslPrincipalMapper parse(String rules) {
        String text = rules == null || rules.isBlank() ? "DEFAULT" : rules;
        List<Rule> parsed = new ArrayList<>();
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (Character.isWhitespace(c) || c == ',') {
                i++;
            } else if (text.startsWith("DEFAULT", i)) {
                parsed.add(new Rule(null, null, ' '));
                i += "DEFAULT".length();
            } else if (text.startsWith("RULE:", i)) {
                int[] end = new int[1];
                String pattern = until(text, i + 5, end, rules);
                String replacement = until(text, end[0], end, rules);
                i = end[0];
                char flag = ' ';
                if (i < text.length() && (text.charAt(i) == 'L' || text.charAt(i) == 'U')) {
                    flag = text.charAt(i++);
                }
                parsed.add(new Rule(Pattern.compile(pattern), replacement, flag));
            } else {
                throw new ConfigException("ssl.principal.mapping.rules", rules, "Invalid rule at: " + text.substring(i));
            }
        }
        return new SslPrincipalMapper(parsed);
    }

    /** The text from {@code from} to the next unescaped '/', which {@code end[0]} is set past. */
    private static String until(String text, int from, int[] end, String rules) {
        StringBuilder out = new StringBuilder();
        for (int i = from; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\\' && i + 1 < text.length() && text.charAt(i + 1) == '/') {
                out.append('/');
                i++;
            } else if (c == '/') {
                end[0] = i + 1;
                return out.toString();
            } else {
                out.append(c);
            }
        }
        throw new ConfigException("ssl.principal.mapping.rules", rules, "a RULE needs pattern/replacement/");
    }

    /** @throws IllegalArgumentException when no rule matches {@code distinguishedName} */
    public String name(String distinguishedName) {
        for (Rule rule : rules) {
            String mapped = rule.apply(distinguishedName);
            if (mapped != null) {
                return mapped;
            }
        }
        throw new IllegalArgumentException("No rule of ssl.principal.mapping.rules matches " + distinguishedName);
    }
}

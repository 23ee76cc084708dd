package io.krill.controller.metadata;

import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;

/** Kafka's rules for legal topic names. Stateless. */
public final class TopicNames {
    public static final int MAX_LENGTH = 249;

    private TopicNames() {
    }

    /** Throws INVALID_TOPIC_EXCEPTION with Kafka's message if {@code name} may not name a topic. */
    public static void validate(String name) {
        if (name == null || name.isEmpty()) {
            throw new ApiException(Errors.INVALID_TOPIC_EXCEPTION, "Topic name is illegal, it can't be empty");
        }
        if (name.equals(".") || name.equals("..")) {
            throw new ApiException(Errors.INVALID_TOPIC_EXCEPTION, "Topic name cannot be \".\" or \"..\"");
        }
        if (name.length() > MAX_LENGTH) {
            throw new ApiException(Errors.INVALID_TOPIC_EXCEPTION, "Topic name is illegal, it can't be longer than "
                    + MAX_LENGTH + " characters, topic name: " + name);
        }
        for (int i = 0; i < name.length(); i++) {
            if (!isLegalCharacter(name.charAt(i))) {
                throw new ApiException(Errors.INVALID_TOPIC_EXCEPTION, "Topic name \"" + name
                        + "\" is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'");
            }
        }
    }

    /** Whether {@code name} may name a topic (no exception: for lookups of names from requests). */
    public static boolean isLegal(String name) {
        if (name == null || name.isEmpty() || name.equals(".") || name.equals("..") || name.length() > MAX_LENGTH) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            if (!isLegalCharacter(name.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    private static boolean isLegalCharacter(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_'
                || c == '-';
    }

    /** Whether two names collide in metric names, where '.' and '_' are the same. */
    public static boolean collide(String a, String b) {
        return a.replace('.', '_').equals(b.replace('.', '_'));
    }

    /** Internal topics that clients may not produce to or delete freely. */
    public static boolean isInternal(String name) {
        return name.equals("__consumer_offsets") || name.equals("__transaction_state");
    }
}

package io.krill.wire.generator;

/**
 * An inclusive range of protocol versions as written in the schemas: {@code "3+"}, {@code "1-4"},
 * {@code "2"} or {@code "none"}. An empty range has {@code lowest > highest}.
 *
 * <p>Immutable.
 */
public record Versions(int lowest, int highest) {
    /** The open end of a {@code "N+"} range. */
    public static final int OPEN = Short.MAX_VALUE;
    public static final Versions NONE = new Versions(1, 0);
    public static final Versions ALL = new Versions(0, OPEN);

    /** Parses a schema version string; {@code null} gives {@code absent}. */
    public static Versions parse(String text, Versions absent) {
        if (text == null) {
            return absent;
        }
        String s = text.trim();
        if (s.equals("none")) {
            return NONE;
        }
        if (s.endsWith("+")) {
            return new Versions(Integer.parseInt(s.substring(0, s.length() - 1).trim()), OPEN);
        }
        int dash = s.indexOf('-');
        if (dash > 0) {
            return new Versions(Integer.parseInt(s.substring(0, dash).trim()),
                Integer.parseInt(s.substring(dash + 1).trim()));
        }
        int v = Integer.parseInt(s);
        return new Versions(v, v);
    }

    public boolean isEmpty() {
        return lowest > highest;
    }

    public boolean contains(int version) {
        return version >= lowest && version <= highest;
    }

    public boolean containsAll(Versions other) {
        return other.isEmpty() || (!isEmpty() && lowest <= other.lowest && highest >= other.highest);
    }

    public Versions intersect(Versions other) {
        Versions v = new Versions(Math.max(lowest, other.lowest), Math.min(highest, other.highest));
        return v.isEmpty() ? NONE : v;
    }

    /** The part of this range below {@code other}'s lowest version (ranges here are contiguous). */
    public Versions below(Versions other) {
        if (other.isEmpty()) {
            return this;
        }
        return intersect(new Versions(0, other.lowest - 1));
    }

    /** Number of versions in this range, counting an open end as one past the lowest. */
    public int count() {
        return isEmpty() ? 0 : highest - lowest + 1;
    }

    @Override
    public String toString() {
        if (isEmpty()) {
            return "none";
        }
        if (highest == OPEN) {
            return lowest + "+";
        }
        return lowest == highest ? Integer.toString(lowest) : lowest + "-" + highest;
    }
}

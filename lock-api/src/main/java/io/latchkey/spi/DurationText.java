package io.latchkey.spi;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one duration grammar of Latchkey: every backend setting, URI query parameter, TCK property and CLI
 * option reads durations here, and every message prints them here, so that what one place accepts every
 * place accepts.
 *
 * <p>Grammar: one or more {@code <number><unit>} parts, largest unit first, each unit at most once, with
 * units {@code d}, {@code h}, {@code m}, {@code s}, {@code ms}; a part may have a decimal fraction. Examples:
 * {@code 250ms}, {@code 2s}, {@code 1.5s}, {@code 1m30s}, {@code 1h}, {@code 2s500ms}. Case and surrounding
 * white space are ignored. ISO-8601 ({@code PT0.5S}, what {@link Duration#toString()} prints) is accepted
 * too, so a printed duration reads back. A bare number is rejected: it is ambiguous (milliseconds? seconds?).
 * Negative durations are rejected; whether zero is allowed is the caller's bound. Stateless.
 */
public final class DurationText {
    /** What every message about a bad duration suggests. */
    public static final String EXAMPLES = "250ms, 2s, 1.5s, 1m30s or 1h";

    private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|d|h|m|s)");
    private static final String[] UNIT_ORDER = {"d", "h", "m", "s", "ms"};
    private static final long[] UNIT_NANOS = {
        86_400_000_000_000L, 3_600_000_000_000L, 60_000_000_000L, 1_000_000_000L, 1_000_000L
    };
    private static final BigInteger NANOS_PER_SECOND = BigInteger.valueOf(1_000_000_000L);
    private static final BigInteger MAX_SECONDS = BigInteger.valueOf(Long.MAX_VALUE);

    private DurationText() {}

    /**
     * Parses a duration written by a person.
     *
     *
     * @param key  what the text is (a setting name, an option), for the message
     * @param text the text
     * @return the duration
     * @throws IllegalArgumentException naming the key, quoting the text and giving examples
     */
    public static Duration parse(String key, String text) {
        if (text == null || text.isBlank()) {
            throw bad(key, text, "is empty");
        }
        String t = text.strip().toLowerCase(Locale.ROOT);
        if (t.startsWith("-")) {
            throw bad(key, text, "is negative");
        }
        if (t.startsWith("p")) {
            return iso(key, text, t);
        }
        if (t.chars().allMatch(c -> Character.isDigit(c) || c == '.')) {
            throw bad(key, text, "has no unit");
        }
        Matcher m = PART.matcher(t);
        BigDecimal nanos = BigDecimal.ZERO;
        int end = 0;
        int lastUnit = -1;
        while (end < t.length()) {
            if (!m.find(end) || m.start() != end) {
                throw bad(key, text, "is not a duration");
            }
            int unit = unitIndex(m.group(2));
            if (unit <= lastUnit) {
                throw bad(key, text, "repeats a unit or puts a smaller unit before a larger one");
            }
            lastUnit = unit;
            nanos = nanos.add(new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(UNIT_NANOS[unit])));
            end = m.end();
        }
        return ofNanos(key, text, nanos);
    }

    /**
     * A duration the way people write it and {@link #parse} reads it back: {@code 250ms}, {@code 5s},
     * {@code 1.5s}, {@code 1m30s}, {@code 1h}. Below a millisecond it prints ISO-8601 ({@code PT0.0005S}).
     *
     * @param d the duration
     * @return its text
     */
    public static String format(Duration d) {
        if (d == null) {
            return "?";
        }
        if (d.isNegative()) {
            return d.toString();
        }
        if (d.getNano() % 1_000_000 != 0) {
            return d.toString();
        }
        long ms = d.toMillis();
        if (ms < 1000) {
            return ms + "ms";
        }
        if (ms < 60_000) {
            return ms % 1000 == 0
                    ? (ms / 1000) + "s"
                    : BigDecimal.valueOf(ms, 3).stripTrailingZeros().toPlainString() + "s";
        }
        long h = ms / 3_600_000;
        long m = (ms / 60_000) % 60;
        long s = (ms / 1000) % 60;
        long rest = ms % 1000;
        StringBuilder sb = new StringBuilder();
        if (h > 0) {
            sb.append(h).append('h');
        }
        if (m > 0) {
            sb.append(m).append('m');
        }
        if (s > 0) {
            sb.append(s).append('s');
        }
        if (rest > 0) {
            sb.append(rest).append("ms");
        }
        return sb.toString();
    }

    private static Duration iso(String key, String text, String lower) {
        try {
            Duration d = Duration.parse(lower.toUpperCase(Locale.ROOT));
            if (d.isNegative()) {
                throw bad(key, text, "is negative");
            }
            return d;
        } catch (DateTimeParseException e) {
            throw bad(key, text, "is not a duration");
        }
    }

    private static Duration ofNanos(String key, String text, BigDecimal nanos) {
        BigDecimal whole = nanos.stripTrailingZeros();
        if (whole.scale() > 0) {
            throw bad(key, text, "is finer than a nanosecond");
        }
        BigInteger[] secondsAndNanos = whole.toBigIntegerExact().divideAndRemainder(NANOS_PER_SECOND);
        if (secondsAndNanos[0].compareTo(MAX_SECONDS) > 0) {
            throw bad(key, text, "is too large");
        }
        return Duration.ofSeconds(secondsAndNanos[0].longValueExact(), secondsAndNanos[1].longValueExact());
    }

    private static int unitIndex(String unit) {
        for (int i = 0; i < UNIT_ORDER.length; i++) {
            if (UNIT_ORDER[i].equals(unit)) {
                return i;
            }
        }
        throw new IllegalStateException("unit " + unit); // the pattern admits only the units above
    }

    private static IllegalArgumentException bad(String key, String text, String what) {
        return new IllegalArgumentException(key + " must be a duration such as " + EXAMPLES + "; '"
                + (text == null ? "" : text.strip()) + "' " + what);
    }
}

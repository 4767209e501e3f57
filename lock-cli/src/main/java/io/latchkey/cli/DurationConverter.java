package io.latchkey.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Parses the durations people type on a command line: {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h},
 * {@code 1d}, combinations such as {@code 1m30s}, and ISO-8601 ({@code PT30S}). A bare number is rejected
 * rather than guessed (seconds? milliseconds?). Stateless and thread-safe.
 */
public final class DurationConverter implements ITypeConverter<Duration> {
    private static final Pattern PART = Pattern.compile("(\\d+)(ms|s|m|h|d)");
    private static final String EXPECTED = "write a whole number and a unit, for example 500ms, 30s, 2m, 1h or 1m30s";

    @Override
    public Duration convert(String value) {
        return parse(value);
    }

    /** The duration, or a {@link TypeConversionException} that says what to type instead. */
    public static Duration parse(String value) {
        String text = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
        if (text.isEmpty()) {
            throw new TypeConversionException("an empty duration; " + EXPECTED);
        }
        if (text.startsWith("pt") || text.startsWith("p")) {
            try {
                return Duration.parse(text.toUpperCase(Locale.ROOT));
            } catch (DateTimeParseException e) {
                throw new TypeConversionException("'" + value + "' is not a duration; " + EXPECTED);
            }
        }
        Matcher m = PART.matcher(text);
        Duration total = Duration.ZERO;
        int at = 0;
        while (at < text.length()) {
            if (!m.find(at) || m.start() != at) {
                throw new TypeConversionException("'" + value + "' is not a duration; " + EXPECTED);
            }
            long amount;
            try {
                amount = Long.parseLong(m.group(1));
                total = total.plus(switch (m.group(2)) {
                    case "ms" -> Duration.ofMillis(amount);
                    case "s" -> Duration.ofSeconds(amount);
                    case "m" -> Duration.ofMinutes(amount);
                    case "h" -> Duration.ofHours(amount);
                    default -> Duration.ofDays(amount);
                });
            } catch (NumberFormatException | ArithmeticException e) {
                throw new TypeConversionException("'" + value + "' is too long a duration; " + EXPECTED);
            }
            at = m.end();
        }
        return total;
    }

    /** The duration as this converter's own notation ({@code 1m30s}, {@code 500ms}), for messages. */
    public static String format(Duration d) {
        if (d.isZero()) {
            return "0s";
        }
        StringBuilder sb = new StringBuilder();
        long days = d.toDays();
        if (days > 0) {
            sb.append(days).append('d');
        }
        if (d.toHoursPart() > 0) {
            sb.append(d.toHoursPart()).append('h');
        }
        if (d.toMinutesPart() > 0) {
            sb.append(d.toMinutesPart()).append('m');
        }
        if (d.toSecondsPart() > 0) {
            sb.append(d.toSecondsPart()).append('s');
        }
        if (d.toMillisPart() > 0) {
            sb.append(d.toMillisPart()).append("ms");
        }
        return sb.length() == 0 ? d.toString() : sb.toString();
    }
}

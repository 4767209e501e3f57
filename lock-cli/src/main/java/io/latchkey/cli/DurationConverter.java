package io.latchkey.cli;

import io.latchkey.spi.DurationText;
import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads the durations people type on a command line with Latchkey's one duration grammar
 * ({@link DurationText}: {@code 250ms}, {@code 2s}, {@code 1.5s}, {@code 1m30s}, {@code 1h}, and ISO-8601
 * such as {@code PT30S}), the grammar every backend setting uses too. A bare number is rejected rather than
 * guessed (seconds? milliseconds?). Stateless and thread-safe.
 */
public final class DurationConverter implements ITypeConverter<Duration> {

    @Override
    public Duration convert(String value) {
        return parse(value);
    }

    /**
     * The duration, or a {@link TypeConversionException} that says what to type instead.
     *
     * @param value the text, e.g. {@code 30s}
     * @return the duration
     */
    public static Duration parse(String value) {
        try {
            return DurationText.parse("the value", value);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage());
        }
    }

    /**
     * The duration as the grammar prints it ({@code 1m30s}, {@code 1.5s}), for messages.
     *
     * @param d the duration
     * @return its text
     */
    public static String format(Duration d) {
        return DurationText.format(d);
    }
}

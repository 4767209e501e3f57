package io.latchkey.spi;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * A typed reader over the text settings of a backend (from a settings map, a URI query string, or both, as
 * {@link BackendUri} merges them). Every backend reads its settings here, so that every backend accepts the
 * same forms and words its errors the same way: {@code <backend> setting <key> must be …, was '<value>'}.
 * Durations use the one grammar of {@link DurationText}. A secret setting's value ({@link
 * Redaction#isSecretKey}) is never quoted in a message, and {@link #toString()} masks it.
 *
 * <p>Immutable and thread-safe. The typed getters return the default when the key is absent and throw an
 * {@link IllegalArgumentException} naming the backend, the key and what is allowed when the value is bad.
 * Call {@link #rejectUnknown(Collection)} once with the keys the backend knows, so that a misspelt key is an
 * error rather than silently ignored.
 */
public final class Settings {
    private final String backend;
    private final Map<String, String> values;

    private Settings(String backend, Map<String, String> values) {
        this.backend = backend;
        this.values = values;
    }

    /**
     * Settings of a backend.
     *
     *
     * @param backend what the messages call the backend: {@code Redis}, {@code etcd}, {@code JDBC}
     * @param values  key to text; null means none; null keys or values are rejected
     * @return the settings, copied
     */
    public static Settings of(String backend, Map<String, String> values) {
        if (backend == null || backend.isBlank()) {
            throw new IllegalArgumentException("backend must name the backend for messages, such as Redis");
        }
        LinkedHashMap<String, String> copy = new LinkedHashMap<>();
        if (values != null) {
            values.forEach((k, v) -> {
                if (k == null || v == null) {
                    throw new IllegalArgumentException(backend + " settings must not hold a null key or value, had "
                            + (k == null ? "a null key" : "a null value for " + k));
                }
                copy.put(k, v);
            });
        }
        return new Settings(backend, Collections.unmodifiableMap(copy));
    }

    /**
     * What the messages call the backend.
     *
     * @return the backend's name in messages
     */
    public String backend() {
        return backend;
    }

    /**
     * Whether the key is given (even with an empty value).
     *
     * @param key the setting's name
     * @return whether it is given
     */
    public boolean has(String key) {
        return values.containsKey(key);
    }

    /**
     * The keys given, in the order given.
     *
     * @return the keys
     */
    public java.util.Set<String> keys() {
        return values.keySet();
    }

    /**
     * The raw settings, unmodifiable; secret values included, so never log this map (use {@link #toString()}).
     *
     * @return the raw map
     */
    public Map<String, String> asMap() {
        return values;
    }

    /**
     * These settings without the given keys (for example once the credentials are taken out).
     *
     * @param keys the keys to leave out
     * @return the remaining settings
     */
    public Settings without(String... keys) {
        LinkedHashMap<String, String> copy = new LinkedHashMap<>(values);
        Arrays.asList(keys).forEach(copy::remove);
        return new Settings(backend, Collections.unmodifiableMap(copy));
    }

    /**
     * Rejects any key the backend does not know.
     *
     *
     * @param known the keys the backend accepts
     * @return these settings
     * @throws IllegalArgumentException {@code unknown Redis setting 'timout'; known settings: [a, b, c]}
     */
    public Settings rejectUnknown(Collection<String> known) {
        for (String key : values.keySet()) {
            if (!known.contains(key)) {
                throw new IllegalArgumentException(
                        "unknown " + backend + " setting '" + key + "'; known settings: " + new TreeSet<>(known));
            }
        }
        return this;
    }

    /**
     * The text of a setting, stripped of surrounding white space, or empty when absent or blank.
     *
     * @param key the setting's name
     * @return its stripped text, or empty
     */
    public Optional<String> text(String key) {
        String v = values.get(key);
        return v == null || v.isBlank() ? Optional.empty() : Optional.of(v.strip());
    }

    /**
     * The text of a setting, or the default when absent or blank.
     *
     * @param key the setting's name
     * @param defaultValue the value when absent or blank
     * @return its stripped text, or the default
     */
    public String text(String key, String defaultValue) {
        return text(key).orElse(defaultValue);
    }

    /**
     * A duration ({@link DurationText} grammar) between {@code min} and {@code max} inclusive.
     *
     *
     * @param key the setting's name
     * @param defaultValue the value when absent or blank
     * @param min the least value allowed
     * @param max the greatest value allowed
     * @return the duration, or the default
     * @throws IllegalArgumentException {@code Redis setting timeout must be a duration between 1ms and 10m, was '0s'}
     */
    public Duration duration(String key, Duration defaultValue, Duration min, Duration max) {
        return duration(key, min, max).orElse(defaultValue);
    }

    /**
     * A duration between {@code min} and {@code max} inclusive, or empty when absent or blank.
     *
     * @param key the setting's name
     * @param min the least value allowed
     * @param max the greatest value allowed
     * @return the duration, or empty
     * @throws IllegalArgumentException if the text is not a duration between {@code min} and {@code max}
     */
    public Optional<Duration> duration(String key, Duration min, Duration max) {
        Optional<String> t = text(key);
        if (t.isEmpty()) {
            return Optional.empty();
        }
        Duration d = DurationText.parse(backend + " setting " + key, t.get());
        if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
            throw new IllegalArgumentException(backend + " setting " + key + " must be a duration between "
                    + DurationText.format(min) + " and " + DurationText.format(max) + ", was " + shown(key));
        }
        return Optional.of(d);
    }

    /**
     * A whole number between {@code min} and {@code max} inclusive.
     *
     * @param key the setting's name
     * @param defaultValue the value when absent or blank
     * @param min the least value allowed
     * @param max the greatest value allowed
     * @return the number, or the default
     * @throws IllegalArgumentException if the text is not a whole number in range
     */
    public int integer(String key, int defaultValue, int min, int max) {
        return (int) longValue(key, defaultValue, min, max);
    }

    /**
     * A whole number between {@code min} and {@code max} inclusive.
     *
     * @param key the setting's name
     * @param defaultValue the value when absent or blank
     * @param min the least value allowed
     * @param max the greatest value allowed
     * @return the number, or the default
     * @throws IllegalArgumentException if the text is not a whole number in range
     */
    public long longValue(String key, long defaultValue, long min, long max) {
        Optional<String> t = text(key);
        if (t.isEmpty()) {
            return defaultValue;
        }
        long n;
        try {
            n = Long.parseLong(t.get());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    backend + " setting " + key + " must be a whole number between " + min + " and " + max + ", was "
                            + shown(key),
                    e);
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException(
                    backend + " setting " + key + " must be between " + min + " and " + max + ", was " + shown(key));
        }
        return n;
    }

    /**
     * A decimal number between {@code min} and {@code max} inclusive.
     *
     * @param key the setting's name
     * @param defaultValue the value when absent or blank
     * @param min the least value allowed
     * @param max the greatest value allowed
     * @return the number, or the default
     * @throws IllegalArgumentException if the text is not a decimal number in range
     */
    public double decimal(String key, double defaultValue, double min, double max) {
        Optional<String> t = text(key);
        if (t.isEmpty()) {
            return defaultValue;
        }
        double n;
        try {
            n = Double.parseDouble(t.get());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    backend + " setting " + key + " must be a number between " + min + " and " + max + ", was "
                            + shown(key),
                    e);
        }
        if (!(n >= min && n <= max)) {
            throw new IllegalArgumentException(
                    backend + " setting " + key + " must be between " + min + " and " + max + ", was " + shown(key));
        }
        return n;
    }

    /**
     * {@code true} or {@code false} (any case).
     *
     * @param key the setting's name
     * @param defaultValue the value when absent or blank
     * @return the flag, or the default
     * @throws IllegalArgumentException for any other text
     */
    public boolean flag(String key, boolean defaultValue) {
        Optional<String> t = text(key);
        if (t.isEmpty()) {
            return defaultValue;
        }
        return switch (t.get().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default ->
                throw new IllegalArgumentException(
                        backend + " setting " + key + " must be true or false, was " + shown(key));
        };
    }

    /**
     * One of an enum's constants, by name in any case, with {@code -} read as {@code _}.
     *
     * @param <E> the enum type
     * @param key the setting's name
     * @param type the enum's class
     * @param defaultValue the value when absent or blank
     * @return the constant, or the default
     * @throws IllegalArgumentException if the text names no constant (the message lists them)
     */
    public <E extends Enum<E>> E choice(String key, Class<E> type, E defaultValue) {
        Optional<String> t = text(key);
        if (t.isEmpty()) {
            return defaultValue;
        }
        String wanted = t.get().replace('-', '_');
        for (E e : type.getEnumConstants()) {
            if (e.name().equalsIgnoreCase(wanted)) {
                return e;
            }
        }
        throw new IllegalArgumentException(backend + " setting " + key + " must be one of "
                + Arrays.stream(type.getEnumConstants())
                        .map(e -> e.name().toLowerCase(Locale.ROOT).replace('_', '-'))
                        .collect(Collectors.joining(", "))
                + ", was " + shown(key));
    }

    /**
     * A path to a readable regular file, or empty when absent or blank.
     *
     * @param key the setting's name
     * @return the path, or empty
     * @throws IllegalArgumentException if the text is not a path to a readable regular file
     */
    public Optional<Path> readableFile(String key) {
        Optional<String> t = text(key);
        if (t.isEmpty()) {
            return Optional.empty();
        }
        Path p;
        try {
            p = Path.of(t.get());
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException(
                    backend + " setting " + key + " must be a file path, was " + shown(key), e);
        }
        if (!Files.isRegularFile(p) || !Files.isReadable(p)) {
            throw new IllegalArgumentException(backend + " setting " + key + " must name a readable file, was "
                    + shown(key) + " (" + (Files.exists(p) ? "not a readable regular file" : "no such file") + ")");
        }
        return Optional.of(p);
    }

    /** The settings with secret values masked: {@code {timeout=2s, password=***}}. */
    @Override
    public String toString() {
        return Redaction.redact(values).toString();
    }

    private String shown(String key) {
        return Redaction.isSecretKey(key) ? Redaction.MASK : "'" + values.get(key) + "'";
    }
}

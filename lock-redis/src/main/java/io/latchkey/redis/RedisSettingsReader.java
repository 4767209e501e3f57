package io.latchkey.redis;

import io.latchkey.spi.Namespaces;
import io.latchkey.spi.Settings;
import io.latchkey.spi.StoreErrors;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Reads {@link RedisSettings} from text (a settings map or a URI's query string) with the SPI's {@link Settings}
 * reader: the one duration grammar, bounds on every number, and errors that name the key and what is allowed.
 * Kept apart from {@link RedisSettings}, which is the typed value and its builder. Stateless.
 */
final class RedisSettingsReader {
    private static final Duration MIN_TIMEOUT = RedisSettings.MIN_TIMEOUT;
    private static final Duration MAX_TIMEOUT = RedisSettings.MAX_TIMEOUT;

    private RedisSettingsReader() {}

    static RedisSettings read(Settings s) {
        s.rejectUnknown(knownKeys());
        if (s.has("user") || s.has("password")) {
            // only a caller of fromMap gets here: BackendUri takes the credentials out of a URI's settings
            throw new IllegalArgumentException(
                    "the Redis credentials (user, password) go in the URI or in the settings "
                            + "of Latchkey.connect, never into RedisSettings");
        }
        RedisSettings defaults = RedisSettings.defaults();
        RedisSettings.Builder b = RedisSettings.builder();
        s.duration("timeout", MIN_TIMEOUT, MAX_TIMEOUT).ifPresent(b::timeout);
        s.duration(StoreErrors.CONNECT_TIMEOUT, MIN_TIMEOUT, MAX_TIMEOUT).ifPresent(b::connectTimeout);
        String keyPrefix = s.has("keyPrefix")
                ? s.asMap().get("keyPrefix") // as given: white space in a prefix is an error, not trimmed
                : defaults.keyPrefix();
        String namespace = s.has(Namespaces.SETTING) ? Namespaces.check(s.text(Namespaces.SETTING, "")) : "";
        // <keyPrefix><namespace>:{hex}: a namespace has no ':' or '{', so no namespace's keys are another's
        b.keyPrefix(namespace.isEmpty() ? keyPrefix : keyPrefix + namespace + ":");
        b.poolSize(s.integer("poolSize", defaults.poolSize(), 1, 1024));
        b.clockDrift(s.decimal("clockDrift", defaults.clockDrift(), 0, 0.5));
        if (s.has("clientName")) {
            b.clientName(s.text("clientName", ""));
        }
        if (s.has("tls")) {
            b.tls(s.flag("tls", false));
        }
        pemFile(s, "tlsCa").ifPresent(b::tlsCa);
        pemFile(s, "tlsCert").ifPresent(b::tlsCert);
        pemFile(s, "tlsKey").ifPresent(b::tlsKey);
        if (s.has("addressMap")) {
            b.addressMap(RedisAddressMap.parse(s.text("addressMap", "")));
        }
        return b.build();
    }

    /** A PEM file setting (blank is rejected by the builder); PemTls reads and checks the file later. */
    private static Optional<Path> pemFile(Settings s, String key) {
        if (!s.has(key)) {
            return Optional.empty();
        }
        try {
            return Optional.of(Path.of(s.text(key, "")));
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException(
                    RedisSettings.BACKEND + " setting " + key + " must be the path of a PEM file, was '"
                            + s.text(key, "") + "': " + e.getReason(),
                    e);
        }
    }

    /** The known keys, with the credentials a URI's settings may carry besides these. */
    private static TreeSet<String> knownKeys() {
        TreeSet<String> known = new TreeSet<>(RedisSettings.KEYS);
        known.add("user");
        known.add("password");
        return known;
    }
}

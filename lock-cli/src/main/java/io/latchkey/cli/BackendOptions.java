package io.latchkey.cli;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.spi.Redaction;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The {@code --backend} and {@code --setting} options shared by every command that talks to a store. The
 * backend is just a URI handed to {@link Latchkey#connect(String, Map)}; provider discovery does the rest,
 * so nothing here knows any backend except the embedded default (whose hand-over between processes is
 * retried, see {@link SharedFileRetry}). Filled once by picocli and used on the
 * main thread.
 */
public final class BackendOptions {

    @Option(
            names = {"-b", "--backend"},
            paramLabel = "URI",
            description = "The lock store (default: $LATCHKEY_BACKEND, else the embedded H2 file ~/.latchkey/locks). "
                    + "mem:NAME, jdbc:h2:..., jdbc:postgresql://..., jdbc:mariadb://..., redis://..., redlock://h1:p1,h2:p2,h3:p3, "
                    + "zookeeper://..., etcd://... or a scheme of your own provider.")
    String backend;

    @Option(
            names = {"-s", "--setting"},
            paramLabel = "KEY=VALUE",
            description =
                    "A backend setting (repeatable), e.g. -s password=... -s table=my_locks. See the backend's README.")
    Map<String, String> settings = new LinkedHashMap<>();

    /**
     * The URI the command names: the option, else the environment variable, else the embedded default's file.
     *
     * @return the URI to connect to
     */
    public String uri() {
        if (backend != null) {
            return backend;
        }
        String env = System.getenv(EmbeddedBackend.ENV);
        return env != null && !env.isBlank() ? env.trim() : EmbeddedBackend.DESCRIPTION;
    }

    /**
     * The URI for messages, with any password removed.
     *
     * @return the redacted URI
     */
    public String describe() {
        return Redaction.redact(uri());
    }

    /**
     * The settings as given.
     *
     * @return the {@code -s KEY=VALUE} settings
     */
    public Map<String, String> settings() {
        return Map.copyOf(settings);
    }

    /**
     * Checks the URI (usage error if malformed or no provider serves the scheme) and connects.
     *
     *
     * @return a connected client; the caller closes it
     * @throws IllegalArgumentException         bad URI, scheme or settings (exit 64)
     * @throws io.latchkey.BackendUnavailableException the store could not be reached (exit 69)
     */
    public LockClient connect() {
        if (isEmbeddedDefault()) {
            return EmbeddedServer.withServer(e -> Latchkey.connect(e.uri(), merged(e.settings())));
        }
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        String uri = BackendUris.check(uri(), loader);
        return BackendUris.explainingMissingDriver(
                uri, loader, () -> SharedFileRetry.call(uri, "opening", () -> Latchkey.connect(uri, settings())));
    }

    /**
     * True when neither --backend nor the environment names a backend.
     *
     * @return whether the embedded default backend is used
     */
    public boolean isEmbeddedDefault() {
        if (backend != null) {
            return false;
        }
        String env = System.getenv(EmbeddedBackend.ENV);
        return env == null || env.isBlank();
    }

    /**
     * The URI and settings a client of this backend uses, for code that creates backends itself
     * ({@code verify}); for the embedded default this starts its server.
     *
     * @return the endpoint to use
     */
    public EmbeddedServer.Endpoint resolve() {
        if (isEmbeddedDefault()) {
            return EmbeddedServer.withServer(e -> new EmbeddedServer.Endpoint(e.uri(), merged(e.settings())));
        }
        return new EmbeddedServer.Endpoint(
                BackendUris.check(uri(), Thread.currentThread().getContextClassLoader()), settings());
    }

    private Map<String, String> merged(Map<String, String> base) {
        Map<String, String> all = new LinkedHashMap<>(base);
        all.putAll(settings);
        return Map.copyOf(all);
    }
}

package io.latchkey.tck;

import java.util.Map;
import java.util.Objects;

/**
 * How a separate JVM reaches the store under test: the URI and settings that {@code Latchkey.connect} takes.
 * A backend's TCK subclass returns one from {@link LockBackendTck#processBackend()} so that the rules which run
 * instances in child JVMs (and kill one with SIGKILL) can run; the child connects with exactly these.
 *
 * <p>The URI and settings reach the child through its environment, never its command line, so a password in
 * them is not visible in a process listing.
 *
 * @param uri      the backend URI, as for {@code Latchkey.connect(uri, settings)}
 * @param settings backend settings (may be empty)
 */
public record ProcessBackend(String uri, Map<String, String> settings) {
    /**
     * Copies the settings.
     *
     * @param uri the backend URI
     * @param settings backend settings (may be empty)
     */
    public ProcessBackend {
        Objects.requireNonNull(uri, "uri");
        settings = Map.copyOf(settings);
    }

    /**
     * A URI without separate settings.
     *
     * @param uri the backend URI
     * @return the description
     */
    public static ProcessBackend of(String uri) {
        return new ProcessBackend(uri, Map.of());
    }

    @Override
    public String toString() {
        return "ProcessBackend[" + io.latchkey.spi.Redaction.redact(uri) + ", " + settings.size() + " settings]";
    }
}

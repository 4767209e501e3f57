package io.latchkey.core;

import io.latchkey.LockException;
import io.latchkey.spi.BackendUri;
import io.latchkey.spi.LockBackend;
import io.latchkey.spi.LockBackendProvider;
import io.latchkey.spi.Redaction;
import java.net.URI;
import java.net.URL;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Finds the backend provider for a URI, in the manner of SLF4J 2's provider discovery:
 * - an explicit override wins: the setting or system property `latchkey.provider` names a provider class;
 * - otherwise every provider on the class path is loaded through ServiceLoader, each one separately, so a
 *   provider that fails to load is reported by name (and logged, one line) without hiding the others
 *   (ProviderDiscovery finds the class and the real cause, which ServiceLoader's messages do not give);
 * - the user is told which of three situations they are in, because each needs a different fix:
 *   the provider for the scheme is present and create() fails (its own error: bad settings, TLS,
 *   unreachable); the provider for the scheme is present but failed to load (the class and the cause, never
 *   "add the dependency"); no provider serves the scheme (the artifact to add, or, if that artifact is there
 *   in a version that does not serve the scheme, that).
 */
public final class ProviderRegistry {
    /** Setting or system property naming a provider class to use regardless of discovery. */
    public static final String PROVIDER_OVERRIDE = "latchkey.provider";

    /** Settings the core reads itself and does not pass to providers. */
    static final java.util.Set<String> CORE_SETTINGS = java.util.Set.of("owner", PROVIDER_OVERRIDE);

    private static final Logger log = LoggerFactory.getLogger(ProviderRegistry.class);

    private ProviderRegistry() {}

    /**
     * A provider that was found, or one that failed to load and why.
     *
     * @param provider   the provider, or {@code null} if it failed to load
     * @param failedName the class that failed to load, or {@code null} when not even that is known
     * @param failure    why it failed (the error as thrown), or {@code null} for a loaded provider
     * @param listedIn   the META-INF/services file that names the failed class, when known
     */
    public record Discovered(LockBackendProvider provider, String failedName, Throwable failure, URL listedIn) {

        public Discovered(LockBackendProvider provider, String failedName, Throwable failure) {
            this(provider, failedName, failure, null);
        }

        /**
         * The schemes this provider serves. For one that failed to load: the schemes Latchkey knows its class
         * would have served (its own backends, by package), else empty.
         */
        public Set<String> schemes() {
            if (provider != null) {
                return provider.schemes();
            }
            return KnownProviders.forProviderClass(failedName)
                    .map(KnownProviders.Artifact::schemes)
                    .orElse(Set.of());
        }

        /**
         * For a provider that failed to load, one sentence: the class, the schemes it would have served (or
         * where it is listed), and the real cause. For example {@code Latchkey backend provider
         * io.latchkey.etcd.EtcdBackendProvider (schemes etcd, etcds; io.latchkey:lock-etcd) failed to load: a class
         * it needs, io.etcd.jetcd.Client, is not on the class path (NoClassDefFoundError)}.
         */
        public String failureSentence() {
            if (provider != null) {
                return "Latchkey backend provider " + provider.getClass().getName() + " loaded";
            }
            String cause = ProviderDiscovery.rootCause(failedName, failure);
            if (failedName == null) {
                return "A Latchkey backend provider failed to load: " + cause;
            }
            return "Latchkey backend provider " + failedName + " (" + origin() + ") failed to load: " + cause;
        }

        private String origin() {
            var artifact = KnownProviders.forProviderClass(failedName);
            if (artifact.isPresent()) {
                return "schemes "
                        + String.join(", ", new TreeSet<>(artifact.get().schemes())) + "; "
                        + artifact.get().coordinates();
            }
            return "schemes unknown until it loads" + (listedIn == null ? "" : "; listed in " + jarOf(listedIn));
        }

        private static String jarOf(URL servicesFile) {
            String s = servicesFile.toString();
            int bang = s.indexOf("!/");
            String path = bang >= 0
                    ? s.substring(0, bang)
                    : s.substring(0, Math.max(0, s.length() - ProviderDiscovery.SERVICE_FILE.length()));
            String trimmed = path.replaceAll("/+$", "");
            return trimmed.substring(trimmed.lastIndexOf('/') + 1);
        }
    }

    /** The scheme of a Latchkey URI: {@code redis}, {@code mem}; {@code jdbc:postgresql} for JDBC URLs. */
    public static String schemeOf(String uri) {
        int colon = uri.indexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("backend URI " + quoteUri(uri) + " has no scheme; expected for example "
                    + "mem:, redis://host:6379, jdbc:postgresql://host/db, zookeeper://host:2181, etcd://host:2379");
        }
        String scheme = uri.substring(0, colon).toLowerCase(Locale.ROOT);
        if (scheme.equals("jdbc")) {
            int next = uri.indexOf(':', colon + 1);
            if (next < 0) {
                throw new IllegalArgumentException("JDBC URL " + quoteUri(uri)
                        + " has no sub-protocol; expected jdbc:postgresql:, jdbc:mysql:, jdbc:mariadb: or jdbc:h2:");
            }
            scheme = "jdbc:" + uri.substring(colon + 1, next).toLowerCase(Locale.ROOT);
        }
        return scheme;
    }

    /** The artifact that serves a scheme, for the "add this dependency" hint; null if not one of Latchkey's. */
    static String artifactFor(String scheme) {
        return KnownProviders.forScheme(scheme)
                .map(KnownProviders.Artifact::coordinates)
                .orElse(null);
    }

    /**
     * Every provider on the class path (and module path), loaded one by one; failures are kept, not thrown,
     * each with the class that failed and the real cause (see {@link Discovered#failureSentence()}).
     */
    public static List<Discovered> discover(ClassLoader loader) {
        return ProviderDiscovery.discover(loader);
    }

    /**
     * Creates the backend for a URI, choosing the provider as described above. Three outcomes besides success,
     * each with its own message: the provider for the scheme is present and its {@code create} fails (its own
     * error, unchanged: a TLS problem is reported as a TLS problem); the provider for the scheme is present but
     * failed to load (why it failed); no provider serves the scheme (which artifact to add).
     */
    public static LockBackend create(String uriText, Map<String, String> settings, ClassLoader loader) {
        if (uriText == null || uriText.isBlank()) {
            throw new IllegalArgumentException(
                    "backend URI must not be null or blank; for example mem: or redis://localhost:6379");
        }
        if (settings == null) {
            throw new IllegalArgumentException("settings must not be null; pass Map.of()");
        }
        String scheme = schemeOf(uriText);
        URI uri = toUri(uriText);
        String override = settings.getOrDefault(PROVIDER_OVERRIDE, System.getProperty(PROVIDER_OVERRIDE));
        Map<String, String> backendSettings = new java.util.HashMap<>(settings);
        backendSettings.keySet().removeAll(CORE_SETTINGS);
        backendSettings = Map.copyOf(backendSettings);
        if (override != null && !override.isBlank()) {
            return createWith(instantiate(override.trim(), loader), scheme, uri, uriText, backendSettings);
        }
        List<Discovered> found = discover(loader);
        LockBackendProvider chosen = null;
        for (Discovered d : found) {
            if (d.provider() != null && d.provider().schemes().contains(scheme)) {
                if (chosen == null) {
                    chosen = d.provider();
                } else {
                    log.warn(
                            "Both {} and {} serve scheme '{}'; using the first. Set {} to choose.",
                            chosen.getClass().getName(),
                            d.provider().getClass().getName(),
                            scheme,
                            PROVIDER_OVERRIDE);
                }
            }
        }
        if (chosen != null) {
            return createWith(chosen, scheme, uri, uriText, backendSettings);
        }
        for (Discovered d : found) {
            if (d.provider() == null && d.schemes().contains(scheme)) {
                throw new LockException(
                        failedToLoadMessage(uriText, scheme, d), null, Redaction.redact(uriText), d.failure());
            }
        }
        throw new LockException(noProviderMessage(uriText, scheme, found), null, Redaction.redact(uriText));
    }

    /**
     * The provider's own error reaches the user unchanged: it knows what is wrong (bad settings, TLS, an
     * unreachable server). Only a missing class is translated, because its bare name says nothing about which
     * artifact's dependencies are incomplete.
     */
    private static LockBackend createWith(
            LockBackendProvider provider, String scheme, URI uri, String uriText, Map<String, String> settings) {
        String name = provider.getClass().getName();
        LockBackend backend;
        try {
            backend = provider.create(uri, settings);
        } catch (LinkageError e) {
            String artifact = KnownProviders.forProviderClass(name)
                    .map(KnownProviders.Artifact::coordinates)
                    .orElse(null);
            throw new LockException(
                    "Latchkey backend provider " + name + " for scheme '" + scheme + "' (URI "
                            + quoteUri(uriText) + ") loaded, but could not create the backend: "
                            + ProviderDiscovery.rootCause(name, e) + "; put the dependencies of "
                            + (artifact != null ? artifact : "the artifact that holds " + name)
                            + " on the class path too",
                    null,
                    Redaction.redact(uriText),
                    e);
        }
        if (backend == null) {
            throw new LockException(
                    "Latchkey backend provider " + name + " returned no backend for " + quoteUri(uriText)
                            + "; LockBackendProvider.create must return a backend or throw",
                    null,
                    Redaction.redact(uriText));
        }
        return backend;
    }

    private static String failedToLoadMessage(String uriText, String scheme, Discovered failed) {
        String artifact = KnownProviders.forProviderClass(failed.failedName())
                .map(KnownProviders.Artifact::coordinates)
                .orElse("its artifact");
        return "The Latchkey backend for scheme '" + scheme + "' (URI " + quoteUri(uriText) + ") is on the class path, "
                + "but its provider failed to load. " + failed.failureSentence() + ". Adding the dependency again "
                + "will not help: make the class path complete (" + artifact + " and its own dependencies, in "
                + "compatible versions), then connect again.";
    }

    private static String noProviderMessage(String uriText, String scheme, List<Discovered> found) {
        TreeSet<String> schemes = new TreeSet<>();
        List<String> present = new ArrayList<>();
        String artifact = artifactFor(scheme);
        for (Discovered d : found) {
            if (d.provider() != null) {
                schemes.addAll(d.provider().schemes());
                String name = d.provider().getClass().getName();
                if (artifact != null
                        && KnownProviders.forProviderClass(name)
                                .filter(a -> a.coordinates().equals(artifact))
                                .isPresent()) {
                    present.add(name + " serves "
                            + String.join(", ", new TreeSet<>(d.provider().schemes())));
                }
            }
        }
        StringBuilder sb = new StringBuilder("No Latchkey backend serves scheme '")
                .append(scheme)
                .append("' (URI ")
                .append(quoteUri(uriText))
                .append("). Schemes found: ")
                .append(schemes.isEmpty() ? "none" : schemes)
                .append('.');
        boolean someFailed = false;
        for (Discovered d : found) {
            if (d.provider() == null) {
                someFailed = true;
                sb.append(' ').append(d.failureSentence()).append('.');
            }
        }
        if (!present.isEmpty()) {
            // the artifact is there, an older or newer version of it that does not know this scheme
            sb.append(' ')
                    .append(artifact)
                    .append(" is on the class path (")
                    .append(String.join("; ", present))
                    .append(") but does not serve '")
                    .append(scheme)
                    .append("': use a version of ")
                    .append(artifact)
                    .append(" that does, or one of the schemes it serves.");
        } else if (artifact != null) {
            sb.append(" Add the dependency ").append(artifact).append(" to the class path.");
        } else {
            sb.append(" Latchkey's own schemes are ")
                    .append(String.join(", ", KnownProviders.allSchemes()))
                    .append(". For another scheme add the artifact of a provider that serves it, or set ")
                    .append(PROVIDER_OVERRIDE)
                    .append(" to a LockBackendProvider class name.");
            if (someFailed) {
                sb.append(" If a provider that failed to load above serves '")
                        .append(scheme)
                        .append("', fix it first.");
            }
        }
        return sb.toString();
    }

    private static LockBackendProvider instantiate(String className, ClassLoader loader) {
        try {
            Class<?> type = Class.forName(className, true, loader);
            if (!LockBackendProvider.class.isAssignableFrom(type)) {
                throw new IllegalArgumentException(PROVIDER_OVERRIDE + "=" + className + " does not implement "
                        + LockBackendProvider.class.getName());
            }
            return (LockBackendProvider) type.getDeclaredConstructor().newInstance();
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException(
                    PROVIDER_OVERRIDE + "=" + className + " could not be loaded: no class of "
                            + "that name is on the class path; name a LockBackendProvider class, for example "
                            + "io.latchkey.mem.MemoryBackendProvider",
                    e);
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new IllegalArgumentException(
                    PROVIDER_OVERRIDE + "=" + className
                            + " could not be loaded: " + ProviderDiscovery.rootCause(className, e)
                            + "; it must be on the class path, implement " + LockBackendProvider.class.getName()
                            + " and have a public no-argument constructor",
                    e);
        }
    }

    /** A URI for the provider, through the SPI's one parser ({@code mem:} alone becomes {@code mem:/}). */
    static URI toUri(String uriText) {
        return BackendUri.toUri(uriText);
    }

    private static String quoteUri(String uri) {
        return "'" + Redaction.redact(uri) + "'";
    }
}

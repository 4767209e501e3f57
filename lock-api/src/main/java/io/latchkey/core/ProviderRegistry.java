package io.latchkey.core;

import io.latchkey.LockException;
import io.latchkey.spi.LockBackend;
import io.latchkey.spi.LockBackendProvider;
import io.latchkey.spi.Redaction;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Finds the backend provider for a URI, in the manner of SLF4J 2's provider discovery:
 * - an explicit override wins: the setting or system property `latchkey.provider` names a provider class;
 * - otherwise every provider on the class path is loaded through ServiceLoader, each one separately, so a
 *   provider that fails to load is reported by name (and logged) without hiding the others;
 * - when no provider serves the scheme, the error lists the schemes that were found, the providers that
 *   failed, and the artifact that serves the scheme.
 */
public final class ProviderRegistry {
    /** Setting or system property naming a provider class to use regardless of discovery. */
    public static final String PROVIDER_OVERRIDE = "latchkey.provider";

    /** Settings the core reads itself and does not pass to providers. */
    static final java.util.Set<String> CORE_SETTINGS = java.util.Set.of("owner", PROVIDER_OVERRIDE);

    private static final Logger log = LoggerFactory.getLogger(ProviderRegistry.class);

    private ProviderRegistry() {
    }

    /** A provider that was found, or one that failed to load and why. */
    public record Discovered(LockBackendProvider provider, String failedName, Throwable failure) {
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
                throw new IllegalArgumentException("JDBC URL " + quoteUri(uri) + " has no sub-protocol; expected jdbc:postgresql:, jdbc:mysql:, jdbc:mariadb: or jdbc:h2:");
            }
            scheme = "jdbc:" + uri.substring(colon + 1, next).toLowerCase(Locale.ROOT);
        }
        return scheme;
    }

    /** The artifact that serves a scheme, for the "add this dependency" hint. */
    static String artifactFor(String scheme) {
        if (scheme.startsWith("jdbc:")) {
            return "io.latchkey:lock-jdbc";
        }
        return switch (scheme) {
            case "mem" -> "io.latchkey:lock-api";
            case "redis", "rediss", "redlock" -> "io.latchkey:lock-redis";
            case "zookeeper", "zk" -> "io.latchkey:lock-zookeeper";
            case "etcd", "etcds" -> "io.latchkey:lock-etcd";
            default -> null;
        };
    }

    /** Every provider on the class path, loaded one by one; failures are kept, not thrown. */
    public static List<Discovered> discover(ClassLoader loader) {
        List<Discovered> out = new ArrayList<>();
        Iterator<LockBackendProvider> it = ServiceLoader.load(LockBackendProvider.class, loader).iterator();
        for (;;) {
            try {
                if (!it.hasNext()) {
                    break;
                }
                out.add(new Discovered(it.next(), null, null));
            } catch (ServiceConfigurationError e) {
                String name = failedProviderName(e);
                log.error("Latchkey backend provider {} failed to load; its schemes are unavailable", name, e);
                out.add(new Discovered(null, name, e));
            }
        }
        return out;
    }

    /** Creates the backend for a URI, choosing the provider as described above. */
    public static LockBackend create(String uriText, Map<String, String> settings, ClassLoader loader) {
        if (uriText == null || uriText.isBlank()) {
            throw new IllegalArgumentException("backend URI must not be null or blank; for example mem: or redis://localhost:6379");
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
            return instantiate(override.trim(), loader).create(uri, backendSettings);
        }
        List<Discovered> found = discover(loader);
        LockBackendProvider chosen = null;
        TreeSet<String> schemes = new TreeSet<>();
        for (Discovered d : found) {
            if (d.provider() == null) {
                continue;
            }
            schemes.addAll(d.provider().schemes());
            if (d.provider().schemes().contains(scheme)) {
                if (chosen == null) {
                    chosen = d.provider();
                } else {
                    log.warn("Both {} and {} serve scheme '{}'; using the first. Set {} to choose.",
                            chosen.getClass().getName(), d.provider().getClass().getName(), scheme, PROVIDER_OVERRIDE);
                }
            }
        }
        if (chosen == null) {
            throw new LockException(noProviderMessage(uriText, scheme, schemes, found), null, Redaction.redact(uriText));
        }
        return chosen.create(uri, backendSettings);
    }

    private static String noProviderMessage(String uriText, String scheme, TreeSet<String> schemes, List<Discovered> found) {
        StringBuilder sb = new StringBuilder("No Latchkey backend serves scheme '").append(scheme).append("' (URI ")
                .append(quoteUri(uriText)).append("). Schemes found: ").append(schemes.isEmpty() ? "none" : schemes).append('.');
        for (Discovered d : found) {
            if (d.provider() == null) {
                sb.append(" Provider ").append(d.failedName()).append(" failed to load: ").append(rootMessage(d.failure())).append('.');
            }
        }
        String artifact = artifactFor(scheme);
        if (artifact != null) {
            sb.append(" Add the dependency ").append(artifact).append(" to the class path.");
        } else {
            sb.append(" Add the artifact of a provider for this scheme, or set ").append(PROVIDER_OVERRIDE)
                    .append(" to a LockBackendProvider class name.");
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
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new IllegalArgumentException(PROVIDER_OVERRIDE + "=" + className
                    + " could not be loaded: " + rootMessage(e) + "; it needs a public no-argument constructor", e);
        }
    }

    /** A URI for the provider; {@code mem:} alone (no scheme-specific part) becomes {@code mem:/}. */
    static URI toUri(String uriText) {
        String text = uriText.endsWith(":") ? uriText + "/" : uriText;
        try {
            return new URI(text);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("backend URI " + quoteUri(uriText) + " is malformed: "
                    + Redaction.redact(e.getReason()) + " at index " + e.getIndex(), null);
        }
    }

    private static String quoteUri(String uri) {
        return "'" + Redaction.redact(uri) + "'";
    }

    private static String failedProviderName(ServiceConfigurationError e) {
        // ServiceLoader's message reads "io.latchkey.spi.LockBackendProvider: Provider x.Y could not be instantiated"
        String msg = String.valueOf(e.getMessage());
        int at = msg.indexOf("Provider ");
        if (at >= 0) {
            String rest = msg.substring(at + "Provider ".length());
            int space = rest.indexOf(' ');
            return space > 0 ? rest.substring(0, space) : rest;
        }
        return msg;
    }

    private static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + (root.getMessage() == null ? "" : ": " + root.getMessage());
    }
}

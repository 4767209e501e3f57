package io.latchkey.core;

import io.latchkey.core.ProviderRegistry.Discovered;
import io.latchkey.spi.LockBackendProvider;
import io.latchkey.spi.StoreErrors;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Loads every LockBackendProvider and, for those that fail, finds out which class failed and why.
 *
 * ServiceLoader stays the one that decides what loads (module path, class path, layers, duplicates). What it
 * reports about a failure is not usable: the message format differs by failure and by JDK (JDK 17 says
 * "x.YProvider Unable to get public no-arg constructor" when a class the provider refers to is missing, JDK 25
 * throws a bare NoClassDefFoundError that names no provider at all, and a missing superclass escapes as a bare
 * NoClassDefFoundError on both). So when anything failed, the entries of every META-INF/services file that did
 * not load are loaded once more here, by name, and the error each one gives is the one reported. Errors that
 * no entry explains (a malformed services file, a module's provider) are reported with ServiceLoader's words.
 */
final class ProviderDiscovery {
    static final String SERVICE_FILE = "META-INF/services/" + LockBackendProvider.class.getName();

    /** An iterator that keeps failing (a broken class path) must not spin forever. */
    private static final int MAX_FAILURES = 256;

    private static final Logger log = LoggerFactory.getLogger(ProviderRegistry.class);

    private ProviderDiscovery() {}

    static List<Discovered> discover(ClassLoader loader) {
        ClassLoader cl = loader != null ? loader : ClassLoader.getSystemClassLoader();
        List<Discovered> out = new ArrayList<>();
        List<Throwable> errors = new ArrayList<>();
        Set<String> loaded = new HashSet<>();
        Iterator<LockBackendProvider> it =
                ServiceLoader.load(LockBackendProvider.class, cl).iterator();
        for (; ; ) {
            try {
                if (!it.hasNext()) {
                    break;
                }
                LockBackendProvider p = it.next();
                loaded.add(p.getClass().getName());
                out.add(new Discovered(p, null, null));
            } catch (ServiceConfigurationError | LinkageError e) {
                errors.add(e);
                if (errors.size() >= MAX_FAILURES) {
                    break;
                }
            }
        }
        if (!errors.isEmpty()) {
            out.addAll(explain(errors, loaded, cl));
        }
        for (Discovered d : out) {
            if (d.provider() == null) {
                log.warn("{}", d.failureSentence());
                log.debug("Why the provider {} failed to load", d.failedName(), d.failure());
            }
        }
        return out;
    }

    private static List<Discovered> explain(List<Throwable> errors, Set<String> loaded, ClassLoader cl) {
        List<Discovered> failed = new ArrayList<>();
        Set<String> explained = new HashSet<>();
        for (Map.Entry<String, URL> entry : listedProviders(cl).entrySet()) {
            String name = entry.getKey();
            if (loaded.contains(name)) {
                continue;
            }
            Throwable failure = tryLoad(name, cl);
            if (failure != null) {
                failed.add(new Discovered(null, name, failure, entry.getValue()));
                explained.add(name);
            }
        }
        for (Throwable e : errors) {
            boolean named = explained.stream()
                    .anyMatch(n -> String.valueOf(e.getMessage()).contains(n));
            // a bare LinkageError names no provider: an entry that failed again above is the one it came from
            boolean bare = e instanceof LinkageError && !explained.isEmpty();
            if (!named && !bare) {
                failed.add(new Discovered(null, null, e, null));
            }
        }
        return failed;
    }

    /** Loads and instantiates one provider as ServiceLoader would; the error, or null if it works now. */
    private static Throwable tryLoad(String className, ClassLoader cl) {
        try {
            Class<?> type = Class.forName(className, false, cl);
            if (!LockBackendProvider.class.isAssignableFrom(type)) {
                return new ServiceConfigurationError(
                        className + " does not implement " + LockBackendProvider.class.getName());
            }
            type.getConstructor().newInstance();
            return null;
        } catch (InvocationTargetException e) {
            return e.getCause() != null ? e.getCause() : e;
        } catch (Throwable e) { // NOPMD: diagnosis only; whatever it is, it is why this provider cannot load
            if (e instanceof OutOfMemoryError oom) {
                throw oom;
            }
            return e;
        }
    }

    /** Every class named in a META-INF/services file for the provider interface, with the file that names it. */
    static Map<String, URL> listedProviders(ClassLoader cl) {
        Map<String, URL> names = new LinkedHashMap<>();
        Enumeration<URL> files;
        try {
            files = cl.getResources(SERVICE_FILE);
        } catch (IOException e) {
            return names;
        }
        while (files.hasMoreElements()) {
            URL file = files.nextElement();
            try (BufferedReader r =
                    new BufferedReader(new InputStreamReader(file.openStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    int hash = line.indexOf('#');
                    String name = (hash >= 0 ? line.substring(0, hash) : line).strip();
                    if (!name.isEmpty()) {
                        names.putIfAbsent(name, file);
                    }
                }
            } catch (IOException e) {
                log.debug("Could not read {}", file, e);
            }
        }
        return names;
    }

    /**
     * The real reason a provider failed, in words: a missing class it needs, a missing constructor, or the
     * root exception's type and message. Wrappers (ServiceConfigurationError, InvocationTargetException,
     * ExceptionInInitializerError) are looked through.
     */
    static String rootCause(String providerName, Throwable failure) {
        if (failure == null) {
            return "no reason given";
        }
        Throwable root = failure;
        int depth = 0;
        for (Throwable t = failure; t != null && depth < 32; t = t.getCause() == t ? null : t.getCause(), depth++) {
            if (t instanceof NoClassDefFoundError || t instanceof ClassNotFoundException) {
                String missing = String.valueOf(t.getMessage()).replace('/', '.');
                if (missing.equals(providerName)) {
                    return "its class is not on the class path, although a META-INF/services file names it ("
                            + t.getClass().getSimpleName() + ")";
                }
                if (!missing.startsWith("Could not initialize class")) {
                    return "a class it needs, " + missing + ", is not on the class path ("
                            + t.getClass().getSimpleName() + ")";
                }
            }
            if (t instanceof NoSuchMethodException
                    && String.valueOf(t.getMessage()).endsWith(".<init>()")) {
                return "it has no public no-argument constructor";
            }
            root = t;
        }
        String message = root.getMessage();
        String text = root.getClass().getSimpleName() + (message == null || message.isBlank() ? "" : ": " + message);
        if (root instanceof ServiceConfigurationError) {
            // ServiceLoader's own words, minus the service interface it puts in front
            text = String.valueOf(message).replace(LockBackendProvider.class.getName() + ": ", "");
        }
        return StoreErrors.oneLine(text);
    }
}

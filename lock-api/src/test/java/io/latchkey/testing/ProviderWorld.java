package io.latchkey.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Set;

/**
 * A class path of one's own for provider discovery tests: it shows a chosen META-INF/services file instead of
 * the test class path's, hides chosen classes (as if their jar were missing), and defines the chosen provider
 * classes itself, so that a hidden class breaks their linking exactly as a missing dependency jar would. Every
 * other class comes from the test class path.
 */
public final class ProviderWorld extends ClassLoader {
    private static final String SERVICE_FILE = "META-INF/services/io.latchkey.spi.LockBackendProvider";

    private final URL servicesFile;
    private final Set<String> hidden;
    private final Set<String> ownClasses;

    /**
     * @param dir        where to write the services file
     * @param providers  the lines of the services file (provider class names)
     * @param hidden     classes that are "not on the class path"
     * @param ownClasses classes this loader defines itself (the providers under test), so they link against it
     */
    public ProviderWorld(Path dir, List<String> providers, Set<String> hidden, Set<String> ownClasses) {
        super("provider-world", ProviderWorld.class.getClassLoader());
        this.hidden = Set.copyOf(hidden);
        this.ownClasses = Set.copyOf(ownClasses);
        try {
            Path file = dir.resolve(SERVICE_FILE);
            Files.createDirectories(file.getParent());
            Files.writeString(file, String.join("\n", providers) + "\n", StandardCharsets.UTF_8);
            this.servicesFile = file.toUri().toURL();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Providers defined by this loader, none hidden. */
    public static ProviderWorld of(Path dir, Class<?>... providers) {
        List<String> names =
                java.util.Arrays.stream(providers).map(Class::getName).toList();
        return new ProviderWorld(dir, names, Set.of(), Set.copyOf(names));
    }

    @Override
    public Enumeration<URL> getResources(String name) throws IOException {
        return SERVICE_FILE.equals(name) ? Collections.enumeration(List.of(servicesFile)) : super.getResources(name);
    }

    @Override
    public URL getResource(String name) {
        return SERVICE_FILE.equals(name) ? servicesFile : super.getResource(name);
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (hidden.contains(name)) {
            throw new ClassNotFoundException(name);
        }
        if (!ownClasses.contains(name)) {
            return super.loadClass(name, resolve);
        }
        synchronized (getClassLoadingLock(name)) {
            Class<?> c = findLoadedClass(name);
            if (c == null) {
                try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
                    if (in == null) {
                        throw new ClassNotFoundException(name);
                    }
                    byte[] bytes = in.readAllBytes();
                    c = defineClass(name, bytes, 0, bytes.length);
                } catch (IOException e) {
                    throw new ClassNotFoundException(name, e);
                }
            }
            if (resolve) {
                resolveClass(c);
            }
            return c;
        }
    }
}

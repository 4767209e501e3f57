package io.latchkey.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.lang.module.Configuration;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The Latchkey jars this build depends on, put on a module path: each has its stable module name (io.latchkey for
 * lock-api's module-info, Automatic-Module-Name io.latchkey.* for the others), no two split a package, and the
 * backends' providers are bound to io.latchkey's {@code uses LockBackendProvider} and found by ServiceLoader in a
 * module layer.
 */
class ModulePathTest {
    private static List<Path> latchkeyJars() {
        return Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
                .map(Path::of)
                .filter(p -> p.toString().contains(File.separator + "io" + File.separator + "latchkey" + File.separator))
                .filter(p -> p.getFileName().toString().endsWith(".jar"))
                .filter(p -> !p.getFileName().toString().endsWith("-tests.jar"))
                .filter(p -> !p.getFileName().toString().startsWith("lock-tck-")
                        && !p.getFileName().toString().startsWith("lock-servers-"))
                .collect(Collectors.toList());
    }

    private static Path slf4j() {
        return Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
                .map(Path::of)
                .filter(p -> p.getFileName().toString().startsWith("slf4j-api-"))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void latchkeyJarsResolveOnTheModulePath() throws Exception {
        List<Path> jars = latchkeyJars();
        assertFalse(jars.isEmpty(), "no Latchkey jar on the class path");
        Map<String, String> names = new TreeMap<>();
        for (Path jar : jars) {
            ModuleReference ref = ModuleFinder.of(jar).findAll().iterator().next();
            String artifact = jar.getFileName().toString().replaceFirst("-[0-9].*$", "");
            String expected = artifact.equals("lock-api") ? "io.latchkey" : "io.latchkey." + artifact.substring(5);
            assertEquals(expected, ref.descriptor().name(), () -> jar + " has the wrong module name");
            names.put(ref.descriptor().name(), artifact);
        }
        List<Path> path = new java.util.ArrayList<>(jars);
        path.add(slf4j());
        ModuleFinder finder = ModuleFinder.of(path.toArray(Path[]::new));
        Configuration cf = ModuleLayer.boot()
                .configuration()
                .resolveAndBind(finder, ModuleFinder.of(), names.keySet());
        ModuleLayer layer = ModuleLayer.boot().defineModulesWithOneLoader(cf, ClassLoader.getPlatformClassLoader());
        Class<?> spi = layer.findLoader("io.latchkey").loadClass("io.latchkey.spi.LockBackendProvider");
        Set<String> providers = ServiceLoader.load(layer, spi).stream()
                .map(p -> p.type().getName())
                .collect(Collectors.toSet());
        assertTrue(providers.contains("io.latchkey.mem.MemoryBackendProvider"), () -> "providers: " + providers);
        long backends = names.keySet().stream()
                .filter(n -> Set.of("io.latchkey.redis", "io.latchkey.jdbc", "io.latchkey.zookeeper", "io.latchkey.etcd",
                                "io.latchkey.mongodb")
                        .contains(n))
                .count();
        assertEquals(backends + 1, providers.size(), () -> "providers: " + providers + " for modules " + names);
    }
}

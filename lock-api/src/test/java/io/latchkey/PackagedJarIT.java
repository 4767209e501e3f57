package io.latchkey;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.spi.LockBackendProvider;
import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Runs in Failsafe's integration-test phase, against the jar Maven packaged: the provider is found through
 * module-info's {@code provides} on the module path, and through META-INF/services on the class path.
 */
class PackagedJarIT {

    private static Path packagedJar() throws Exception {
        try (Stream<Path> files = Files.list(Paths.get("target"))) {
            return files.filter(p -> p.getFileName().toString().matches("lock-api-.*\\.jar"))
                    .filter(p -> !p.getFileName().toString().contains("sources")
                            && !p.getFileName().toString().contains("tests"))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no packaged lock-api jar in target/"));
        }
    }

    private static Path slf4jJar() throws Exception {
        Path jar = Paths.get(org.slf4j.Logger.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        assertThat(jar.toString()).endsWith(".jar");
        return jar;
    }

    @Test
    @DisplayName("the jar is a named module that exports the API and SPI and provides the mem: backend")
    void moduleDescriptorDeclaresTheProvider() throws Exception {
        ModuleDescriptor d =
                ModuleFinder.of(packagedJar()).find("io.latchkey").orElseThrow().descriptor();
        assertThat(d.exports().stream().map(ModuleDescriptor.Exports::source))
                .contains("io.latchkey", "io.latchkey.spi", "io.latchkey.mem")
                .doesNotContain("io.latchkey.core");
        assertThat(d.uses()).contains(LockBackendProvider.class.getName());
        assertThat(d.provides()).anySatisfy(p -> {
            assertThat(p.service()).isEqualTo(LockBackendProvider.class.getName());
            assertThat(p.providers()).contains("io.latchkey.mem.MemoryBackendProvider");
        });
    }

    @Test
    @DisplayName("on the module path, ServiceLoader finds the mem: provider through module-info")
    void serviceLoaderFindsTheProviderOnTheModulePath() throws Exception {
        ModuleFinder finder = ModuleFinder.of(packagedJar(), slf4jJar());
        Configuration cf =
                ModuleLayer.boot().configuration().resolveAndBind(finder, ModuleFinder.of(), Set.of("io.latchkey"));
        ModuleLayer layer = ModuleLayer.boot().defineModulesWithOneLoader(cf, ClassLoader.getPlatformClassLoader());
        Class<?> service = layer.findLoader("io.latchkey").loadClass("io.latchkey.spi.LockBackendProvider");
        List<String> found = ServiceLoader.load(layer, service).stream()
                .map(p -> p.type().getName())
                .collect(Collectors.toList());
        assertThat(found).contains("io.latchkey.mem.MemoryBackendProvider");
        assertThat(layer.findModule("io.latchkey").orElseThrow().isNamed()).isTrue();
    }

    @Test
    @DisplayName("on the class path, Latchkey.connect(\"mem:\") works from the packaged jar")
    void connectWorksFromThePackagedJar() throws Exception {
        assertThat(Latchkey.class
                        .getProtectionDomain()
                        .getCodeSource()
                        .getLocation()
                        .getPath())
                .endsWith(".jar");
        try (LockClient c = Latchkey.connect("mem:");
                LockHandle h = c.lock("it").tryAcquire().orElseThrow()) {
            assertThat(h.isValid()).isTrue();
        }
    }
}

package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.latchkey.LockException;
import io.latchkey.etcd.BrokenTestEtcdProvider;
import io.latchkey.mongodb.BrokenTestMongoProvider;
import io.latchkey.etcd.EtcdOnlyTestProvider;
import io.latchkey.etcd.LazyClientTestEtcdProvider;
import io.latchkey.jdbc.BrokenTestJdbcProvider;
import io.latchkey.mem.MemoryBackendProvider;
import io.latchkey.redis.BrokenTestRedisProvider;
import io.latchkey.redis.SubclassedTestRedisProvider;
import io.latchkey.redis.TestRedisProviderBase;
import io.latchkey.spi.LockBackend;
import io.latchkey.testing.ExplodingProvider;
import io.latchkey.testing.MisconfiguredProvider;
import io.latchkey.testing.MissingDependency;
import io.latchkey.testing.ProviderWorld;
import io.latchkey.zookeeper.BrokenTestZooKeeperProvider;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * "Module missing" versus "module present, configuration wrong" versus "module present, failed to load", for
 * every scheme Latchkey serves, with fake providers on a class path of the test's own (ProviderWorld). The
 * failing providers fail as real ones do when a dependency jar is missing, which JDK 17 and JDK 25 report
 * differently; CI runs this class on both.
 */
class ProviderRegistryTest {
    private static final String MISSING = MissingDependency.class.getName();

    @TempDir
    Path dir;

    /** Every scheme, a URI for it with a password, the artifact that serves it, and a provider that fails to load. */
    static Stream<Arguments> schemes() {
        return Stream.of(
                Arguments.of("redis://:s3cretPw@h:6379", "io.latchkey:lock-redis", BrokenTestRedisProvider.class),
                Arguments.of("rediss://s3cretPw@h:6380", "io.latchkey:lock-redis", BrokenTestRedisProvider.class),
                Arguments.of(
                        "redlock://u:s3cretPw@h1:1,h2:2,h3:3", "io.latchkey:lock-redis", BrokenTestRedisProvider.class),
                Arguments.of(
                        "zookeeper://u:s3cretPw@h:2181/app",
                        "io.latchkey:lock-zookeeper",
                        BrokenTestZooKeeperProvider.class),
                Arguments.of("etcd://u:s3cretPw@h:2379", "io.latchkey:lock-etcd", BrokenTestEtcdProvider.class),
                Arguments.of("etcds://u:s3cretPw@h:2379", "io.latchkey:lock-etcd", BrokenTestEtcdProvider.class),
                Arguments.of(
                        "mongodb://u:s3cretPw@h:27017/db", "io.latchkey:lock-mongodb", BrokenTestMongoProvider.class),
                Arguments.of(
                        "mongodb+srv://u:s3cretPw@cluster0.example.net/db",
                        "io.latchkey:lock-mongodb",
                        BrokenTestMongoProvider.class),
                Arguments.of(
                        "jdbc:postgresql://h/db?user=u&password=s3cretPw",
                        "io.latchkey:lock-jdbc",
                        BrokenTestJdbcProvider.class),
                Arguments.of(
                        "jdbc:mysql://h/db?password=s3cretPw", "io.latchkey:lock-jdbc", BrokenTestJdbcProvider.class),
                Arguments.of(
                        "jdbc:mariadb://h/db?password=s3cretPw", "io.latchkey:lock-jdbc", BrokenTestJdbcProvider.class),
                Arguments.of("jdbc:h2:mem:x;PASSWORD=s3cretPw", "io.latchkey:lock-jdbc", BrokenTestJdbcProvider.class));
    }

    private LockBackend create(ProviderWorld world, String uri) {
        return ProviderRegistry.create(uri, Map.of(), world);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("schemes")
    @DisplayName("module missing: the error names the artifact to add")
    void moduleMissing(String uri, String artifact, Class<?> broken) {
        ProviderWorld world = ProviderWorld.of(dir, MemoryBackendProvider.class);
        assertThatExceptionOfType(LockException.class)
                .isThrownBy(() -> create(world, uri))
                .withMessageStartingWith("No Latchkey backend serves scheme '" + ProviderRegistry.schemeOf(uri) + "'")
                .withMessageContaining("Schemes found: [mem]")
                .withMessageContaining("Add the dependency " + artifact + " to the class path.")
                .withMessageNotContaining("s3cretPw")
                .satisfies(e -> assertThat(e.backend()).doesNotContain("s3cretPw"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("schemes")
    @DisplayName(
            "module present, configuration wrong: the provider's own error (the TLS problem), never \"add the dependency\"")
    void modulePresentConfigurationWrong(String uri, String artifact, Class<?> broken) {
        ProviderWorld world = ProviderWorld.of(dir, MisconfiguredProvider.class, MemoryBackendProvider.class);
        assertThatExceptionOfType(IllegalArgumentException.class)
                .isThrownBy(() -> create(world, uri))
                .withMessageContaining("TLS is misconfigured")
                .withMessageNotContaining(artifact)
                .withMessageNotContaining("Add the dependency");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("schemes")
    @DisplayName(
            "module present but failed to load: that provider, its scheme and the real cause; never \"add the dependency\"")
    void modulePresentFailedToLoad(String uri, String artifact, Class<?> broken) {
        ProviderWorld world = new ProviderWorld(
                dir,
                List.of(MemoryBackendProvider.class.getName(), broken.getName()),
                Set.of(MISSING),
                Set.of(broken.getName()));
        String scheme = ProviderRegistry.schemeOf(uri);
        Throwable thrown = catchThrowable(() -> create(world, uri));
        assertThat(thrown)
                .isInstanceOf(LockException.class)
                .hasMessageStartingWith("The Latchkey backend for scheme '" + scheme + "'")
                .hasMessageContaining("is on the class path, but its provider failed to load")
                .hasMessageContaining("Latchkey backend provider " + broken.getName() + " (schemes ")
                .hasMessageContaining(scheme)
                .hasMessageContaining(artifact)
                .hasMessageContaining(
                        "a class it needs, " + MISSING + ", is not on the class path (NoClassDefFoundError)")
                .hasMessageNotContaining("Add the dependency")
                .hasMessageNotContaining("Unable")
                .hasMessageNotContaining("s3cretPw");
        assertThat(thrown.getMessage().lines()).hasSize(1);
        assertThat(thrown).hasRootCauseInstanceOf(ClassNotFoundException.class);
    }

    @Test
    @DisplayName(
            "a provider whose constructor's types are missing is named with the missing class (JDK 17 said 'Provider Unable')")
    void failedProviderIsNamedWithItsCause() {
        String broken = BrokenTestEtcdProvider.class.getName();
        ProviderWorld world = new ProviderWorld(
                dir, List.of(broken, MemoryBackendProvider.class.getName()), Set.of(MISSING), Set.of(broken));
        List<ProviderRegistry.Discovered> found = ProviderRegistry.discover(world);
        assertThat(found)
                .filteredOn(d -> d.provider() != null)
                .singleElement()
                .satisfies(d -> assertThat(d.provider()).isInstanceOf(MemoryBackendProvider.class));
        ProviderRegistry.Discovered failed =
                found.stream().filter(d -> d.provider() == null).findFirst().orElseThrow();
        assertThat(found).filteredOn(d -> d.provider() == null).hasSize(1);
        assertThat(failed.failedName()).isEqualTo(broken);
        assertThat(failed.schemes()).containsExactlyInAnyOrder("etcd", "etcds");
        assertThat(failed.failureSentence())
                .isEqualTo("Latchkey backend provider " + broken
                        + " (schemes etcd, etcds; io.latchkey:lock-etcd) failed to load: a class it needs, " + MISSING
                        + ", is not on the class path (NoClassDefFoundError)");
    }

    @Test
    @DisplayName(
            "a provider whose superclass is missing (a bare NoClassDefFoundError on every JDK) is named, and does not break connect")
    void missingSuperclass() {
        String broken = SubclassedTestRedisProvider.class.getName();
        ProviderWorld world = new ProviderWorld(
                dir,
                List.of(broken, MemoryBackendProvider.class.getName()),
                Set.of(TestRedisProviderBase.class.getName()),
                Set.of(broken));
        assertThat(ProviderRegistry.create("mem:", Map.of(), world)).isNotNull().satisfies(LockBackend::close);
        assertThatExceptionOfType(LockException.class)
                .isThrownBy(() -> create(world, "redis://h:6379"))
                .withMessageContaining("Latchkey backend provider " + broken
                        + " (schemes redis, rediss, redlock; io.latchkey:lock-redis)")
                .withMessageContaining(
                        "a class it needs, " + TestRedisProviderBase.class.getName() + ", is not on the class path");
    }

    @Test
    @DisplayName(
            "a third-party provider that fails: its class, where it is listed, and the cause; other schemes still work")
    void thirdPartyFailure() {
        ProviderWorld world = ProviderWorld.of(dir, ExplodingProvider.class, MemoryBackendProvider.class);
        assertThat(ProviderRegistry.discover(world))
                .filteredOn(d -> d.provider() == null)
                .singleElement()
                .satisfies(d -> assertThat(d.failureSentence())
                        .isEqualTo("Latchkey backend provider "
                                + ExplodingProvider.class.getName() + " (schemes unknown until it loads; listed in "
                                + dir.getFileName()
                                + ") failed to load: IllegalStateException: simulated missing native library"));
        assertThatExceptionOfType(LockException.class)
                .isThrownBy(() -> create(world, "boom://x"))
                .withMessageContaining("Latchkey backend provider " + ExplodingProvider.class.getName())
                .withMessageContaining("If a provider that failed to load above serves 'boom', fix it first.")
                .withMessageContaining("latchkey.provider");
        assertThat(ProviderRegistry.create("mem:", Map.of(), world)).isNotNull().satisfies(LockBackend::close);
    }

    @Test
    @DisplayName(
            "the artifact is present in a version that does not serve the scheme: say so, not \"add the dependency\"")
    void artifactPresentWithoutTheScheme() {
        ProviderWorld world = ProviderWorld.of(dir, EtcdOnlyTestProvider.class);
        assertThatExceptionOfType(LockException.class)
                .isThrownBy(() -> create(world, "etcds://h:2379"))
                .withMessageContaining("io.latchkey:lock-etcd is on the class path ("
                        + EtcdOnlyTestProvider.class.getName() + " serves etcd) but does not serve 'etcds'")
                .withMessageNotContaining("Add the dependency");
    }

    @Test
    @DisplayName(
            "a provider that loads but misses a class when it creates the backend: named, with the class and the artifact")
    void missingClassAtCreate() {
        String lazy = LazyClientTestEtcdProvider.class.getName();
        ProviderWorld world = new ProviderWorld(dir, List.of(lazy), Set.of(MISSING), Set.of(lazy));
        assertThatExceptionOfType(LockException.class)
                .isThrownBy(() -> create(world, "etcd://u:s3cretPw@h:2379"))
                .withMessageStartingWith(
                        "Latchkey backend provider " + lazy + " for scheme 'etcd' (URI 'etcd://u:***@h:2379') "
                                + "loaded, but could not create the backend: a class it needs, " + MISSING
                                + ", is not on the class path")
                .withMessageContaining("io.latchkey:lock-etcd")
                .withMessageNotContaining("s3cretPw")
                .withCauseInstanceOf(NoClassDefFoundError.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"zk", "jdbc:oracle", "foo"})
    @DisplayName("schemes no Latchkey module serves get no artifact to add, but Latchkey's schemes and the override")
    void unknownSchemes(String scheme) {
        ProviderWorld world = ProviderWorld.of(dir, MemoryBackendProvider.class);
        assertThat(ProviderRegistry.artifactFor(scheme)).isNull();
        assertThatExceptionOfType(LockException.class)
                .isThrownBy(() -> create(world, scheme + "://h:1"))
                .withMessageNotContaining("Add the dependency")
                .withMessageContaining("Latchkey's own schemes are etcd, etcds, jdbc:h2, jdbc:mariadb, jdbc:mysql, "
                        + "jdbc:postgresql, mem, mongodb, mongodb+srv, redis, rediss, redlock, zookeeper.")
                .withMessageContaining("latchkey.provider");
    }

    @Test
    @DisplayName("every scheme the modules register has an artifact; the table and the modules' providers agree")
    void artifactForEveryScheme() {
        for (String s : MisconfiguredProvider.SCHEMES) {
            assertThat(ProviderRegistry.artifactFor(s)).as(s).startsWith("io.latchkey:lock-");
        }
        assertThat(KnownProviders.allSchemes()).containsExactlyInAnyOrderElementsOf(MisconfiguredProvider.SCHEMES);
    }
}

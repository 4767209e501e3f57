package io.latchkey.core;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/*
 * Latchkey's own backend artifacts: which schemes each one serves and the package its provider lives in.
 * The registry needs this when it cannot ask a provider itself: when no provider serves a scheme (which
 * artifact to add?) and when a provider failed to load (which schemes did it serve?). Keep it in step with
 * the schemes() of every module's provider; a scheme missing here only loses the hint, never a backend.
 */
final class KnownProviders {

    /** One artifact: its Maven coordinates, the package of its provider, and the schemes it serves. */
    record Artifact(String coordinates, String providerPackage, Set<String> schemes) {}

    static final List<Artifact> ARTIFACTS = List.of(
            new Artifact("io.latchkey:lock-api", "io.latchkey.mem.", Set.of("mem")),
            new Artifact(
                    "io.latchkey:lock-jdbc",
                    "io.latchkey.jdbc.",
                    Set.of("jdbc:postgresql", "jdbc:mysql", "jdbc:mariadb", "jdbc:h2")),
            new Artifact("io.latchkey:lock-redis", "io.latchkey.redis.", Set.of("redis", "rediss", "redlock")),
            new Artifact("io.latchkey:lock-zookeeper", "io.latchkey.zookeeper.", Set.of("zookeeper")),
            new Artifact("io.latchkey:lock-etcd", "io.latchkey.etcd.", Set.of("etcd", "etcds")),
            new Artifact("io.latchkey:lock-mongodb", "io.latchkey.mongodb.", Set.of("mongodb", "mongodb+srv")));

    private KnownProviders() {}

    /** The artifact that serves a scheme, if it is one of Latchkey's. */
    static Optional<Artifact> forScheme(String scheme) {
        return ARTIFACTS.stream().filter(a -> a.schemes().contains(scheme)).findFirst();
    }

    /** The artifact a provider class belongs to, judged by its package. */
    static Optional<Artifact> forProviderClass(String className) {
        if (className == null) {
            return Optional.empty();
        }
        return ARTIFACTS.stream()
                .filter(a -> className.startsWith(a.providerPackage()))
                .findFirst();
    }

    /** Every scheme Latchkey's artifacts serve, sorted. */
    static Set<String> allSchemes() {
        TreeSet<String> all = new TreeSet<>();
        ARTIFACTS.forEach(a -> all.addAll(a.schemes()));
        return all;
    }
}

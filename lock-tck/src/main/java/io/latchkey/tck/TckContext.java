package io.latchkey.tck;

import io.latchkey.Capability;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.spi.LockBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One test's view of the backend under test. Each {@link #newClient()} is a separate client (as a separate
 * process would be) on the same store; all of them are closed when the test ends. Names from
 * {@link #name(String)} are unique per test run, so tests never see each other's locks on a shared server.
 */
public final class TckContext implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TckContext.class);

    private final Supplier<LockBackend> factory;
    private final TckSettings settings;
    private final TckFaults faults;
    private final Optional<ProcessBackend> processBackend;
    private final String runId;
    private final String namespaceBase =
            "t" + Long.toString(ThreadLocalRandom.current().nextLong(36L * 36 * 36 * 36 * 36 * 36 * 36 * 36 * 36, Long.MAX_VALUE), 36)
                    .substring(0, 10);
    private final LockHistory history = new LockHistory();
    private final List<AutoCloseable> opened = new ArrayList<>();
    private final List<AutoCloseable> recipes = new ArrayList<>();
    private final IdentityHashMap<LockClient, CrashableBackend> backends = new IdentityHashMap<>();
    private final java.util.concurrent.locks.ReentrantLock openedLock = new java.util.concurrent.locks.ReentrantLock();
    private Set<Capability> capabilities;
    private final java.util.function.Function<FaultProxies, Optional<LockBackend>> proxiedFactory;
    private final java.util.function.Function<String, Optional<LockBackend>> namespacedFactory;
    private FaultProxies proxies; // guarded by openedLock; closed after every client

    TckContext(
            Supplier<LockBackend> factory,
            TckSettings settings,
            TckFaults faults,
            Optional<ProcessBackend> processBackend,
            java.util.function.Function<FaultProxies, Optional<LockBackend>> proxiedFactory,
            java.util.function.Function<String, Optional<LockBackend>> namespacedFactory,
            String testName) {
        this.factory = factory;
        this.proxiedFactory = proxiedFactory;
        this.namespacedFactory = namespacedFactory;
        this.settings = settings;
        this.faults = faults;
        this.processBackend = processBackend;
        this.runId =
                "tck-" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36) + "-" + testName;
    }

    /**
     * A new client on the store, closed at the end of the test.
     *
     * @return the client
     */
    public LockClient newClient() {
        CrashableBackend backend = new CrashableBackend(createBackend());
        LockClient client = Latchkey.client(backend, "tck");
        TckNotes.backend(client.backend());
        openedLock.lock();
        try {
            opened.add(client);
            backends.put(client, backend);
        } finally {
            openedLock.unlock();
        }
        return client;
    }

    /**
     * A new client whose every connection to the store goes through this test's fault proxies (see
     * {@link #proxies()}); skips the rule when the backend's TCK supplies no
     * {@link LockBackendTck#newBackendThrough(FaultProxies)}.
     *
     * @return the client, closed at the end of the test
     */
    public LockClient newProxiedClient() {
        return optionalClient(
                proxiedFactory.apply(proxies()),
                "tck-proxied",
                "this backend's TCK supplies no newBackendThrough(FaultProxies): the network fault rules need a client"
                        + " whose connections go through the TCK's fault proxy");
    }

    /**
     * A new client on the store in namespace {@code namespace} (see
     * {@link LockBackendTck#newBackendInNamespace(String)}); skips the rule when the backend's TCK supplies none.
     *
     * @param namespace letters, digits, '.', '_' and '-', at most 64 characters
     * @return the client, closed at the end of the test
     */
    public LockClient newClientInNamespace(String namespace) {
        return optionalClient(
                namespacedFactory.apply(namespace),
                "tck-ns",
                "this backend's TCK supplies no newBackendInNamespace(String): the namespace rule needs clients with"
                        + " different namespace settings on one store");
    }

    /** A client on a backend from an optional factory, closed at the end of the test; skips the rule without one. */
    private LockClient optionalClient(Optional<LockBackend> made, String label, String skipReason) {
        LockBackend backend = made.orElse(null);
        org.junit.jupiter.api.Assumptions.assumeTrue(backend != null, skipReason);
        LockClient client = Latchkey.client(backend, label);
        openedLock.lock();
        try {
            opened.add(client);
        } finally {
            openedLock.unlock();
        }
        return client;
    }

    /**
     * The start of this test's namespaces: unique per test run, 11 characters of the namespace alphabet.
     *
     * @return the base
     */
    public String namespaceBase() {
        return namespaceBase;
    }

    /**
     * This test's fault proxies (created on first use).
     *
     * @return the proxies
     */
    public FaultProxies proxies() {
        openedLock.lock();
        try {
            if (proxies == null) {
                proxies = new FaultProxies();
            }
            return proxies;
        } finally {
            openedLock.unlock();
        }
    }

    /**
     * A new raw backend, for rules stated at the SPI level; closed at the end of the test.
     *
     * @return the backend
     */
    public LockBackend newBackend() {
        LockBackend backend = createBackend();
        openedLock.lock();
        try {
            opened.add(backend);
        } finally {
            openedLock.unlock();
        }
        return backend;
    }

    private LockBackend createBackend() {
        LockBackend backend = factory.get();
        if (backend == null) {
            throw new IllegalStateException("newBackend() returned null");
        }
        if (capabilities == null) {
            capabilities = backend.capabilities();
        }
        return backend;
    }

    /**
     * Crashes a client made by {@link #newClient()}: it stops talking to the store without releasing anything.
     *
     * @param client a client made by {@link #newClient()}
     */
    public void crash(LockClient client) {
        CrashableBackend backend;
        openedLock.lock();
        try {
            backend = backends.get(client);
        } finally {
            openedLock.unlock();
        }
        if (backend == null) {
            throw new IllegalArgumentException("not a client of this test: " + client);
        }
        backend.crash(faults);
    }

    /**
     * Waits until an acquisition through a client made by {@link #newClient()} has asked the store: answered
     * (busy) or waiting in it. A rule about waking waiters releases only then, so that the waiter it measures
     * is really waiting, not about to make its first attempt.
     *
     * @param client a client made by {@link #newClient()}
     */
    public void awaitAskedTheStore(LockClient client) {
        CrashableBackend backend;
        openedLock.lock();
        try {
            backend = backends.get(client);
        } finally {
            openedLock.unlock();
        }
        if (backend == null) {
            throw new IllegalArgumentException("not a client of this test: " + client);
        }
        org.awaitility.Awaitility.await("an acquisition through " + client + " asked the store")
                .dontCatchUncaughtExceptions() // as Tck.await
                .atMost(settings.slack().plusSeconds(10))
                .pollInterval(Duration.ofMillis(5))
                .until(backend::hasAskedTheStore);
    }

    /**
     * Starts {@code main} in a child JVM connected to the store under test (see {@link TckProcessMain}); killed at
     * the end of the test. A backend whose TCK supplies no {@link LockBackendTck#processBackend()} skips the rule.
     *
     * @param main the child's main class, on the test's class path
     * @param args its arguments
     * @return the running child
     */
    public TckProcess startProcess(Class<?> main, String... args) {
        return startProcess(Map.of(), main, args);
    }

    /**
     * As {@link #startProcess(Class, String...)}, with more variables in the child's environment (libfaketime's,
     * for the clock rules).
     *
     * @param env the extra environment
     * @param main the child's main class, on the test's class path
     * @param args its arguments
     * @return the running child
     */
    public TckProcess startProcess(Map<String, String> env, Class<?> main, String... args) {
        ProcessBackend target = processBackend.orElse(null);
        org.junit.jupiter.api.Assumptions.assumeTrue(
                target != null,
                "this backend's TCK supplies no processBackend(): the rules that run instances in separate JVMs"
                        + " need the URI a child JVM connects with");
        TckProcess process = TckProcess.start(target, main, List.of(args), env);
        openedLock.lock();
        try {
            opened.add(process);
        } finally {
            openedLock.unlock();
        }
        return process;
    }

    /**
     * Whether child JVMs can be started (the backend's TCK supplies a {@link ProcessBackend}).
     *
     * @return whether child JVMs can be started
     */
    public boolean canStartProcesses() {
        return processBackend.isPresent();
    }

    /**
     * Closes {@code recipe} when the test ends, before the clients it uses (last registered, first closed).
     *
     * @param <T> the recipe's type
     * @param recipe the recipe to close
     * @return {@code recipe}
     */
    public <T extends AutoCloseable> T closeAtEnd(T recipe) {
        openedLock.lock();
        try {
            recipes.add(0, recipe);
        } finally {
            openedLock.unlock();
        }
        return recipe;
    }

    /**
     * A lock name unique to this test run: {@code tck-<random>-<test>/<suffix>}.
     *
     * @param suffix what the name is for in the test
     * @return the name
     */
    public String name(String suffix) {
        String n = runId + "/" + suffix;
        return n.length() > 200 ? n.substring(0, 100) + n.substring(n.length() - 100) : n;
    }

    /**
     * The TCK's settings for this backend.
     *
     * @return the settings
     */
    public TckSettings settings() {
        return settings;
    }

    /**
     * The backend's fault hooks.
     *
     * @return the fault hooks
     */
    public TckFaults faults() {
        return faults;
    }

    /**
     * The history checker of this test.
     *
     * @return the history
     */
    public LockHistory history() {
        return history;
    }

    /**
     * The capabilities the backend claims.
     *
     * @return the capabilities
     */
    public Set<Capability> capabilities() {
        if (capabilities == null) {
            newBackend();
        }
        return capabilities;
    }

    @Override
    public void close() {
        List<AutoCloseable> all;
        openedLock.lock();
        try {
            all = new ArrayList<>(recipes);
            all.addAll(opened);
            if (proxies != null) {
                all.add(proxies); // last: a proxied client releases through its proxy
                proxies = null;
            }
            recipes.clear();
            opened.clear();
            backends.clear();
        } finally {
            openedLock.unlock();
        }
        for (AutoCloseable c : all) {
            try {
                c.close();
            } catch (Exception e) {
                log.warn("closing {} after the test failed", c, e);
            }
        }
    }
}

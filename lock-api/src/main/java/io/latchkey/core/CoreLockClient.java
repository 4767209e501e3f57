package io.latchkey.core;

import io.latchkey.Capability;
import io.latchkey.DistributedLock;
import io.latchkey.DistributedReadWriteLock;
import io.latchkey.DistributedSemaphore;
import io.latchkey.Fairness;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockInfo;
import io.latchkey.LockListener;
import io.latchkey.LockLoss;
import io.latchkey.LockOptions;
import io.latchkey.MultiLock;
import io.latchkey.Reentrancy;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.Grant;
import io.latchkey.spi.GrantKind;
import io.latchkey.spi.LockBackend;
import io.latchkey.spi.Redaction;
import io.latchkey.spi.TimeSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * The core's LockClient: owns one backend, one scheduler thread and a worker pool shared by all its locks,
 * the local gates (single-flight per name), which are also the registry of grants it holds.
 *
 * Concurrency design. The gate of a grant's key (GrantKeys: the name, for an exclusive lock) names the one grant
 * this client holds under it (the gate admits one holder per key, so there is never more than one). It is how
 * store-reported losses, reentrant acquisitions and held() find a grant. Closing flips `closed` first so that no new acquisition starts,
 * then ends every active grant as CLIENT_CLOSED; an acquisition that races with close re-checks `closed`
 * after registering its grant and gives it back.
 */
public final class CoreLockClient implements LockClient {
    private static final Logger log = LoggerFactory.getLogger(CoreLockClient.class);

    final LockBackend backend;
    final TimeSource time;
    /** The time source is the system's: a System.nanoTime reading is also one of `time`, and may be reused as one. */
    final boolean systemClock;
    final Listeners listeners = new Listeners();
    final LocalGates gates = new LocalGates(this::releaseQuietly);
    final OwnerIds owners;
    final CoreExecutors executors;
    /** Batches the background renewals of exclusive grants, when the backend renews many in one call; else null. */
    final @Nullable RenewalBatcher renewals;
    /** The losses the store reports by itself, early ones (before the grant is registered) included. */
    private final StoreLosses storeLosses = new StoreLosses(gates);

    private final String description;
    private final Set<Capability> capabilities;
    private volatile boolean closed;

    /**
     * Wraps a backend. {@code ownerLabel} prefixes owner ids (default {@code host/pid}) so operators can
     * see who holds a lock.
     */
    public CoreLockClient(LockBackend backend, String ownerLabel) {
        if (backend == null) {
            throw new IllegalArgumentException("backend must not be null");
        }
        this.backend = backend;
        this.time = backend.timeSource();
        this.systemClock = time == TimeSource.system();
        // a backend must not put a password in its description; should one do so, it still goes no further
        this.description = Redaction.redact(backend.description());
        Set<Capability> caps = backend.capabilities();
        this.capabilities = caps.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(caps));
        this.owners = new OwnerIds(ownerLabel);
        int batch = backend.renewalBatchSize();
        if (batch < 1) {
            throw new IllegalArgumentException(
                    description + " gives a renewal batch size of " + batch + "; it must be at least 1");
        }
        this.executors = new CoreExecutors();
        this.renewals = batch > 1 ? new RenewalBatcher(backend, executors.scheduler, executors.workers, time, batch) : null;
        backend.bind(storeLosses);
    }

    @Override
    public DistributedLock lock(String name) {
        return lock(name, LockOptions.defaults());
    }

    @Override
    public DistributedLock lock(String name, LockOptions options) {
        LockNames.check(name);
        if (options == null) {
            throw new IllegalArgumentException("options must not be null; use LockOptions.defaults()");
        }
        if (options.fairness() == Fairness.REQUIRED && !capabilities.contains(Capability.FAIR)) {
            throw new IllegalArgumentException("fairness REQUIRED cannot be met by " + description
                    + ": the backend does not claim Capability.FAIR (it has " + capabilities + "); use PREFERRED");
        }
        checkOpen(name);
        return new CoreLock(this, name, options);
    }

    @Override
    public MultiLock lockAll(String... names) {
        if (names == null) {
            throw new IllegalArgumentException("lockAll needs at least one name, was null");
        }
        return lockAll(Arrays.asList(names), LockOptions.defaults());
    }

    @Override
    public MultiLock lockAll(Collection<String> names, LockOptions options) {
        if (names == null || names.isEmpty()) {
            throw new IllegalArgumentException("lockAll needs at least one name, was " + names);
        }
        TreeSet<String> canonical = new TreeSet<>();
        for (String name : names) {
            LockNames.check(name);
            if (!canonical.add(name)) {
                throw new IllegalArgumentException(
                        "lockAll names must be distinct, but '" + name + "' appears more than once");
            }
        }
        List<DistributedLock> locks = new ArrayList<>(canonical.size());
        for (String name : canonical) {
            locks.add(lock(name, options));
        }
        return new CoreMultiLock(new ArrayList<>(canonical), locks);
    }

    @Override
    public DistributedSemaphore semaphore(String name, int permits) {
        return semaphore(name, permits, LockOptions.defaults());
    }

    @Override
    public DistributedSemaphore semaphore(String name, int permits, LockOptions options) {
        LockNames.check(name);
        if (permits < 1 || permits > GrantKind.MAX_PERMITS) {
            throw new IllegalArgumentException("a semaphore has 1.." + GrantKind.MAX_PERMITS + " permits, but '" + name
                    + "' was opened with " + permits);
        }
        if (options == null) {
            throw new IllegalArgumentException("options must not be null; use LockOptions.defaults()");
        }
        if (options.reentrancy() != Reentrancy.NONE) {
            throw new IllegalArgumentException("semaphore '" + name + "': reentrancy must be NONE, was "
                    + options.reentrancy() + " (each acquisition is its own grant of permits)");
        }
        if (options.fairness() == Fairness.REQUIRED) {
            throw new IllegalArgumentException("semaphore '" + name + "': fairness REQUIRED is not offered for"
                    + " semaphores (permits go to whoever asks when enough are free); use PREFERRED or NONE");
        }
        if (!capabilities.contains(Capability.SEMAPHORE)) {
            String why = backend.refusal(Capability.SEMAPHORE);
            throw new UnsupportedOperationException("semaphores are not supported by " + description
                    + ": the backend does not claim Capability.SEMAPHORE"
                    + (why != null ? "; " + Redaction.redact(why) : " (it has " + capabilities + ")"));
        }
        checkOpen(name);
        return new CoreSemaphore(this, name, permits, options);
    }

    @Override
    public DistributedReadWriteLock readWriteLock(String name) {
        return readWriteLock(name, LockOptions.defaults());
    }

    @Override
    public DistributedReadWriteLock readWriteLock(String name, LockOptions options) {
        LockNames.check(name);
        if (options == null) {
            throw new IllegalArgumentException("options must not be null; use LockOptions.defaults()");
        }
        if (options.fairness() == Fairness.REQUIRED) {
            throw new IllegalArgumentException("read-write lock '" + name + "': fairness REQUIRED is not offered"
                    + " for read-write locks (writer preference orders them); use PREFERRED or NONE");
        }
        if (!capabilities.contains(Capability.READ_WRITE)) {
            String why = backend.refusal(Capability.READ_WRITE);
            throw new UnsupportedOperationException("read-write locks are not supported by " + description
                    + ": the backend does not claim Capability.READ_WRITE"
                    + (why != null ? "; " + Redaction.redact(why) : " (it has " + capabilities + ")"));
        }
        checkOpen(name);
        return new CoreReadWriteLock(this, name, options);
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        LockNames.check(name);
        checkOpen(name);
        return backend.inspect(name);
    }

    @Override
    public List<LockInfo> list(String prefix) {
        if (prefix == null) {
            throw new IllegalArgumentException("prefix must not be null; pass \"\" to list every lock");
        }
        if (!prefix.isEmpty()) {
            LockNames.check(prefix);
        }
        checkOpen(null);
        if (!capabilities.contains(Capability.LISTING)) {
            throw new UnsupportedOperationException(
                    "listing locks is not supported by " + description + " (capability LISTING not claimed)");
        }
        return backend.list(prefix);
    }

    @Override
    public List<LockHandle> held() {
        List<LockHandle> out = new ArrayList<>();
        for (HeldLock h : gates.holders()) {
            if (h.isActive()) {
                out.add(h.primary);
            }
        }
        return out;
    }

    @Override
    public boolean forceRelease(String name) {
        LockNames.check(name);
        checkOpen(name);
        // an administrative action: one read first, so that the WARN says whose grant this client ended
        Optional<LockInfo> before;
        try {
            before = backend.inspect(name);
        } catch (RuntimeException e) {
            before = Optional.empty(); // the release itself will say whether the store can be used
        }
        boolean released = backend.forceRelease(name);
        if (released) {
            log.warn(
                    "Lock '{}' on {} was force-released by client {} (it was held by {}, token {}); the holder"
                            + " learns of it at its next renewal (RELEASED_BY_ADMIN)",
                    name,
                    description,
                    owners.clientId(),
                    before.map(LockInfo::owner).orElse("an owner this client could not read"),
                    before.map(i -> Long.toString(i.fencingToken())).orElse("unknown"));
        }
        return released;
    }

    @Override
    public Set<Capability> capabilities() {
        return capabilities;
    }

    @Override
    public String backend() {
        return description;
    }

    @Override
    public void addListener(LockListener listener) {
        listeners.add(listener);
    }

    @Override
    public void removeListener(LockListener listener) {
        listeners.remove(listener);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (HeldLock h : gates.holders()) {
            if (h.markLost(LockLoss.Reason.CLIENT_CLOSED, "the LockClient was closed while the lock was held", null)) {
                releaseQuietly(h.grant);
            }
        }
        executors.shutdown();
        try {
            backend.close();
        } catch (RuntimeException e) {
            log.warn("Closing backend {} failed", description, e);
        }
    }

    boolean isClosed() {
        return closed;
    }

    void checkOpen(String name) {
        if (closed) {
            throw new IllegalStateException("LockClient for " + description + " is closed"
                    + (name == null ? "" : "; cannot use lock '" + name + "'"));
        }
    }

    void register(HeldLock h) {
        gates.register(h.gate(), h);
        storeLosses.registered(h); // a loss the store reported before this grant was registered
    }

    void forget(HeldLock h) {
        gates.forget(h.gate(), h);
    }

    void releaseQuietly(Grant grant) {
        try {
            backend.release(grant);
        } catch (RuntimeException | Error e) { // NOPMD: best effort, often on a worker thread nobody watches
            log.debug(
                    "Best-effort release of lock '{}' on {} failed; it expires by its lease",
                    grant.name(),
                    description,
                    e);
        }
    }

    void releaseQuietlyInBackground(Grant grant) {
        try {
            executors.workers.execute(() -> releaseQuietly(grant));
        } catch (RejectedExecutionException closing) {
            releaseQuietly(grant);
        }
    }

    /**
     * Ends what the store may have granted to an acquisition that was interrupted (or cancelled) while one of its
     * requests had no answer (the driver dropped the reply because the thread was interrupted, as MongoDB's does
     * after the write was applied): asked again with the same owner, the store returns such a grant
     * (the SPI's same-owner retry), which is released; a free name is granted and given back at once, a held one
     * answers busy. Then the waiter is withdrawn. It runs on a worker, so an interrupted or cancelled caller never
     * waits for it; while the client closes, the store's lease ends the grant instead.
     */
    void abandonInBackground(AcquireRequest request) {
        try {
            executors.workers.execute(() -> abandon(request));
        } catch (RejectedExecutionException closing) { // NOPMD: the lease ends what the store may hold
            log.debug("Lock '{}' on {}: closing, so a grant whose reply was lost expires by its lease", request.name(),
                    description);
        }
    }

    private void abandon(AcquireRequest request) {
        try {
            if (backend.tryAcquire(request) instanceof Grant mine) {
                backend.release(mine);
            }
        } catch (RuntimeException | Error e) { // NOPMD: best effort; the lease ends what the store may hold
            log.debug("Abandoning an unanswered acquisition of lock '{}' on {} failed; what it may hold expires by"
                    + " its lease", request.name(), description, e);
        } finally {
            withdrawQuietly(request);
        }
    }

    /** Withdraws a waiter the store may have recorded for an acquisition that gave up. */
    void withdrawQuietly(AcquireRequest request) {
        try {
            backend.withdraw(request);
        } catch (RuntimeException e) { // NOPMD: the store forgets the waiter by itself when its intent expires
            log.debug("withdrawing from {} on {} failed", request.name(), description, e);
        }
    }

    /**
     * Completes a loss future on the async pool, so user callbacks never stall the timer, the renewal threads
     * or a backend's event thread (which reports store-detected losses). While the client closes, the pool is
     * going away and the closing thread completes it.
     */
    void completeOffTimerThread(CompletableFuture<LockLoss> f, LockLoss loss) {
        if (closed) {
            f.complete(loss);
            return;
        }
        try {
            executors.async.execute(() -> f.complete(loss));
        } catch (RejectedExecutionException | Error noThread) { // closing, or no thread to be had: complete here
            f.complete(loss);
        }
    }

    @Override
    public String toString() {
        return "LockClient[" + description + ", client " + owners.clientId() + ", holding " + gates.holders().size()
                + (closed ? ", closed]" : "]");
    }
}

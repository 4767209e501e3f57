package io.latchkey.shedlock;

import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockOptions;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * A ShedLock {@link ExtensibleLockProvider} on any Latchkey backend: replace the {@code LockProvider} bean and keep
 * every {@code @SchedulerLock}.
 *
 * <pre>{@code
 * @Bean
 * LockProvider lockProvider() {
 *     return new LatchkeyLockProvider(Latchkey.connect("redis://redis:6379"));
 * }
 * }</pre>
 *
 * <p>ShedLock's semantics, on every backend:
 *
 * <ul>
 *   <li>{@code lock} tries once (no waiting): the lock of the configuration's name, with a lease that ends at
 *       {@code lockAtMostUntil} and no renewal. A lease store frees it there by itself. Since session-bound stores
 *       (ZooKeeper, etcd, JDBC session mode) keep a grant as long as its holder's session, the provider also releases
 *       it at {@code lockAtMostUntil}, so the task's lock never outlives {@code lockAtMostFor} there either.</li>
 *   <li>{@code unlock} before {@code lockAtLeastUntil} keeps the lock until then: the lease is cut to end at {@code
 *       lockAtLeastUntil} (so a crash from here on frees it there on a lease store) and the provider releases it at
 *       that instant. Later, {@code unlock} releases at once.</li>
 *   <li>No lease asked of the store is shorter than {@link #SHORTEST_LEASE} (100 ms), since a shorter one could run
 *       out on the wire. A nearer {@code lockAtMostUntil} or {@code lockAtLeastUntil} is still kept to by the
 *       provider's release, and {@code extend} refuses once {@code lockAtMostUntil} has passed; only a crash in that
 *       last moment leaves the lock in the store for up to 100 ms.</li>
 *   <li>{@code extend(lockAtMostFor, lockAtLeastFor)} renews the lease to {@code now + lockAtMostFor} and returns a
 *       new lock with the new times; empty once {@code lockAtMostUntil} has passed or the grant was lost (also when
 *       it ran out while the renewal was under way).</li>
 *   <li>A lock that was unlocked or extended refuses both with {@link IllegalStateException}, as ShedLock asks.</li>
 * </ul>
 *
 * <p>Store failures surface as Latchkey's {@code BackendUnavailableException}; ShedLock then skips the run. Close the
 * provider to stop its release timer (the client is not closed: it belongs to the caller).
 *
 * <p>Concurrency: thread-safe. Each lock's state is one atomic flag (see {@link LatchkeySimpleLock}); delayed
 * releases run on one daemon thread per provider.
 */
public final class LatchkeyLockProvider implements ExtensibleLockProvider, AutoCloseable {
    /**
     * The shortest lease asked of a store. The provider's own release still ends a lock at {@code lockAtMostUntil} or
     * {@code lockAtLeastUntil} when those are nearer; only after a crash can the store keep it this long.
     */
    public static final Duration SHORTEST_LEASE = Duration.ofMillis(100);

    private static final AtomicInteger THREADS = new AtomicInteger();

    private final LockClient client;
    private final String namePrefix;
    private final ScheduledThreadPoolExecutor timer;

    /**
     * A provider for {@code client}; lock names are ShedLock's names unchanged.
     *
     * @param client the client whose locks ShedLock's jobs take; the provider never closes it
     */
    public LatchkeyLockProvider(LockClient client) {
        this(client, "");
    }

    /**
     * A provider whose lock names are {@code namePrefix + } ShedLock's name (e.g. {@code "shedlock/"}), so that the
     * scheduled jobs' locks sit apart from the application's other locks in {@code list()} and in the store.
     *
     * @param client the client whose locks ShedLock's jobs take; the provider never closes it
     * @param namePrefix prepended to ShedLock's lock names; may be empty
     */
    public LatchkeyLockProvider(LockClient client, String namePrefix) {
        this.client = Objects.requireNonNull(client, "client");
        this.namePrefix = Objects.requireNonNull(namePrefix, "namePrefix");
        this.timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = Executors.defaultThreadFactory().newThread(r);
            t.setName("latchkey-shedlock-" + THREADS.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true);
    }

    @Override
    public Optional<SimpleLock> lock(LockConfiguration config) {
        String name = namePrefix + config.getName();
        Duration lease = until(config.getLockAtMostUntil());
        Optional<LockHandle> handle = client.lock(name, options(lease)).tryAcquire();
        return handle.map(h -> new LatchkeySimpleLock(this, h, config, releaseAt(h, config.getLockAtMostUntil())));
    }

    /** Stops the release timer; locks still held keep their store-side leases (or sessions). */
    @Override
    public void close() {
        timer.shutdownNow();
    }

    @Override
    public String toString() {
        return "LatchkeyLockProvider[" + client.backend() + (namePrefix.isEmpty() ? "" : ", prefix " + namePrefix)
                + "]";
    }

    static LockOptions options(Duration lease) {
        return LockOptions.builder().lease(lease).autoRenew(false).build();
    }

    /**
     * The lease to ask for so that it ends at {@code at} (ShedLock's clock), but at least {@link #SHORTEST_LEASE}: a
     * shorter lease could run out while the request is on the wire, and the store would refuse or report it lost.
     */
    static Duration until(Instant at) {
        Duration d = Duration.between(ClockProvider.now(), at);
        return d.compareTo(SHORTEST_LEASE) < 0 ? SHORTEST_LEASE : d;
    }

    /** Releases {@code handle} at {@code at} (ShedLock's clock); cancel the returned future to keep it. */
    ScheduledFuture<?> releaseAt(LockHandle handle, Instant at) {
        long delay = Math.max(0, Duration.between(ClockProvider.now(), at).toNanos());
        return timer.schedule(handle::release, delay, TimeUnit.NANOSECONDS);
    }
}

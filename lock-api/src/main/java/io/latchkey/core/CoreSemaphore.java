package io.latchkey.core;

import io.latchkey.DistributedSemaphore;
import io.latchkey.LockHandle;
import io.latchkey.LockOptions;
import io.latchkey.spi.GrantKind;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The core's {@link DistributedSemaphore}: a name, a permit count and options bound to a client. Each acquisition
 * of {@code n} permits goes through the same acquire loop, watchdog and loss signal as an exclusive lock, with a
 * {@link GrantKind#permits} request; nothing here holds state.
 */
final class CoreSemaphore implements DistributedSemaphore {
    private final CoreLockClient client;
    private final String name;
    private final int permits;
    private final LockOptions options;

    CoreSemaphore(CoreLockClient client, String name, int permits, LockOptions options) {
        this.client = client;
        this.name = name;
        this.permits = permits;
        this.options = options;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int permits() {
        return permits;
    }

    @Override
    public LockOptions options() {
        return options;
    }

    /** The lock view for {@code n} permits; the count is checked here, before the store is asked. */
    private CoreLock permitsOf(int n) {
        if (n < 1 || n > permits) {
            throw new IllegalArgumentException("permits to acquire from semaphore " + LockNames.quote(name)
                    + " must be 1.." + permits + " (its permit count), was " + n);
        }
        return new CoreLock(client, name, options, GrantKind.permits(n, permits));
    }

    @Override
    public Optional<LockHandle> tryAcquire(int n) {
        return permitsOf(n).tryAcquire();
    }

    @Override
    public Optional<LockHandle> tryAcquire(int n, Duration wait) throws InterruptedException {
        return permitsOf(n).tryAcquire(wait);
    }

    @Override
    public LockHandle acquire(int n, Duration wait) throws InterruptedException {
        return permitsOf(n).acquire(wait);
    }

    @Override
    public LockHandle acquire(int n) throws InterruptedException {
        return permitsOf(n).acquire();
    }

    @Override
    public CompletableFuture<LockHandle> acquireAsync(int n, Duration wait) {
        return permitsOf(n).acquireAsync(wait);
    }

    @Override
    public CompletableFuture<Optional<LockHandle>> tryAcquireAsync(int n) {
        return permitsOf(n).tryAcquireAsync();
    }

    @Override
    public int availablePermits() {
        client.checkOpen(name);
        return client.backend.availablePermits(name, permits);
    }

    @Override
    public String toString() {
        return "DistributedSemaphore['" + name + "', " + permits + " permits on " + client.backend() + ", " + options
                + "]";
    }
}

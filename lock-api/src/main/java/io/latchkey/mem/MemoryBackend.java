package io.latchkey.mem;

import io.latchkey.Capability;
import io.latchkey.LockInfo;
import io.latchkey.LockLoss;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Grant;
import io.latchkey.spi.HandOver;
import io.latchkey.spi.GrantKind;
import io.latchkey.spi.GrantLossSink;
import io.latchkey.spi.LockBackend;
import io.latchkey.spi.RenewResult;
import io.latchkey.spi.TimeSource;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The {@code mem:} backend: one client's connection to a {@link MemoryStore}. Several backends on one store
 * behave like several processes on one server. For an application's own tests:
 *
 * <pre>{@code
 * VirtualClock clock = new VirtualClock();
 * MemoryStore store = new MemoryStore(clock);
 * LockClient a = Latchkey.client(store.newBackend());
 * LockHandle h = a.lock("job", LockOptions.builder().autoRenew(false).build()).tryAcquire().orElseThrow();
 * clock.advance(Duration.ofSeconds(31));   // h.lost() is now complete with EXPIRED
 * }</pre>
 *
 * It claims {@link Capability#FAIR}, {@link Capability#NATIVE_WAIT}, {@link Capability#SERVER_CLOCK},
 * {@link Capability#LISTING}, {@link Capability#SEMAPHORE} and {@link Capability#READ_WRITE}; it does not survive a
 * restart of the JVM.
 */
public final class MemoryBackend implements LockBackend {
    private static final Set<Capability> CAPABILITIES = EnumSet.of(
            Capability.FAIR,
            Capability.NATIVE_WAIT,
            Capability.SERVER_CLOCK,
            Capability.LISTING,
            Capability.SEMAPHORE,
            Capability.READ_WRITE);

    private final MemoryStore store;
    private volatile @Nullable GrantLossSink sink;

    MemoryBackend(MemoryStore store) {
        this.store = store;
    }

    /**
     * The store this backend talks to.
     *
     * @return the store
     */
    public MemoryStore store() {
        return store;
    }

    @Override
    public String description() {
        return store.description();
    }

    @Override
    public Set<Capability> capabilities() {
        return CAPABILITIES;
    }

    @Override
    public TimeSource timeSource() {
        return store.time();
    }

    @Override
    public void bind(GrantLossSink sink) {
        this.sink = sink;
    }

    @Override
    public AcquireResult tryAcquire(AcquireRequest request) {
        return switch (request.kind().type()) {
            case PERMITS -> store.semaphores().tryAcquire(request, this);
            case READ, WRITE -> store.readWrite().tryAcquire(request, this);
            case EXCLUSIVE -> store.tryAcquire(request, this);
        };
    }

    @Override
    public AcquireResult acquire(AcquireRequest request, Duration maxWait) throws InterruptedException {
        return request.kind().type() == GrantKind.Type.EXCLUSIVE
                ? store.acquire(request, maxWait, this)
                : tryAcquire(request);
    }

    @Override
    public boolean awaitChange(AcquireRequest request, Duration timeout) throws InterruptedException {
        return switch (request.kind().type()) {
            case PERMITS -> store.semaphores().awaitChange(request.name(), timeout);
            case READ, WRITE -> store.readWrite().awaitChange(request.name(), timeout);
            case EXCLUSIVE -> store.awaitChange(request.name(), timeout);
        };
    }

    @Override
    public void withdraw(AcquireRequest request) {
        if (request.kind().type() == GrantKind.Type.WRITE) {
            store.readWrite().withdraw(request);
        }
    }

    @Override
    public int availablePermits(String name, int limit) {
        return store.semaphores().availablePermits(name, limit);
    }

    @Override
    public boolean awaitChange(String name, Duration timeout) throws InterruptedException {
        return store.awaitChange(name, timeout);
    }

    @Override
    public @Nullable Grant downgrade(Grant write, AcquireRequest read) {
        return store.readWrite().downgrade(write, read, this);
    }

    @Override
    public RenewResult renew(Grant grant, Duration lease) {
        return switch (grant.kind().type()) {
            case PERMITS -> store.semaphores().renew(grant, lease);
            case READ, WRITE -> store.readWrite().renew(grant, lease);
            case EXCLUSIVE -> store.renew(grant, lease);
        };
    }

    /**
     * 64: the store is memory, so a batch saves nothing, but the core's batched renewal path (RenewalBatcher) is then
     * the one every in-memory test and the TCK's reference run exercise.
     */
    @Override
    public int renewalBatchSize() {
        return 64;
    }

    @Override
    public boolean release(Grant grant) {
        return switch (grant.kind().type()) {
            case PERMITS -> store.semaphores().release(grant);
            case READ, WRITE -> store.readWrite().release(grant);
            case EXCLUSIVE -> store.release(grant);
        };
    }

    /** One step under the name's lock (MemoryStore.handOver), so that the core's hand-off path is what tests run. */
    @Override
    public HandOver handOver(Grant held, AcquireRequest next) {
        return held.kind().type() == GrantKind.Type.EXCLUSIVE
                ? store.handOver(held, next, this)
                : HandOver.released(release(held));
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return store.inspect(name);
    }

    @Override
    public List<LockInfo> list(String prefix) {
        return store.list(prefix);
    }

    @Override
    public boolean forceRelease(String name) {
        return store.forceRelease(name);
    }

    void reportLost(String name, String owner, LockLoss.Reason reason, String detail) {
        GrantLossSink s = sink;
        if (s != null) {
            s.grantLost(name, owner, reason, detail, null);
        }
    }

    @Override
    public void close() {
        // nothing to free: the store outlives its clients, as a server does
    }

    @Override
    public String toString() {
        return "MemoryBackend[" + description() + "]";
    }
}

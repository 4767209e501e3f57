package io.latchkey.spring;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockOptions;
import io.latchkey.Reentrancy;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;
import org.springframework.scheduling.TaskScheduler;

/**
 * Spring Integration's {@link org.springframework.integration.support.locks.LockRegistry} on any Latchkey URI: a
 * drop-in for {@code RedisLockRegistry}, {@code JdbcLockRegistry} or {@code ZookeeperLockRegistry} wherever a
 * {@code LockRegistry} is injected (aggregators, leader initiators, {@code executeLocked}).
 *
 * <pre>{@code
 * LockRegistry<DistributedLock> locks = LatchkeyLockRegistry.builder(Latchkey.connect("redis://redis:6379"))
 *         .prefix("orders/")
 *         .ttl(Duration.ofSeconds(30))
 *         .build();
 * locks.executeLocked("order-42", () -> ship(42));
 * }</pre>
 *
 * <p>Semantics, as Spring Integration's own registries have them: {@code obtain(key)} takes a {@code String} key and
 * returns the same lock object for it until {@link #expireUnusedOlderThan} drops it; a lock is reentrant per thread
 * and unlocked by the locking thread only ({@link IllegalMonitorStateException} otherwise); a grant lasts
 * {@code ttl} (default 60 s) unless renewed ({@link #renewLock}) or auto-renewed ({@link Builder#autoRenew}, or
 * {@link #setRenewalTaskScheduler}); {@code unlock()} of a grant that expired or was lost in the store throws
 * {@link java.util.ConcurrentModificationException}; store failures are {@code CannotAcquireLockException} (acquiring)
 * and {@code DataAccessResourceFailureException} (unlock, renew), each naming the lock and backend.
 *
 * <p>Threads of one process queue for a key locally and only the head contends in the store (Latchkey's core), so a
 * registry shared by many threads costs the store one waiter per key. The client belongs to the caller: the registry
 * does not close it.
 */
public final class LatchkeyLockRegistry
        implements ExpirableLockRegistry<DistributedLock>, RenewableLockRegistry<DistributedLock> {
    /** The default time a grant lasts without renewal, as Spring Integration's Redis registry. */
    public static final Duration DEFAULT_TTL = Duration.ofSeconds(60);

    private final LockClient client;
    private final String prefix;
    private final Duration ttl;
    private volatile boolean autoRenew;
    private final ConcurrentMap<String, LatchkeySpringLock> locks = new ConcurrentHashMap<>();

    /**
     * A registry with the defaults: no prefix, a 60 s ttl, no auto-renewal.
     *
     * @param client the client whose locks the registry hands out; the registry never closes it
     */
    public LatchkeyLockRegistry(LockClient client) {
        this(builder(client));
    }

    private LatchkeyLockRegistry(Builder b) {
        this.client = b.client;
        this.prefix = b.prefix;
        this.ttl = b.ttl;
        this.autoRenew = b.autoRenew;
    }

    /**
     * A builder for a registry on {@code client}.
     *
     * @param client the client whose locks the registry hands out; the registry never closes it
     * @return a new builder
     */
    public static Builder builder(LockClient client) {
        return new Builder(client);
    }

    /**
     * The lock for {@code lockKey} (a {@code String}); the lock's name in the store is the prefix followed by the key.
     *
     * @throws IllegalArgumentException if the key is not a String or the name is not a valid Latchkey lock name
     */
    @Override
    public DistributedLock obtain(Object lockKey) {
        if (!(lockKey instanceof String key)) {
            throw new IllegalArgumentException("lock key must be a String, was "
                    + (lockKey == null ? "null" : lockKey.getClass().getName()));
        }
        String name = Latchkey.checkLockName(prefix + key);
        return locks.computeIfAbsent(name, n -> new LatchkeySpringLock(this, n));
    }

    /** Forgets the lock objects of keys nobody holds that were last locked or unlocked longer ago than {@code age}. */
    @Override
    public void expireUnusedOlderThan(long age) {
        long cutoff = System.currentTimeMillis() - age;
        for (String name : locks.keySet()) {
            locks.computeIfPresent(name, (n, lock) -> lock.unusedSince(cutoff) ? null : lock);
        }
    }

    /** Renews the calling thread's grant of {@code lockKey} to the registry's ttl. */
    @Override
    public void renewLock(Object lockKey) {
        renewLock(lockKey, ttl);
    }

    /**
     * Renews the calling thread's grant of {@code lockKey} to {@code ttl} from now.
     *
     * @throws IllegalMonitorStateException if the calling thread does not hold it
     * @throws IllegalStateException if the grant was lost (expired, or taken by an administrator)
     */
    @Override
    public void renewLock(Object lockKey, Duration ttl) {
        if (ttl == null || ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("ttl must be positive, was " + ttl);
        }
        LatchkeySpringLock lock = (LatchkeySpringLock) obtain(lockKey);
        if (!lock.renew(ttl)) {
            throw new IllegalStateException(
                    "could not renew lock '" + lock.name() + "' on " + backend() + ": the grant was lost");
        }
    }

    /**
     * Spring Integration's switch for automatic renewal: grants taken from now on are renewed for as long as they are
     * held. Latchkey's watchdog does the renewing, not {@code scheduler}.
     */
    @Override
    public void setRenewalTaskScheduler(TaskScheduler scheduler) {
        this.autoRenew = true;
    }

    Duration ttl() {
        return ttl;
    }

    String backend() {
        return client.backend();
    }

    io.latchkey.DistributedLock latchkeyLock(String name, Duration ttl) {
        LockOptions options = LockOptions.builder()
                .lease(ttl)
                .autoRenew(autoRenew)
                .reentrancy(Reentrancy.PER_THREAD)
                .build();
        return client.lock(name, options);
    }

    @Override
    public String toString() {
        return "LatchkeyLockRegistry[" + client.backend() + (prefix.isEmpty() ? "" : ", prefix " + prefix) + ", ttl "
                + ttl + (autoRenew ? ", auto-renew" : "") + "]";
    }

    /** Options of a {@link LatchkeyLockRegistry}; each setter checks its argument. */
    public static final class Builder {
        private final LockClient client;
        private String prefix = "";
        private Duration ttl = DEFAULT_TTL;
        private boolean autoRenew;

        private Builder(LockClient client) {
            this.client = Objects.requireNonNull(client, "client");
        }

        /**
         * Put before every key, e.g. {@code "orders/"} (Spring Integration's "registry key"); empty by default.
         *
         * @param prefix put before every key; may be empty
         * @return this builder
         */
        public Builder prefix(String prefix) {
            if (prefix == null) {
                throw new IllegalArgumentException("prefix must not be null; use \"\" for none");
            }
            this.prefix = prefix;
            return this;
        }

        /**
         * How long a grant lasts without renewal; positive, 60 s by default.
         *
         * @param ttl positive
         * @return this builder
         */
        public Builder ttl(Duration ttl) {
            if (ttl == null || ttl.isNegative() || ttl.isZero()) {
                throw new IllegalArgumentException("ttl must be positive, was " + ttl);
            }
            this.ttl = ttl;
            return this;
        }

        /**
         * Renew grants for as long as they are held (Latchkey's watchdog), so a long task never loses its lock to the
         * ttl while its process lives; off by default, as in Spring Integration.
         *
         * @param autoRenew whether held grants are renewed
         * @return this builder
         */
        public Builder autoRenew(boolean autoRenew) {
            this.autoRenew = autoRenew;
            return this;
        }

        /**
         * The registry as configured.
         *
         * @return the registry
         */
        public LatchkeyLockRegistry build() {
            return new LatchkeyLockRegistry(this);
        }
    }
}

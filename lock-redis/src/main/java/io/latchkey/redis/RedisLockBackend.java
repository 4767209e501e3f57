package io.latchkey.redis;

import io.latchkey.BackendUnavailableException;
import io.latchkey.Capability;
import io.latchkey.LockInfo;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Grant;
import io.latchkey.spi.GrantKind;
import io.latchkey.spi.LockBackend;
import io.latchkey.spi.Redaction;
import io.latchkey.spi.RenewResult;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.UnifiedJedis;

/**
 * Locks in Redis: one node ({@code redis://}, {@code rediss://}), or Redlock over N independent nodes
 * ({@code redlock://h1:p1,h2:p2,h3:p3}). One node is the quorum-of-one case of the same protocol. The master a
 * group of Sentinels names ({@code redis-sentinel://s1,s2,s3/master}) and a Redis Cluster
 * ({@code redis-cluster://n1,n2,n3}) are one node each as far as the protocol goes (RedisTopologies): their
 * replication is asynchronous, so a fail-over can lose a grant, which the holder learns at its next renewal.
 *
 * <pre>{@code
 * LockClient locks = Latchkey.connect("redis://127.0.0.1:6379");
 * LockClient quorum = Latchkey.connect("redlock://10.0.0.1:6379,10.0.0.2:6379,10.0.0.3:6379");
 * LockClient mine = Latchkey.client(RedisLockBackend.builder(myJedisPool).build());
 * LockClient tls = Latchkey.connect("rediss://app:secret@redis.internal:6380", Map.of("tlsCa", "/etc/ssl/redis-ca.pem"));
 * }</pre>
 *
 * <p>TLS ({@code rediss://}, or {@code tls=true} on {@code redlock://}) trusts the JVM's default trust store,
 * or the CA file of {@code tlsCa}, and presents a client certificate when {@code tlsCert} and {@code tlsKey}
 * are given; the server certificate must name the host (hostname verification is always on). See
 * {@link RedisSettings}.
 *
 * <h2>Protocol</h2>
 * Acquire is one script per node: {@code SET lock owner NX PX lease} plus {@code INCR} of the name's fence
 * key, returning the token; a retry with the same owner finds its own grant and gets the same token.
 * Renew and release are compare-and-pexpire and compare-and-delete scripts; release also pushes one
 * element to the name's wake list, which one waiter pops with BLPOP ({@link #awaitChange}). Redlock sends
 * each step to all nodes in parallel and needs a quorum (N/2+1) within the validity
 * {@code lease - elapsed - (clockDrift x lease + 2 ms)}; the token is the maximum counter over the quorum,
 * written back to the nodes that lag before the grant is returned. A failed attempt is released on every
 * node that might hold it.
 *
 * <p>Read-write locks use the same rounds with their own scripts, on one node and on Redlock (see
 * RedisReadWrite for why a quorum read-write lock is as safe as Redlock's lock). Semaphores are offered on one
 * node only: a permit counted by a quorum does not bound the permits held across the fleet.
 *
 * <p>Acquire and release wait for every node (at most the per-node timeout), so that no request of
 * theirs is still in flight when they return: an acquire overtaken by the next release on another
 * connection would leave an orphan, and a release still in flight would make the next acquire see a
 * stale holder. Renewal returns as soon as a quorum has renewed.
 *
 * <h2>Layout</h2>
 * This class holds the SPI methods only; each delegates to one class of the module's shape: RedisConnection
 * (nodes, pools, executor, URI conventions), RedisGrants (acquire and release as quorum rounds), RedisRenewal,
 * RedisWaiting (wake-one through a list), RedisInspection (inspect, list, force-release), RedisScripts.
 *
 * <h2>Concurrency</h2>
 * Thread-safe and lock-free: every call borrows its own pooled connection per node; Redlock rounds run on
 * a shared executor (see NodeRound). The only mutable field is the index of the node waiters block on
 * (RedisWaiting).
 */
public final class RedisLockBackend implements LockBackend {
    private static final Set<Capability> CAPABILITIES = Collections.unmodifiableSet(EnumSet.of(
            Capability.NATIVE_WAIT,
            Capability.SERVER_CLOCK,
            Capability.LISTING,
            Capability.SEMAPHORE,
            Capability.READ_WRITE));
    /** Redlock: no semaphores (see RedisSemaphores.REDLOCK_REFUSAL); read-write locks by quorum (RedisReadWrite). */
    private static final Set<Capability> REDLOCK_CAPABILITIES = Collections.unmodifiableSet(
            EnumSet.of(Capability.NATIVE_WAIT, Capability.SERVER_CLOCK, Capability.LISTING, Capability.READ_WRITE));

    private final RedisConnection connection;
    private final RedisGrants grants;
    /** How many exclusive grants one RENEW_MANY call renews at most. */
    static final int RENEWAL_BATCH = 128;

    private final RedisRenewal renewal;
    /** RENEW_MANY's batch where every node keeps all of its names' keys on one server, else 1. */
    private final int renewalBatchSize;
    private final RedisWaiting waiting;
    private final RedisInspection inspection;
    private final RedisSemaphores semaphores;
    private final RedisReadWrite readWrite;

    private RedisLockBackend(RedisConnection connection, RedisSettings settings) {
        RedisKeys keys = new RedisKeys(settings.keyPrefix());
        this.connection = connection;
        this.waiting = new RedisWaiting(connection, keys);
        this.grants = new RedisGrants(connection, keys, waiting, settings.clockDrift());
        this.renewal = new RedisRenewal(connection, keys, grants);
        this.renewalBatchSize =
                connection.nodes().stream().allMatch(RedisNode::oneServerForAllKeys) ? RENEWAL_BATCH : 1;
        this.inspection = new RedisInspection(connection, keys);
        this.semaphores = new RedisSemaphores(connection, keys, grants, waiting);
        this.readWrite = new RedisReadWrite(connection, keys, grants, renewal, waiting);
    }

    // ------------------------------------------------------------------ construction

    /**
     * A backend for a URI ({@code redis://}, {@code rediss://}, {@code redlock://}); see {@link RedisSettings}.
     *
     * @param uri the URI
     * @return the connected backend
     */
    public static RedisLockBackend connect(String uri) {
        return connect(URI.create(uri), Map.of());
    }

    /**
     * A backend for a URI with settings (the URI's query string may carry them too). Every node is checked
     * before the backend is returned (a fresh connection and a PING, in parallel, within {@code connectTimeout},
     * 5 s by default): a store that cannot be used fails here, with one line.
     *
     *
     * @param uri the URI
     * @param settings the settings besides the URI
     * @return the connected backend
     * @throws BackendUnavailableException {@code cannot reach redis://host:6379 within 5s: connection refused},
     *         {@code authentication failed at redis://host:6379: WRONGPASS ...}, or {@code the server at
     *         host:6379 did not answer as Redis (redis://host:6379): ...}; for Redlock when fewer than a quorum
     *         of nodes answer
     */
    public static RedisLockBackend connect(URI uri, Map<String, String> settings) {
        return connect(uri, settings, true);
    }

    /** {@link #connect(URI, Map)}; {@code check = false} skips the check of the nodes (unit tests without a server). */
    static RedisLockBackend connect(URI uri, Map<String, String> settings, boolean check) {
        RedisTarget target = RedisTarget.parse(uri, settings);
        RedisSettings s = RedisSettings.fromSettings(target.settings());
        return new RedisLockBackend(RedisConnection.open(target, s, check), s);
    }

    /**
     * A single-node backend on the application's pool, which the backend never closes.
     *
     * @param pool the application's pool
     * @return a new builder
     */
    public static Builder builder(JedisPool pool) {
        if (pool == null) {
            throw new IllegalArgumentException("the JedisPool must not be null");
        }
        return new Builder(List.of(pool), false);
    }

    /**
     * A single-node backend on the application's client, which the backend never closes: a {@code RedisClient}
     * (Jedis 8's pooled client; connections are borrowed from its pool), or any other {@code UnifiedJedis}, used
     * through its command API (set its {@code blockingSocketTimeoutMillis}, so that a waiter on a frozen server
     * gives up).
     *
     * @param client the application's client
     * @return a new builder
     */
    public static Builder builder(UnifiedJedis client) {
        if (client == null) {
            throw new IllegalArgumentException("the Jedis client must not be null");
        }
        return new Builder(List.of(client), false);
    }

    /**
     * A Redlock backend on the application's clients, one per independent node (at least 3), never closed by it.
     * Any collection ({@code List.of(a, b, c)}, a set, ...), copied at once; each element a {@code JedisPool} or a
     * {@code UnifiedJedis} such as {@code RedisClient} (they may be mixed).
     *
     *
     * @param clients one client per independent node
     * @return a new builder
     * @throws IllegalArgumentException for fewer than 3 elements, a null element or one of another type (naming
     *         its index), or the same client twice
     */
    public static Builder redlockBuilder(Collection<?> clients) {
        if (clients == null) {
            throw new IllegalArgumentException("Redlock needs a collection of at least 3 JedisPool or UnifiedJedis "
                    + "clients of independent nodes, got null");
        }
        List<Object> copy = new ArrayList<>(clients); // copied first: the caller's collection may change later
        if (copy.size() < 3) {
            throw new IllegalArgumentException(
                    "Redlock needs at least 3 clients of independent nodes, got " + copy.size());
        }
        Set<Object> distinct = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int i = 0; i < copy.size(); i++) {
            Object c = copy.get(i);
            if (c == null) {
                throw new IllegalArgumentException("Redlock client at index " + i + " of " + copy.size()
                        + " is null; pass one JedisPool or UnifiedJedis per node");
            }
            if (!(c instanceof JedisPool) && !(c instanceof UnifiedJedis)) {
                throw new IllegalArgumentException("Redlock client at index " + i + " is a "
                        + c.getClass().getName() + "; expected a JedisPool or a UnifiedJedis (RedisClient, ...)");
            }
            if (!distinct.add(c)) {
                throw new IllegalArgumentException("Redlock client at index " + i
                        + " appears twice; each client stands " + "for an independent node");
            }
        }
        return new Builder(List.copyOf(copy), true);
    }

    /** Builds a backend on pools the application owns. Not thread-safe. */
    public static final class Builder {
        /** JedisPool or UnifiedJedis, one per node. */
        private final List<Object> pools;

        private final boolean redlock;
        private RedisSettings settings = RedisSettings.defaults();
        private String description;
        private Executor executor;

        private Builder(List<Object> pools, boolean redlock) {
            this.pools = pools;
            this.redlock = redlock;
        }

        /**
         * Timeouts, key prefix and clock drift ({@code poolSize} and {@code clientName} apply only to pools the
         * backend builds). Set {@code timeout} to the pools' socket timeout. TLS settings are rejected here:
         * configure TLS in the pools' {@code DefaultJedisClientConfig} ({@code ssl}, {@code sslSocketFactory},
         * {@code sslParameters}), which a backend on application pools cannot change.
         *
         * @param settings the settings
         * @return this builder
         */
        public Builder settings(RedisSettings settings) {
            this.settings = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /**
         * How the backend names itself in messages, e.g. {@code redis://cache-1:6379}; any password is redacted.
         *
         * @param description the text
         * @return this builder
         */
        public Builder description(String description) {
            if (description == null || description.isBlank()) {
                throw new IllegalArgumentException("description must be a non-blank text such as redis://cache-1:6379");
            }
            this.description = Redaction.redact(description);
            return this;
        }

        /**
         * Executor for Redlock's parallel requests (default: a cached pool of daemon threads the backend owns).
         *
         * @param executor where Redlock's requests run
         * @return this builder
         */
        public Builder executor(Executor executor) {
            this.executor = Objects.requireNonNull(executor, "executor");
            return this;
        }

        /**
         * The backend on the application's clients.
         *
         * @return the backend
         * @throws IllegalArgumentException if TLS settings were given (TLS belongs in the clients' configuration)
         */
        public RedisLockBackend build() {
            if (settings.anyTlsSetting()) {
                throw new IllegalArgumentException(
                        "TLS settings (tls, tlsCa, tlsCert, tlsKey) apply to pools the backend "
                                + "builds from a URI; configure TLS in your JedisPool's DefaultJedisClientConfig (ssl, "
                                + "sslSocketFactory, sslParameters) instead: " + settings);
            }
            Duration timeout =
                    settings.timeoutOr(redlock ? RedisSettings.REDLOCK_TIMEOUT : RedisSettings.SINGLE_NODE_TIMEOUT);
            String d = description != null
                    ? description
                    : (redlock ? "redlock (" + pools.size() + " application clients)" : "redis (application client)");
            return new RedisLockBackend(RedisConnection.ofClients(pools, redlock, timeout, d, executor), settings);
        }
    }

    // ------------------------------------------------------------------ SPI

    @Override
    public String description() {
        return connection.description();
    }

    @Override
    public Set<Capability> capabilities() {
        return connection.redlock() ? REDLOCK_CAPABILITIES : CAPABILITIES;
    }

    @Override
    public @Nullable String refusal(Capability capability) {
        if (!connection.redlock()) {
            return null;
        }
        return switch (capability) {
            case SEMAPHORE -> RedisSemaphores.REDLOCK_REFUSAL;
            default -> null;
        };
    }

    /**
     * Number of nodes (1 for a single node).
     *
     * @return the node count
     */
    public int nodeCount() {
        return connection.nodes().size();
    }

    @Override
    public AcquireResult tryAcquire(AcquireRequest request) {
        return switch (request.kind().type()) {
            case PERMITS -> semaphores.tryAcquire(request);
            case READ, WRITE -> readWrite.tryAcquire(request);
            case EXCLUSIVE -> grants.tryAcquire(request);
        };
    }

    @Override
    public RenewResult renew(Grant grant, Duration lease) {
        return switch (grant.kind().type()) {
            case PERMITS -> semaphores.renew(grant, lease);
            case READ, WRITE -> readWrite.renew(grant, lease);
            case EXCLUSIVE -> renewal.renew(grant, lease);
        };
    }

    /**
     * 128 where every name's keys live on one server per node (a single node, Redlock's nodes, Sentinel's master):
     * the background renewals of that many locks go in one script call per node (RENEW_MANY). 1 on a cluster (and on
     * an application's client that may be one), whose names lie in different slots.
     */
    @Override
    public int renewalBatchSize() {
        return renewalBatchSize;
    }

    @Override
    public java.util.List<@org.jspecify.annotations.Nullable RenewResult> renewAll(
            java.util.List<Grant> batch, java.util.List<Duration> leases) {
        return renewalBatchSize > 1 ? renewal.renewAll(batch, leases) : LockBackend.super.renewAll(batch, leases);
    }

    @Override
    public boolean release(Grant grant) {
        return switch (grant.kind().type()) {
            case PERMITS -> semaphores.release(grant);
            case READ, WRITE -> readWrite.release(grant);
            case EXCLUSIVE -> grants.release(grant);
        };
    }

    @Override
    public Grant downgrade(Grant write, AcquireRequest read) {
        return readWrite.downgrade(write, read);
    }

    @Override
    public void withdraw(AcquireRequest request) {
        if (request.kind().type() == GrantKind.Type.WRITE) {
            readWrite.withdraw(request);
        }
    }

    @Override
    public boolean awaitChange(String name, Duration timeout) throws InterruptedException {
        return waiting.awaitChange(name, timeout);
    }

    @Override
    public boolean awaitChange(AcquireRequest request, Duration timeout) throws InterruptedException {
        return switch (request.kind().type()) {
            case PERMITS -> semaphores.awaitChange(request.name(), timeout);
            case READ, WRITE -> readWrite.awaitChange(request.name(), timeout);
            case EXCLUSIVE -> waiting.awaitChange(request.name(), timeout);
        };
    }

    @Override
    public int availablePermits(String name, int limit) {
        return semaphores.availablePermits(name, limit);
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return inspection.inspect(name);
    }

    @Override
    public List<LockInfo> list(String prefix) {
        return inspection.list(prefix);
    }

    @Override
    public boolean forceRelease(String name) {
        return inspection.forceRelease(name);
    }

    @Override
    public void close() {
        connection.close();
    }

    @Override
    public String toString() {
        int n = connection.nodes().size();
        return "RedisLockBackend[" + connection.description() + ", " + n
                + (n == 1 ? " node]" : " nodes, quorum " + connection.quorum() + "]");
    }

    /** The TTL written to the store for a lease (see RedisGrants). */
    long storeTtlMillis(long leaseNanos) {
        return grants.storeTtlMillis(leaseNanos);
    }
}

package io.latchkey.redis;

import io.latchkey.BackendUnavailableException;
import io.latchkey.Capability;
import io.latchkey.LockInfo;
import io.latchkey.LockLoss;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Busy;
import io.latchkey.spi.Grant;
import io.latchkey.spi.LockBackend;
import io.latchkey.spi.Redaction;
import io.latchkey.spi.RenewResult;
import io.latchkey.spi.StoreErrors;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLSocketFactory;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.JedisPoolConfig;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Locks in Redis: one node ({@code redis://}, {@code rediss://}), or Redlock over N independent nodes
 * ({@code redlock://h1:p1,h2:p2,h3:p3}). One node is the quorum-of-one case of the same protocol.
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
 * <p>Acquire and release wait for every node (at most the per-node timeout), so that no request of
 * theirs is still in flight when they return: an acquire overtaken by the next release on another
 * connection would leave an orphan, and a release still in flight would make the next acquire see a
 * stale holder. Renewal returns as soon as a quorum has renewed.
 *
 * <h2>Concurrency</h2>
 * Thread-safe and lock-free: every call borrows its own pooled connection per node; Redlock rounds run on
 * a shared executor (see NodeRound). The only mutable field is the index of the node waiters block on.
 */
public final class RedisLockBackend implements LockBackend {
    private static final Logger log = LoggerFactory.getLogger(RedisLockBackend.class);
    private static final Set<Capability> CAPABILITIES =
            Collections.unmodifiableSet(EnumSet.of(Capability.NATIVE_WAIT, Capability.SERVER_CLOCK, Capability.LISTING));
    private static final long FIXED_DRIFT_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    /** How long a wake element waits for a waiter (one that popped nothing in time retries at its backoff). */
    private static final byte[] WAKE_TTL_MS = bytes(10_000);
    private static final byte[] WAKE_IF_HELD = bytes(0);
    private static final byte[] WAKE_ALWAYS = bytes(1);
    private static final AtomicInteger EXECUTORS = new AtomicInteger();

    private final String description;
    /** The store as one-line errors name it ({@code redis://host:6379}), never with a secret. */
    private final String target;
    /** Connect timeout of pools built from a URI; null for application clients (their own). */
    private final Duration connectTimeout;
    /** The literal secrets of the URI and settings, removed from any third-party text we show or log. */
    private final Set<String> secrets;
    /** Whether the pools were built for TLS from the settings (false for application pools: unknown). */
    private final boolean tls;
    private final List<RedisNode> nodes;
    private final int quorum;
    private final RedisKeys keys;
    private final long timeoutNanos;
    private final double clockDrift;
    private final Executor executor;
    private final ExecutorService ownedExecutor;
    private volatile int waitNode;

    private RedisLockBackend(String description, String target, Duration connectTimeout, Set<String> secrets, boolean tls,
                             List<RedisNode> nodes, RedisSettings settings, Duration timeout, Executor executor) {
        this.description = description;
        this.target = target;
        this.connectTimeout = connectTimeout;
        this.secrets = Set.copyOf(secrets);
        this.tls = tls;
        this.nodes = List.copyOf(nodes);
        this.quorum = nodes.size() / 2 + 1;
        this.keys = new RedisKeys(settings.keyPrefix());
        this.timeoutNanos = timeout.toNanos();
        this.clockDrift = settings.clockDrift();
        if (nodes.size() == 1) {
            this.executor = null;
            this.ownedExecutor = null;
        } else if (executor != null) {
            this.executor = executor;
            this.ownedExecutor = null;
        } else {
            this.ownedExecutor = newExecutor();
            this.executor = ownedExecutor;
        }
    }

    // ------------------------------------------------------------------ construction

    /** A backend for a URI ({@code redis://}, {@code rediss://}, {@code redlock://}); see {@link RedisSettings}. */
    public static RedisLockBackend connect(String uri) {
        return connect(URI.create(uri), Map.of());
    }

    /**
     * A backend for a URI with settings (the URI's query string may carry them too). Every node is checked
     * before the backend is returned (a fresh connection and a PING, in parallel, within {@code connectTimeout},
     * 5 s by default): a store that cannot be used fails here, with one line.
     *
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
        RedisUris.Parsed p = RedisUris.parse(uri, settings);
        Set<String> secrets = secretsOf(uri, settings, p);
        RedisSettings s = RedisSettings.fromMap(p.settings());
        boolean redlock = p.scheme().equals("redlock");
        if (redlock && p.nodes().size() < 3) {
            throw new IllegalArgumentException("Redlock needs at least 3 independent nodes, '" + p.redacted() + "' names "
                    + p.nodes().size() + "; use redis://host:port for a single node");
        }
        if (p.scheme().equals("redis") && s.anyTlsSetting()) {
            throw new IllegalArgumentException("'" + p.redacted() + "' is plain text (redis://) but TLS settings were given "
                    + "(tls, tlsCa, tlsCert, tlsKey); use rediss://host:port for TLS to one node");
        }
        if (p.tls() && !s.tls() && s.anyTlsSetting()) {
            throw new IllegalArgumentException("tls=false contradicts the rediss:// scheme of '" + p.redacted() + "'");
        }
        boolean tls = p.tls() || s.tls();
        // one factory for every node and connection; reads and checks the PEM files now, not at the first handshake
        SSLSocketFactory tlsFactory = tls ? RedisTls.socketFactory(s.tlsCa().orElse(null), s.tlsCert().orElse(null),
                s.tlsKey().orElse(null)) : null;
        String description = redlock && tls ? p.redacted() + " (TLS)" : p.redacted();
        Duration timeout = s.timeoutOr(redlock ? RedisSettings.REDLOCK_TIMEOUT : RedisSettings.SINGLE_NODE_TIMEOUT);
        Duration connectTimeout = s.connectTimeoutOrDefault();
        java.util.function.IntFunction<DefaultJedisClientConfig> config = socketTimeoutMillis -> {
            DefaultJedisClientConfig.Builder cc = DefaultJedisClientConfig.builder()
                    // RESP2, stated rather than negotiated: the Jedis class speaks RESP2 only and the replies
                    // are read as RESP2 arrays/integers/bulk strings (a Lua false is a RESP2 nil). Without
                    // HELLO a connection is in RESP2 on every Redis version (and on proxies without HELLO),
                    // and no handshake command is added; Jedis no longer warns about auto-negotiation.
                    .autoNegotiateProtocol(false)
                    .connectionTimeoutMillis(Math.toIntExact(connectTimeout.toMillis()))
                    .socketTimeoutMillis(socketTimeoutMillis)
                    .database(p.database())
                    .clientName(s.clientName())
                    .ssl(tls);
            if (tls) {
                cc.sslSocketFactory(tlsFactory).sslParameters(RedisTls.parameters());
            }
            if (p.user() != null) {
                cc.user(p.user());
            }
            if (p.password() != null) {
                cc.password(p.password());
            }
            return cc.build();
        };
        List<RedisNode> nodes = new ArrayList<>();
        try {
            for (RedisUris.HostPort hp : p.nodes()) {
                JedisPoolConfig pc = new JedisPoolConfig();
                pc.setMaxTotal(s.poolSize());
                pc.setMaxIdle(s.poolSize());
                pc.setMinIdle(0);
                pc.setMaxWait(timeout);
                pc.setJmxEnabled(false);
                JedisPool pool = new JedisPool(pc, new HostAndPort(hp.host(), hp.port()),
                        config.apply(Math.toIntExact(timeout.toMillis())));
                nodes.add(RedisNode.ofPool(hp.toString(), pool, true, Math.toIntExact(timeout.toMillis())));
            }
        } catch (RuntimeException e) {
            nodes.forEach(RedisNode::close);
            throw e;
        }
        RedisLockBackend backend = new RedisLockBackend(description, p.target(), connectTimeout, secrets, tls, nodes, s,
                timeout, null);
        if (!check) {
            return backend;
        }
        try {
            // the probe's socket timeout is the connect timeout, so that a slow but live node passes
            DefaultJedisClientConfig probeConfig = config.apply(Math.toIntExact(connectTimeout.toMillis()));
            backend.checkReachable(p.nodes(), hp -> new Jedis(new HostAndPort(hp.host(), hp.port()), probeConfig));
        } catch (RuntimeException | Error e) {
            backend.close();
            throw e;
        }
        return backend;
    }

    /** The literal secrets of the URI and the settings (also a password given as setting), for scrubbing. */
    private static Set<String> secretsOf(URI uri, Map<String, String> settings, RedisUris.Parsed p) {
        Set<String> secrets = new java.util.LinkedHashSet<>(Redaction.secretsOf(uri.toString(), settings));
        if (p.password() != null && p.password().length() >= 3) {
            secrets.add(p.password()); // decoded, and from a query parameter or setting as well as user-info
        }
        return secrets;
    }

    /**
     * Checks every node (see {@link RedisReachability}); returns when a quorum answered (with a warning naming
     * the nodes that did not), else throws the one-line error that fits what the nodes did.
     */
    private void checkReachable(List<RedisUris.HostPort> hosts, java.util.function.Function<RedisUris.HostPort, Jedis> open) {
        List<RedisReachability.Outcome> outcomes;
        try {
            outcomes = RedisReachability.probe(hosts, open, i -> nodes.get(i).warm(), connectTimeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendUnavailableException("interrupted while connecting to " + description, null, description, e);
        }
        List<RedisReachability.Outcome> failed = outcomes.stream().filter(o -> !o.ok()).toList();
        if (outcomes.size() - failed.size() >= quorum) {
            if (!failed.isEmpty()) {
                log.warn("{} of {} nodes of {} cannot be used now ({}); locking goes on while a quorum of {} answers",
                        failed.size(), outcomes.size(), target, probeSummary(failed), quorum);
            }
            return;
        }
        Throwable cause = failed.stream().map(RedisReachability.Outcome::failure).filter(Objects::nonNull).findFirst()
                .orElse(null);
        String reasons = (nodes.size() == 1 ? "" : failed.size() + " of " + nodes.size() + " nodes failed (a quorum of "
                + quorum + " must answer): ") + probeSummary(failed);
        for (RedisFailures.Kind kind : List.of(RedisFailures.Kind.AUTHENTICATION, RedisFailures.Kind.NOT_REDIS)) {
            for (RedisReachability.Outcome o : failed) {
                if (o.failure() != null && probeKind(o.failure()) == kind) {
                    throw kind == RedisFailures.Kind.AUTHENTICATION
                            ? StoreErrors.authenticationFailed(target, reasons, null, o.failure())
                            : StoreErrors.notThatServer(o.node().toString(), "Redis", target, reasons, null, o.failure());
                }
            }
        }
        throw StoreErrors.cannotReach(target, connectTimeout, reasons, null, cause);
    }

    /** As {@link RedisFailures#kind}, where a fresh plain-text connection closed without a reply is not Redis. */
    private RedisFailures.Kind probeKind(Throwable failure) {
        RedisFailures.Kind kind = RedisFailures.kind(failure);
        if (kind == RedisFailures.Kind.OTHER && !tls && RedisFailures.closedWithoutReply(failure)) {
            return RedisFailures.Kind.NOT_REDIS;
        }
        return kind;
    }

    private String probeSummary(List<RedisReachability.Outcome> failed) {
        StringBuilder sb = new StringBuilder();
        for (RedisReachability.Outcome o : failed) {
            sb.append(sb.length() == 0 ? "" : "; ").append(nodes.size() == 1 ? "" : o.node() + ": ");
            // the probe's own read timeout (= connectTimeout) may fire just before the wait ends: the same silence
            if (!o.answered() || (RedisNode.isTimeout(o.failure()) && probeKind(o.failure()) != RedisFailures.Kind.UNREACHABLE)) {
                // a TLS client on a plain-text port waits for a ServerHello that never comes
                sb.append(tls ? "no answer (a plain-text port? then use redis://)" : "no answer");
                continue;
            }
            RedisFailures.Kind kind = probeKind(o.failure());
            String reason = kind == RedisFailures.Kind.OTHER ? null : RedisFailures.reason(o.failure(), kind);
            if (kind == RedisFailures.Kind.NOT_REDIS && reason == null) {
                reason = "the connection was closed without a reply (a TLS port? then use rediss://)";
            }
            sb.append(reason != null ? scrub(reason) : describe(o.failure()));
        }
        return sb.toString();
    }

    /** A single-node backend on the application's pool, which the backend never closes. */
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
            throw new IllegalArgumentException("Redlock needs at least 3 clients of independent nodes, got " + copy.size());
        }
        Set<Object> distinct = Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (int i = 0; i < copy.size(); i++) {
            Object c = copy.get(i);
            if (c == null) {
                throw new IllegalArgumentException("Redlock client at index " + i + " of " + copy.size()
                        + " is null; pass one JedisPool or UnifiedJedis per node");
            }
            if (!(c instanceof JedisPool) && !(c instanceof UnifiedJedis)) {
                throw new IllegalArgumentException("Redlock client at index " + i + " is a " + c.getClass().getName()
                        + "; expected a JedisPool or a UnifiedJedis (RedisClient, ...)");
            }
            if (!distinct.add(c)) {
                throw new IllegalArgumentException("Redlock client at index " + i + " appears twice; each client stands "
                        + "for an independent node");
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
         */
        public Builder settings(RedisSettings settings) {
            this.settings = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /** How the backend names itself in messages, e.g. {@code redis://cache-1:6379}; any password is redacted. */
        public Builder description(String description) {
            if (description == null || description.isBlank()) {
                throw new IllegalArgumentException("description must be a non-blank text such as redis://cache-1:6379");
            }
            this.description = Redaction.redact(description);
            return this;
        }

        /** Executor for Redlock's parallel requests (default: a cached pool of daemon threads the backend owns). */
        public Builder executor(Executor executor) {
            this.executor = Objects.requireNonNull(executor, "executor");
            return this;
        }

        public RedisLockBackend build() {
            if (settings.anyTlsSetting()) {
                throw new IllegalArgumentException("TLS settings (tls, tlsCa, tlsCert, tlsKey) apply to pools the backend "
                        + "builds from a URI; configure TLS in your JedisPool's DefaultJedisClientConfig (ssl, "
                        + "sslSocketFactory, sslParameters) instead: " + settings);
            }
            Duration timeout = settings.timeoutOr(redlock ? RedisSettings.REDLOCK_TIMEOUT : RedisSettings.SINGLE_NODE_TIMEOUT);
            List<RedisNode> nodes = new ArrayList<>();
            int timeoutMillis = Math.toIntExact(timeout.toMillis());
            for (int i = 0; i < pools.size(); i++) {
                String address = redlock ? "node " + (i + 1) : "redis";
                nodes.add(pools.get(i) instanceof JedisPool pool ? RedisNode.ofPool(address, pool, false, timeoutMillis)
                        : RedisNode.ofClient(address, (UnifiedJedis) pools.get(i), timeoutMillis));
            }
            String d = description != null ? description
                    : (redlock ? "redlock (" + pools.size() + " application clients)" : "redis (application client)");
            return new RedisLockBackend(d, d, null, Set.of(), false, nodes, settings, timeout, executor);
        }
    }

    private static ExecutorService newExecutor() {
        int id = EXECUTORS.incrementAndGet();
        AtomicInteger threads = new AtomicInteger();
        ThreadFactory factory = r -> {
            Thread t = new Thread(r, "latchkey-redlock-" + id + "-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
        return new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>(), factory);
    }

    // ------------------------------------------------------------------ SPI

    @Override
    public String description() {
        return description;
    }

    @Override
    public Set<Capability> capabilities() {
        return CAPABILITIES;
    }

    /** Number of nodes (1 for a single node). */
    public int nodeCount() {
        return nodes.size();
    }

    /** Grants needed: N/2+1. */
    public int quorum() {
        return quorum;
    }

    @Override
    public AcquireResult tryAcquire(AcquireRequest request) {
        String name = request.name();
        RedisKeys.NameKeys k = keys.of(name);
        byte[] owner = utf8(request.owner());
        long leaseNanos = request.lease().toNanos();
        byte[] ttlMs = bytes(storeTtlMillis(leaseNanos));
        long start = System.nanoTime();
        long validUntil = start + leaseNanos;
        NodeRound.Replies<AcquireReply> replies = NodeRound.run(nodes, executor,
                n -> AcquireReply.parse(n.eval(LockScripts.ACQUIRE, 3, k.lock(), k.fence(), k.waiting(), owner, ttlMs)),
                start + timeoutNanos, r -> false);
        String failure;
        if (replies.count(AcquireReply::granted) >= quorum) {
            long token = Long.MIN_VALUE;
            for (int i = 0; i < replies.size(); i++) {
                if (replies.ok(i) && replies.value(i).granted()) {
                    token = Math.max(token, replies.value(i).token());
                }
            }
            failure = raiseFence(k, owner, token, replies);
            if (failure == null && System.nanoTime() - validUntil < 0) {
                return new Grant(name, request.owner(), token, validUntil, null);
            }
            if (failure == null) {
                failure = "the quorum was reached after " + NodeRound.millis(System.nanoTime() - start)
                        + " ms, past the validity of the lease " + request.lease();
            }
        } else {
            failure = null;
        }
        releaseAfterFailure(k, owner, replies);
        if (failure == null) {
            Busy busy = busy(replies);
            if (busy != null) {
                return busy;
            }
            failure = summary(replies, quorum + " grants needed");
        }
        throw unavailable("acquire", name, failure, replies);
    }

    /** Redlock fencing: the nodes of the quorum that lag get the maximum; null when done, else why not. */
    private String raiseFence(RedisKeys.NameKeys k, byte[] owner, long token, NodeRound.Replies<AcquireReply> replies) {
        List<RedisNode> lagging = new ArrayList<>();
        int atMax = 0;
        for (int i = 0; i < replies.size(); i++) {
            if (replies.ok(i) && replies.value(i).granted()) {
                if (replies.value(i).token() == token) {
                    atMax++;
                } else {
                    lagging.add(nodes.get(i));
                }
            }
        }
        if (lagging.isEmpty() || atMax >= quorum) {
            return null; // every node of the quorum already has the maximum
        }
        int needed = quorum - atMax;
        byte[] tokenBytes = bytes(token);
        NodeRound.Replies<Boolean> raised = NodeRound.run(lagging, executor,
                n -> asLong(n.eval(LockScripts.RAISE_FENCE, 2, k.lock(), k.fence(), owner, tokenBytes)) == 1,
                System.nanoTime() + timeoutNanos, r -> false);
        if (raised.count(Boolean::booleanValue) >= needed) {
            return null;
        }
        return "the fencing token " + token + " could not be written back to a quorum: " + summary(raised, needed + " more needed");
    }

    /**
     * Gives back what a failed attempt may hold. Redlock: on every node that granted, failed or did not
     * answer, so that no minority is left blocking the next quorum. One node: only a grant it refuses (too
     * late); after an error the core retries with the same owner id and recognises a grant the server made.
     */
    private void releaseAfterFailure(RedisKeys.NameKeys k, byte[] owner, NodeRound.Replies<AcquireReply> replies) {
        List<RedisNode> maybeHeld = new ArrayList<>();
        for (int i = 0; i < replies.size(); i++) {
            if ((!replies.ok(i) && nodes.size() > 1) || (replies.ok(i) && replies.value(i).granted())) {
                maybeHeld.add(nodes.get(i));
            }
        }
        if (maybeHeld.isEmpty()) {
            return;
        }
        NodeRound.Replies<Long> released = NodeRound.run(maybeHeld, executor,
                n -> asLong(n.eval(LockScripts.RELEASE, 3, k.lock(), k.wake(), k.waiting(), owner, WAKE_TTL_MS, WAKE_IF_HELD)),
                System.nanoTime() + timeoutNanos, r -> false);
        if (released.failures() > 0 && log.isDebugEnabled()) {
            log.debug("Could not release a failed attempt on every node of {}: {}; it expires by its lease", description,
                    summary(released, "cleanup"));
        }
    }

    private static Busy busy(NodeRound.Replies<AcquireReply> replies) {
        Map<String, Integer> votes = new HashMap<>();
        AcquireReply best = null;
        int bestVotes = 0;
        for (int i = 0; i < replies.size(); i++) {
            if (replies.ok(i) && !replies.value(i).granted()) {
                AcquireReply r = replies.value(i);
                int v = votes.merge(String.valueOf(r.holder()), 1, Integer::sum);
                if (v > bestVotes || (v == bestVotes && best != null && r.pttl() < best.pttl())) {
                    best = r;
                    bestVotes = v;
                }
            }
        }
        if (best == null) {
            return null;
        }
        Duration retryAfter = best.pttl() > 0 ? Duration.ofMillis(best.pttl()) : null;
        return new Busy(best.holder(), best.token(), retryAfter);
    }

    @Override
    public RenewResult renew(Grant grant, Duration lease) {
        RedisKeys.NameKeys k = keys.of(grant.name());
        byte[] owner = utf8(grant.owner());
        byte[] ttlMs = bytes(storeTtlMillis(lease.toNanos()));
        long start = System.nanoTime();
        int n = nodes.size();
        NodeRound.Replies<Long> replies = NodeRound.run(nodes, executor,
                node -> asLong(node.eval(LockScripts.RENEW, 2, k.lock(), k.fence(), owner, ttlMs)),
                start + timeoutNanos, r -> r.count(v -> v == 1) >= quorum || r.count(v -> v != 1) > n - quorum);
        long validUntil = start + lease.toNanos();
        if (replies.count(v -> v == 1) >= quorum) {
            if (System.nanoTime() - validUntil < 0) {
                return RenewResult.renewed(validUntil);
            }
            throw unavailable("renew", grant.name(), "the quorum renewed after " + NodeRound.millis(System.nanoTime() - start)
                    + " ms, past the validity of the lease " + lease, null, null);
        }
        long gone = replies.count(v -> v != 1);
        if (gone > n - quorum) {
            boolean dataLost = replies.count(v -> v == -1) == gone;
            return dataLost ? RenewResult.notHeld(LockLoss.Reason.RENEWAL_FAILED) : RenewResult.notHeld();
        }
        throw unavailable("renew", grant.name(), summary(replies, quorum + " renewals needed"), replies);
    }

    @Override
    public boolean release(Grant grant) {
        RedisKeys.NameKeys k = keys.of(grant.name());
        byte[] owner = utf8(grant.owner());
        int n = nodes.size();
        NodeRound.Replies<Long> replies = NodeRound.run(nodes, executor,
                node -> asLong(node.eval(LockScripts.RELEASE, 3, k.lock(), k.wake(), k.waiting(), owner, WAKE_TTL_MS,
                        nodes.size() > 1 ? WAKE_ALWAYS : WAKE_IF_HELD)),
                System.nanoTime() + timeoutNanos, r -> false);
        if (replies.count(v -> v == 1) >= quorum) {
            return true;
        }
        if (replies.count(v -> v != 1) > n - quorum) {
            return false;
        }
        throw unavailable("release", grant.name(), summary(replies, quorum + " releases needed"), replies);
    }

    @Override
    public boolean awaitChange(String name, Duration timeout) throws InterruptedException {
        long nanos = timeout.toNanos();
        if (nanos <= 0) {
            return false;
        }
        long start = System.nanoTime();
        int index = waitNode;
        try {
            return nodes.get(index).awaitWake(keys.of(name).wake(), nanos);
        } catch (JedisException e) {
            // no notification from this node: poll with the core's backoff instead, and (Redlock) try the
            // next node next time, since a release pushes to every node's wake list
            if (e instanceof JedisConnectionException && nodes.size() > 1) {
                waitNode = (index + 1) % nodes.size();
            }
            if (log.isDebugEnabled()) {
                log.debug("Waiting for a release of '{}' on {} failed; polling instead: {}", name, description, describe(e));
            }
            long left = nanos - (System.nanoTime() - start);
            if (left > 0) {
                TimeUnit.NANOSECONDS.sleep(left);
            }
            return false;
        }
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        RedisKeys.NameKeys k = keys.of(name);
        NodeRound.Replies<InspectReply> replies = NodeRound.run(nodes, executor,
                n -> InspectReply.parse(n.eval(LockScripts.INSPECT, 2, k.lock(), k.fence())),
                System.nanoTime() + timeoutNanos, r -> false);
        Map<String, List<InspectReply>> byOwner = new HashMap<>();
        for (int i = 0; i < replies.size(); i++) {
            if (replies.ok(i) && replies.value(i).owner() != null) {
                byOwner.computeIfAbsent(replies.value(i).owner(), o -> new ArrayList<>()).add(replies.value(i));
            }
        }
        int most = 0;
        for (Map.Entry<String, List<InspectReply>> e : byOwner.entrySet()) {
            List<InspectReply> held = e.getValue();
            most = Math.max(most, held.size());
            if (held.size() >= quorum) {
                return Optional.of(info(name, e.getKey(), held));
            }
        }
        if (replies.failures() > 0 && most + replies.failures() >= quorum) {
            throw unavailable("inspect", name, summary(replies, "a quorum of answers needed"), replies);
        }
        return Optional.empty();
    }

    private LockInfo info(String name, String owner, List<InspectReply> held) {
        Map<Long, Integer> tokenVotes = new HashMap<>();
        long token = -1;
        int votes = 0;
        for (InspectReply r : held) {
            int v = tokenVotes.merge(r.token(), 1, Integer::sum);
            if (v > votes || (v == votes && r.token() > token)) {
                token = r.token();
                votes = v;
            }
        }
        List<Long> ttls = new ArrayList<>();
        held.forEach(r -> ttls.add(r.pttl()));
        ttls.sort(Collections.reverseOrder());
        long quorumTtl = ttls.get(quorum - 1); // the grant stands while a quorum still has it
        Optional<Instant> expires = quorumTtl >= 0 ? Optional.of(Instant.now().plusMillis(quorumTtl)) : Optional.empty();
        return new LockInfo(name, owner, token, Optional.empty(), expires);
    }

    @Override
    public List<LockInfo> list(String prefix) {
        String pattern = keys.lockPattern(prefix);
        NodeRound.Replies<List<byte[]>> scans = NodeRound.run(nodes, executor, n -> n.scan(pattern),
                System.nanoTime() + Math.max(timeoutNanos, TimeUnit.SECONDS.toNanos(30)), r -> false);
        if (scans.failures() >= quorum || (nodes.size() == 1 && scans.failures() > 0)) {
            throw unavailable("list", null, summary(scans, "answers needed"), scans);
        }
        TreeSet<String> names = new TreeSet<>();
        for (int i = 0; i < scans.size(); i++) {
            if (scans.ok(i)) {
                for (byte[] key : scans.value(i)) {
                    keys.nameOfLockKey(key).filter(n -> n.startsWith(prefix)).ifPresent(names::add);
                }
            }
        }
        List<LockInfo> out = new ArrayList<>();
        for (String name : names) {
            inspect(name).ifPresent(out::add);
        }
        return out;
    }

    @Override
    public boolean forceRelease(String name) {
        RedisKeys.NameKeys k = keys.of(name);
        NodeRound.Replies<Long> replies = NodeRound.run(nodes, executor,
                n -> asLong(n.eval(LockScripts.FORCE_RELEASE, 3, k.lock(), k.wake(), k.waiting(), WAKE_TTL_MS)),
                System.nanoTime() + timeoutNanos, r -> false);
        if (replies.count(v -> v == 1) > 0) {
            return true;
        }
        if (replies.failures() > 0) {
            throw unavailable("force-release", name, summary(replies, "every node needed"), replies);
        }
        return false;
    }

    @Override
    public void close() {
        if (ownedExecutor != null) {
            ownedExecutor.shutdown();
        }
        for (RedisNode node : nodes) {
            try {
                node.close();
            } catch (RuntimeException e) {
                log.warn("Closing the connection pool of {} ({}) failed: {}", description, node.address(), describe(e));
            }
        }
    }

    @Override
    public String toString() {
        return "RedisLockBackend[" + description + ", " + nodes.size() + (nodes.size() == 1 ? " node]" : " nodes, quorum " + quorum + "]");
    }

    // ------------------------------------------------------------------ helpers

    /**
     * The TTL written to the store for a lease: the smallest t with t - (clockDrift x t + 2 ms) >= lease,
     * rounded up to whole ms. Validity, counted from before the request with the Redlock formula
     * t - elapsed - drift(t), is then the full lease the caller asked for, never more.
     */
    long storeTtlMillis(long leaseNanos) {
        double ttl = (leaseNanos + FIXED_DRIFT_NANOS) / (1.0 - clockDrift);
        return Math.max(1, (long) Math.ceil(ttl / 1_000_000.0));
    }

    /**
     * The error of a failed operation. Wrong credentials and a port that does not speak Redis get the one-line
     * messages of StoreErrors whatever the operation; so does a store none of whose failed nodes could be
     * connected to (built from a URI, whose connect timeout is known). Anything else names the operation.
     */
    private BackendUnavailableException unavailable(String op, String name, String detail, NodeRound.Replies<?> replies) {
        for (int i = 0; i < replies.size(); i++) {
            if (replies.error(i) != null) {
                String node = replies.size() == nodes.size() ? nodes.get(i).address() : null;
                return unavailable(op, name, detail, replies.error(i), node);
            }
        }
        return unavailable(op, name, detail, null, null);
    }

    private BackendUnavailableException unavailable(String op, String name, String detail, Throwable cause,
                                                    String failedNode) {
        if (cause != null) {
            RedisFailures.Kind kind = RedisFailures.kind(cause);
            String reason = kind == RedisFailures.Kind.OTHER ? null : RedisFailures.reason(cause, kind);
            if (kind == RedisFailures.Kind.AUTHENTICATION) {
                return StoreErrors.authenticationFailed(target, nodes.size() == 1 ? scrub(reason) : detail, name, cause);
            }
            if (kind == RedisFailures.Kind.NOT_REDIS) {
                return StoreErrors.notThatServer(failedNode != null ? failedNode : target, "Redis", target,
                        nodes.size() == 1 ? scrub(reason) : detail, name, cause);
            }
            if (kind == RedisFailures.Kind.UNREACHABLE && connectTimeout != null) {
                return StoreErrors.cannotReach(target, connectTimeout, nodes.size() == 1 ? scrub(reason) : detail, name,
                        cause);
            }
        }
        String what = name == null ? "Could not " + op + " locks" : "Could not " + op + " lock '" + name + "'";
        return new BackendUnavailableException(what + " on " + description + ": " + detail, name, description, cause);
    }

    /** Third-party text without the URI's secrets (literal or percent-decoded) and with URIs redacted. */
    String scrub(String text) {
        if (text == null) {
            return null;
        }
        String out = Redaction.redact(text);
        for (String secret : secrets) {
            out = out.replace(secret, Redaction.MASK);
        }
        return out;
    }

    private String describe(Throwable error) {
        return scrub(describe(error, tls));
    }

    private String summary(NodeRound.Replies<?> replies, String need) {
        StringBuilder sb = new StringBuilder();
        int failed = replies.failures();
        sb.append(failed).append(" of ").append(replies.size()).append(replies.size() == 1 ? " node" : " nodes")
                .append(" failed (").append(need).append(')');
        String sep = ": ";
        for (int i = 0; i < replies.size(); i++) {
            if (!replies.ok(i)) {
                RuntimeException e = replies.error(i);
                sb.append(sep).append(nodes.size() == replies.size() ? nodes.get(i).address() : "node").append(' ')
                        .append(e == null ? "did not answer within " + NodeRound.millis(timeoutNanos) + " ms" : describe(e));
                sep = "; ";
            }
        }
        return sb.toString();
    }

    /**
     * The messages of an error and its causes ("Could not get a resource from the pool" alone says nothing),
     * redacted, with a hint when a TLS connection failed: a server that requires a client certificate may
     * refuse it after the client's side of a TLS 1.3 handshake is done, which the client sees as a broken
     * pipe or a closed connection rather than a handshake error.
     */
    static String describe(Throwable error, boolean tls) {
        StringBuilder sb = new StringBuilder();
        boolean tlsFailure = false;
        boolean connectionFailure = false;
        int depth = 0;
        for (Throwable t = error; t != null && depth < 8; t = t.getCause() == t ? null : t.getCause(), depth++) {
            tlsFailure |= t instanceof javax.net.ssl.SSLException;
            connectionFailure |= t instanceof JedisConnectionException;
            String m = t.getMessage();
            if (m != null && !m.isBlank() && sb.indexOf(m) < 0) {
                sb.append(sb.length() == 0 ? "" : ": ").append(m);
            }
        }
        String text = sb.length() == 0 ? error.getClass().getSimpleName() : sb.toString();
        if (tlsFailure || (tls && connectionFailure && !RedisNode.isTimeout(error))) {
            text += " (TLS: is the server's CA in tlsCa, does its certificate name the host, and does the server "
                    + "require a client certificate (tlsCert, tlsKey)?)";
        }
        return Redaction.redact(text);
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] bytes(long n) {
        return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
    }

    static long asLong(Object reply) {
        if (reply instanceof Long l) {
            return l;
        }
        throw new JedisException("unexpected reply from a lock script: " + reply);
    }

    /** One node's answer to the acquire script. */
    record AcquireReply(boolean granted, long token, long pttl, String holder) {
        static AcquireReply parse(Object reply) {
            List<?> r = (List<?>) reply;
            if (asLong(r.get(0)) == 1) {
                return new AcquireReply(true, asLong(r.get(1)), -1, null);
            }
            Object holder = r.size() > 3 ? r.get(3) : null;
            return new AcquireReply(false, asLong(r.get(1)), asLong(r.get(2)),
                    holder instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : null);
        }
    }

    /** One node's answer to the inspect script. */
    record InspectReply(String owner, long token, long pttl) {
        static InspectReply parse(Object reply) {
            List<?> r = (List<?>) reply;
            Object owner = r.get(0);
            return new InspectReply(owner instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : null,
                    asLong(r.get(1)), asLong(r.get(2)));
        }
    }
}

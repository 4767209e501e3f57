package io.latchkey.redis;

import io.latchkey.spi.BackendUri;
import io.latchkey.spi.DaemonThreads;
import io.latchkey.spi.Redaction;
import io.latchkey.spi.Settings;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Predicate;
import javax.net.ssl.SSLSocketFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.JedisPoolConfig;
import redis.clients.jedis.UnifiedJedis;

/*
 * The client side of a Redis backend: its nodes (one, or the N independent nodes of Redlock), their
 * connection pools, the executor Redlock's parallel rounds run on, and what messages call the store.
 *
 * Two ways in: from a URI (the Redis conventions read through BackendUri: a lone user-info is the password,
 * the database is the path, rediss:// is TLS, one host unless redlock://), where this class builds the pools,
 * checks every node within connectTimeout (RedisReachability) and closes them at the end; or on the
 * application's clients (JedisPool or UnifiedJedis), which it never closes.
 *
 * Concurrency design. Immutable after construction and thread-safe: every call borrows its own pooled
 * connection per node (RedisNode); a round with more than one node runs on the shared executor (NodeRound).
 */
final class RedisConnection implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RedisConnection.class);
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
    private final long timeoutNanos;
    private final Executor executor;
    private final ExecutorService ownedExecutor;
    private final RedisErrors errors;

    private RedisConnection(
            String description,
            String target,
            Duration connectTimeout,
            Set<String> secrets,
            boolean tls,
            List<RedisNode> nodes,
            Duration timeout,
            Executor executor) {
        this.description = description;
        this.target = target;
        this.connectTimeout = connectTimeout;
        this.secrets = Set.copyOf(secrets);
        this.tls = tls;
        this.nodes = List.copyOf(nodes);
        this.timeoutNanos = timeout.toNanos();
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
        this.errors = new RedisErrors(this); // reads only the final fields above
    }

    /** How the servers of a URI are arranged. */
    enum Topology {
        /** {@code redis://}, {@code rediss://}: one server. */
        SINGLE,
        /** {@code redlock://}: N independent servers, a quorum of them per grant. */
        REDLOCK,
        /** {@code redis-sentinel://}: the master a group of Sentinels names, followed across fail-overs. */
        SENTINEL,
        /** {@code redis-cluster://}: a Redis Cluster, each name's keys in one hash slot. */
        CLUSTER
    }

    /**
     * What a URI says, with the Redis conventions on top of BackendUri, and the literal secrets of the URI and
     * the settings (also a password given as a setting, decoded), which no message may show. For Sentinel, the
     * master's name (the path's first segment) and the Sentinels' own credentials (settings {@code sentinelUser},
     * {@code sentinelPassword}), taken out of the settings here so that RedisSettings never holds a secret.
     */
    record Target(
            BackendUri uri,
            Topology topology,
            int database,
            boolean tls,
            Set<String> secrets,
            Settings settings,
            String master,
            String sentinelUser,
            String sentinelPassword) {
        static Target parse(URI uri, Map<String, String> settings) {
            String given = uri == null || uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            BackendUri b = BackendUri.parse(uri, "Redis", settings, given.equals("redis-sentinel") ? 26379 : 6379);
            String scheme = b.scheme();
            Topology topology =
                    switch (scheme) {
                        case "redis", "rediss" -> Topology.SINGLE;
                        case "redlock" -> Topology.REDLOCK;
                        case "redis-sentinel" -> Topology.SENTINEL;
                        case "redis-cluster" -> Topology.CLUSTER;
                        default -> throw new IllegalArgumentException("unsupported scheme in '" + b
                                + "'; expected redis://, rediss://, redlock://, redis-sentinel:// or redis-cluster://");
                    };
            if (topology == Topology.SINGLE && b.hosts().size() != 1) {
                throw new IllegalArgumentException("a " + scheme + ":// URI names one server, '" + b + "' names "
                        + b.hosts().size() + "; use redlock://h1:p1,h2:p2,h3:p3 for a Redlock quorum, "
                        + "redis-sentinel://s1,s2,s3/master or redis-cluster://n1,n2,n3 for those topologies");
            }
            Set<String> secrets = new LinkedHashSet<>(Redaction.secretsOf(uri.toString(), settings));
            b.password().filter(pw -> pw.length() >= 3).ifPresent(secrets::add);
            Settings rest = b.settings();
            String master = null;
            String sentinelUser = null;
            String sentinelPassword = null;
            int database;
            if (topology == Topology.SENTINEL) {
                String[] path = b.path().split("/", -1);
                master = path[0];
                if (master.isBlank() || path.length > 2) {
                    throw new IllegalArgumentException("'" + b + "' must name the master the Sentinels monitor, "
                            + "and optionally a database: redis-sentinel://s1:26379,s2:26379,s3:26379/mymaster[/0]");
                }
                database = path.length == 2 ? database(b, path[1]) : 0;
                sentinelUser = rest.text("sentinelUser").orElse(null);
                sentinelPassword = rest.text("sentinelPassword").orElse(null);
                rest = rest.without("sentinelUser", "sentinelPassword");
            } else if (topology == Topology.CLUSTER) {
                if (!b.path().isEmpty()) {
                    throw new IllegalArgumentException("'" + b + "' has a path, but a Redis Cluster has only "
                            + "database 0; write redis-cluster://n1:p1,n2:p2,n3:p3");
                }
                database = 0;
            } else {
                database = b.path().isEmpty() ? 0 : database(b, b.path());
            }
            if (topology != Topology.SENTINEL && (rest.has("sentinelUser") || rest.has("sentinelPassword"))) {
                throw new IllegalArgumentException(
                        "sentinelUser and sentinelPassword apply to redis-sentinel:// only, not to '" + b + "'");
            }
            return new Target(
                    b,
                    topology,
                    database,
                    scheme.equals("rediss"),
                    Set.copyOf(secrets),
                    rest,
                    master,
                    sentinelUser,
                    sentinelPassword);
        }

        /**
         * As {@link BackendUri#target()}, with the database only when it is not 0 (as messages always had it);
         * a Sentinel target keeps the master's name.
         */
        String target() {
            if (database != 0 || topology == Topology.SENTINEL) {
                return uri.target();
            }
            StringBuilder sb = new StringBuilder(uri.scheme()).append("://");
            uri.hosts()
                    .forEach(h -> sb.append(sb.charAt(sb.length() - 1) == '/' ? "" : ",")
                            .append(h));
            return sb.toString();
        }

        /** The redacted URI: a record's own toString would show the Sentinels' password. */
        @Override
        public String toString() {
            return uri.toString();
        }

        private static int database(BackendUri b, String text) {
            try {
                int n = Integer.parseInt(text);
                if (n >= 0) {
                    return n;
                }
            } catch (NumberFormatException e) {
                // the message below
            }
            throw new IllegalArgumentException(
                    "the database of '" + b + "' must be a database number such as /0, was '" + text + "'");
        }
    }

    /** Builds the pools for a URI, and checks every node unless {@code check} is false (unit tests). */
    static RedisConnection open(Target p, RedisSettings s, boolean check) {
        BackendUri b = p.uri();
        boolean redlock = b.scheme().equals("redlock");
        if (redlock && b.hosts().size() < 3) {
            throw new IllegalArgumentException("Redlock needs at least 3 independent nodes, '" + b + "' names "
                    + b.hosts().size() + "; use redis://host:port for a single node");
        }
        if (b.scheme().equals("redis") && s.anyTlsSetting()) {
            throw new IllegalArgumentException("'" + b + "' is plain text (redis://) but TLS settings were given "
                    + "(tls, tlsCa, tlsCert, tlsKey); use rediss://host:port for TLS to one node");
        }
        if (p.tls() && !s.tls() && s.anyTlsSetting()) {
            throw new IllegalArgumentException("tls=false contradicts the rediss:// scheme of '" + b + "'");
        }
        boolean tls = p.tls() || s.tls();
        // one factory for every node and connection; reads and checks the PEM files now, not at the first handshake
        SSLSocketFactory tlsFactory = tls
                ? RedisTls.socketFactory(
                        s.tlsCa().orElse(null),
                        s.tlsCert().orElse(null),
                        s.tlsKey().orElse(null))
                : null;
        String description = tls && p.topology() != Topology.SINGLE ? b + " (TLS)" : b.toString();
        Duration timeout = s.timeoutOr(redlock ? RedisSettings.REDLOCK_TIMEOUT : RedisSettings.SINGLE_NODE_TIMEOUT);
        Duration connectTimeout = s.connectTimeoutOrDefault();
        IntFunction<DefaultJedisClientConfig> config = socketTimeoutMillis -> {
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
            b.user().ifPresent(cc::user);
            b.password().ifPresent(cc::password);
            // a client used through its command API (Sentinel, Cluster) runs BLPOP under this socket timeout;
            // RedisNode waits in slices of RedisNode.WAIT_SLICE_MILLIS, so a frozen server costs slice + timeout
            cc.blockingSocketTimeoutMillis(socketTimeoutMillis + RedisNode.WAIT_SLICE_MILLIS);
            return cc.build();
        };
        if (p.topology() == Topology.SENTINEL || p.topology() == Topology.CLUSTER) {
            int timeoutMillis = Math.toIntExact(timeout.toMillis());
            RedisNode node = RedisTopologies.open(
                    p, s, config.apply(timeoutMillis), tlsFactory, timeout, connectTimeout, tls, description);
            RedisConnection connection = new RedisConnection(
                    description, p.target(), connectTimeout, p.secrets(), tls, List.of(node), timeout, null);
            if (check) {
                RedisTopologies.check(connection);
            }
            return connection;
        }
        List<RedisNode> nodes = new ArrayList<>();
        try {
            for (BackendUri.HostPort hp : b.hosts()) {
                JedisPoolConfig pc = new JedisPoolConfig();
                pc.setMaxTotal(s.poolSize());
                pc.setMaxIdle(s.poolSize());
                pc.setMinIdle(0);
                pc.setMaxWait(timeout);
                pc.setJmxEnabled(false);
                JedisPool pool = new JedisPool(
                        pc, new HostAndPort(hp.host(), hp.port()), config.apply(Math.toIntExact(timeout.toMillis())));
                nodes.add(RedisNode.ofPool(hp.toString(), pool, true, Math.toIntExact(timeout.toMillis())));
            }
        } catch (RuntimeException e) {
            nodes.forEach(RedisNode::close);
            throw e;
        }
        RedisConnection connection =
                new RedisConnection(description, p.target(), connectTimeout, p.secrets(), tls, nodes, timeout, null);
        if (!check) {
            return connection;
        }
        try {
            // the probe's socket timeout is the connect timeout, so that a slow but live node passes
            DefaultJedisClientConfig probeConfig = config.apply(Math.toIntExact(connectTimeout.toMillis()));
            RedisReachability.check(
                    connection, b.hosts(), hp -> new Jedis(new HostAndPort(hp.host(), hp.port()), probeConfig));
        } catch (RuntimeException | Error e) {
            connection.close();
            throw e;
        }
        return connection;
    }

    /** On the application's clients (each a JedisPool or a UnifiedJedis), which are never closed here. */
    static RedisConnection ofClients(
            List<Object> clients, boolean redlock, Duration timeout, String description, Executor executor) {
        List<RedisNode> nodes = new ArrayList<>();
        int timeoutMillis = Math.toIntExact(timeout.toMillis());
        for (int i = 0; i < clients.size(); i++) {
            String address = redlock ? "node " + (i + 1) : "redis";
            nodes.add(
                    clients.get(i) instanceof JedisPool pool
                            ? RedisNode.ofPool(address, pool, false, timeoutMillis)
                            : RedisNode.ofClient(address, (UnifiedJedis) clients.get(i), timeoutMillis));
        }
        return new RedisConnection(description, description, null, Set.of(), false, nodes, timeout, executor);
    }

    private static ExecutorService newExecutor() {
        return new ThreadPoolExecutor(
                0,
                Integer.MAX_VALUE,
                60,
                TimeUnit.SECONDS,
                new SynchronousQueue<>(),
                DaemonThreads.factory("latchkey-redlock-" + EXECUTORS.incrementAndGet()));
    }

    /** One round: {@code call} on each of {@code some} in parallel until all answered or the deadline passed. */
    <T> NodeRound.Replies<T> round(List<RedisNode> some, Function<RedisNode, T> call, long deadlineNanos) {
        return NodeRound.run(some, executor, call, deadlineNanos, r -> false);
    }

    /** As above, returning as soon as the replies are {@code enough} (see NodeRound). */
    <T> NodeRound.Replies<T> round(
            List<RedisNode> some,
            Function<RedisNode, T> call,
            long deadlineNanos,
            Predicate<NodeRound.Replies<T>> enough) {
        return NodeRound.run(some, executor, call, deadlineNanos, enough);
    }

    List<RedisNode> nodes() {
        return nodes;
    }

    /** Grants needed: N/2+1 (1 for a single node). */
    int quorum() {
        return nodes.size() / 2 + 1;
    }

    boolean redlock() {
        return nodes.size() > 1;
    }

    long timeoutNanos() {
        return timeoutNanos;
    }

    String description() {
        return description;
    }

    String target() {
        return target;
    }

    /** Null for application clients, whose connect timeout is their own. */
    Duration connectTimeout() {
        return connectTimeout;
    }

    Set<String> secrets() {
        return secrets;
    }

    boolean tls() {
        return tls;
    }

    /** The one-line errors of this store. */
    /**
     * One script on the single node (semaphores and read-write locks, which Redlock does not offer); a failure is
     * the store being unavailable for {@code op} on {@code name}.
     */
    Object evalOnSingleNode(String op, String name, LuaScript script, int keyCount, byte[]... params) {
        RedisNode node = nodes().get(0);
        try {
            return node.eval(script, keyCount, params);
        } catch (redis.clients.jedis.exceptions.JedisException e) {
            RedisErrors errors = errors();
            throw errors.unavailable(op, name, errors.describe(e), e, node.address());
        }
    }

    RedisErrors errors() {
        return errors;
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
                log.warn(
                        "Closing the connection pool of {} ({}) failed: {}",
                        description,
                        node.address(),
                        errors.describe(e));
            }
        }
    }
}

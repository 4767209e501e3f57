package io.latchkey.redis;

import io.latchkey.spi.PemTls;
import io.latchkey.spi.BackendUri;
import io.latchkey.spi.DaemonThreads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
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
 * Two ways in: from a URI (read by RedisTarget), where this class builds the pools, checks every node within
 * connectTimeout (RedisReachability) and closes them at the end (a Sentinel or Cluster URI gets its one client
 * from RedisTopologies); or on the application's clients (JedisPool or UnifiedJedis), which it never closes.
 *
 * Concurrency design. Immutable after construction and thread-safe: every call borrows its own pooled
 * connection per node (RedisNode). A round with more than one node runs on the shared executor (NodeRound), except
 * the rounds of acquire and release, which wait for every node anyway: those are pipelined on the caller's thread
 * when every node lends pooled connections (PipelinedRound).
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

    /** Builds the pools for a URI, and checks every node unless {@code check} is false (unit tests). */
    static RedisConnection open(RedisTarget p, RedisSettings s, boolean check) {
        BackendUri b = p.uri();
        boolean redlock = b.scheme().equals("redlock");
        if (redlock && b.hosts().size() < 3) {
            throw new IllegalArgumentException("Redlock needs at least 3 independent nodes, '" + b + "' names "
                    + b.hosts().size() + "; use redis://host:port for a single node");
        }
        if (!s.addressMap().isEmpty()
                && p.topology() != RedisTarget.Topology.SENTINEL
                && p.topology() != RedisTarget.Topology.CLUSTER) {
            throw new IllegalArgumentException("addressMap applies to redis-sentinel:// and redis-cluster://, whose"
                    + " clients learn the nodes' addresses from the store; '" + b + "' names its nodes itself");
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
                ? PemTls.context(
                        s.tlsCa().orElse(null),
                        s.tlsCert().orElse(null),
                        s.tlsKey().orElse(null)).getSocketFactory()
                : null;
        String description = tls && p.topology() != RedisTarget.Topology.SINGLE ? b + " (TLS)" : b.toString();
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
                cc.sslSocketFactory(tlsFactory).sslParameters(PemTls.hostVerifyingParameters());
            }
            b.user().ifPresent(cc::user);
            b.password().ifPresent(cc::password);
            // a client used through its command API (Sentinel, Cluster) runs BLPOP under this socket timeout;
            // RedisNode waits in slices of RedisNode.WAIT_SLICE_MILLIS, so a frozen server costs slice + timeout
            cc.blockingSocketTimeoutMillis(socketTimeoutMillis + RedisNode.WAIT_SLICE_MILLIS);
            if (!s.addressMap().isEmpty()) {
                cc.hostAndPortMapper(RedisAddressMap.mapper(s.addressMap()));
            }
            return cc.build();
        };
        if (p.topology() == RedisTarget.Topology.SENTINEL || p.topology() == RedisTarget.Topology.CLUSTER) {
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
                JedisPoolConfig pc = poolConfig(new JedisPoolConfig(), s, timeout);
                JedisPool pool = new JedisPool(
                        pc, new HostAndPort(hp.host(), hp.port()), config.apply(Math.toIntExact(timeout.toMillis())));
                nodes.add(RedisNodes.ofPool(
                        hp.toString(), pool, true, s.poolSize(), Math.toIntExact(timeout.toMillis())));
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

    /**
     * The one pool shape of the connections the backend builds: at most {@code poolSize} connections, kept once
     * opened and none opened ahead, a borrow that waits at most the request timeout, no JMX.
     */
    static <T extends GenericObjectPoolConfig<?>> T poolConfig(T pc, RedisSettings s, Duration timeout) {
        pc.setMaxTotal(s.poolSize());
        pc.setMaxIdle(s.poolSize());
        pc.setMinIdle(0);
        pc.setMaxWait(timeout);
        pc.setJmxEnabled(false);
        return pc;
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
                            ? RedisNodes.ofPool(address, pool, false, 0, timeoutMillis)
                            : RedisNodes.ofClient(address, (UnifiedJedis) clients.get(i), timeoutMillis));
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

    /**
     * One round of a script call that waits for every node: pipelined on the caller's thread when every node lends
     * pooled connections (PipelinedRound), else on the executor (NodeRound).
     */
    <T> NodeRound.Replies<T> round(List<RedisNode> some, ScriptCall<T> call, long deadlineNanos) {
        NodeRound.Replies<T> replies = PipelinedRound.applies(some)
                ? PipelinedRound.run(some, call, deadlineNanos, executor)
                : NodeRound.run(some, executor, call, deadlineNanos, r -> false);
        for (int i = 0; i < replies.size(); i++) {
            if (replies.ok(i)) {
                some.get(i).answered(); // a node that failed answers again: its rounds may pipeline again
            } else {
                some.get(i).failed(); // its next rounds go through the executor (see RedisNode.pipelines)
            }
        }
        return replies;
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

package io.latchkey.redis;

import io.latchkey.spi.PemTls;
import io.latchkey.BackendUnavailableException;
import io.latchkey.spi.BackendUri;
import io.latchkey.spi.DaemonThreads;
import io.latchkey.spi.StoreErrors;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;
import javax.net.ssl.SSLSocketFactory;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;

/*
 * The clients of the two replicated topologies, built from a URI and closed with the backend:
 *
 * - redis-sentinel://s1,s2,s3/master: Jedis's RedisSentinelClient asks the Sentinels which server is the
 *   master, and re-points its pool when they announce a fail-over (+switch-master). Every script then runs on
 *   the master of the moment, exactly as on one server (the same scripts, one round trip each).
 * - redis-cluster://n1,n2,n3: RedisClusterClient, which reads the slot map from any seed and sends each script
 *   to the master of its first key's slot, following MOVED/ASK. Every script touches the keys of one name only,
 *   and RedisKeys puts all of a name's keys in one hash tag, so a script never spans slots.
 *
 * Both are used through their command API (RedisNode.ofOwnedClient): a waiter's BLPOP runs under the client's
 * blockingSocketTimeoutMillis (wait slice + timeout, set by RedisConnection), so a frozen master costs a bounded
 * wait. Replication to the replicas is asynchronous on both: a fail-over can lose the last grants, which the
 * README and docs/guarantees pages state (the holder's renewal then finds no grant and reports the loss).
 *
 * Connect check: building the client already talks to the store (the Sentinels, or a seed for the slot map); a
 * PING through it then proves that the master, or the cluster, answers with these credentials. Either failure
 * is one line naming the URI's target, scrubbed of its secrets. Stateless.
 */
final class RedisTopologies {
    private static final long[] SENTINEL_LATE_CLOSES_MILLIS = {2000, 8000};

    private RedisTopologies() {}

    /** The client of a Sentinel or Cluster URI, as the backend's one node; a failure to build it is one line. */
    static RedisNode open(
            RedisTarget p,
            RedisSettings s,
            DefaultJedisClientConfig dataConfig,
            SSLSocketFactory tlsFactory,
            Duration timeout,
            Duration connectTimeout,
            boolean tls,
            String description) {
        ConnectionPoolConfig pool = RedisConnection.poolConfig(new ConnectionPoolConfig(), s, timeout);
        Set<HostAndPort> hosts = new LinkedHashSet<>();
        for (BackendUri.HostPort hp : p.uri().hosts()) {
            hosts.add(new HostAndPort(hp.host(), hp.port()));
        }
        UnifiedJedis client;
        try {
            client = switch (p.topology()) {
                case SENTINEL -> RedisSentinelClient.builder()
                        .masterName(p.master())
                        .sentinels(hosts)
                        .clientConfig(dataConfig)
                        .sentinelClientConfig(sentinelConfig(p, tls, tlsFactory, timeout, connectTimeout))
                        .poolConfig(pool)
                        .build();
                case CLUSTER -> RedisClusterClient.builder()
                        .nodes(hosts)
                        .clientConfig(dataConfig)
                        .poolConfig(pool)
                        // a request may follow MOVED/ASK and retry during a slot move, within the timeout
                        .maxTotalRetriesDuration(timeout)
                        .build();
                default -> throw new IllegalStateException("not a replicated topology: " + p.topology());
            };
        } catch (RuntimeException e) {
            if (p.topology() == RedisTarget.Topology.SENTINEL) {
                // Jedis reports any Sentinel failure as "All sentinels down"; ask one why (a refused password?)
                throwIfSentinelRefused(p, hosts, sentinelConfig(p, tls, tlsFactory, timeout, connectTimeout), e);
            }
            throw unavailable(p, connectTimeout, tls, e);
        }
        Runnable closer = p.topology() == RedisTarget.Topology.SENTINEL ? () -> closeSentinel(client) : client::close;
        return RedisNodes.ofOwnedClient(description, client, closer, Math.toIntExact(timeout.toMillis()));
    }

    /**
     * Closes a Sentinel client, and again 2 s and 10 s later. Jedis 8's Sentinel listener threads set their
     * running flag when they start, not when they are created: a client closed before a listener thread got
     * scheduled leaves that thread running for good, logging a WARN every 5 s once its Sentinel is gone (seen on
     * the loaded CI machine, where the TCK opens and closes clients quickly). The later closes, after the threads
     * have started, stop them; closing is idempotent (flags, socket closes, the pool's close).
     */
    private static void closeSentinel(UnifiedJedis client) {
        client.close();
        DaemonThreads.start("latchkey-sentinel-close", () -> {
            for (long delay : SENTINEL_LATE_CLOSES_MILLIS) { // a second chance for a machine that was very busy
                try {
                    Thread.sleep(delay);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt(); // close now, then
                }
                client.close();
            }
        });
    }

    /** A PING through the backend's client; on failure the connection is closed and the error is one line. */
    static void check(RedisConnection c) {
        try {
            c.nodes().get(0).ping();
        } catch (RuntimeException e) {
            c.close();
            throw unavailable(c.target(), c.secrets(), c.connectTimeout(), c.tls(), e);
        }
    }

    /** The Sentinels' own connections: their credentials (settings), no database, the data nodes' TLS. */
    private static DefaultJedisClientConfig sentinelConfig(
            RedisTarget p, boolean tls, SSLSocketFactory tlsFactory, Duration timeout, Duration connect) {
        DefaultJedisClientConfig.Builder cc = DefaultJedisClientConfig.builder()
                .autoNegotiateProtocol(false)
                .connectionTimeoutMillis(Math.toIntExact(connect.toMillis()))
                .socketTimeoutMillis(Math.toIntExact(timeout.toMillis()))
                .ssl(tls);
        if (tls) {
            cc.sslSocketFactory(tlsFactory).sslParameters(PemTls.hostVerifyingParameters());
        }
        if (p.sentinelUser() != null) {
            cc.user(p.sentinelUser());
        }
        if (p.sentinelPassword() != null) {
            cc.password(p.sentinelPassword());
        }
        return cc.build();
    }

    /** Throws "authentication failed" when a Sentinel refuses the Sentinel credentials; else returns. */
    private static void throwIfSentinelRefused(
            RedisTarget p, Set<HostAndPort> sentinels, DefaultJedisClientConfig config, RuntimeException e) {
        for (HostAndPort sentinel : sentinels) {
            try (Jedis probe = new Jedis(sentinel, config)) {
                probe.ping();
                return; // this one answers: the failure was something else
            } catch (RuntimeException refused) {
                if (RedisFailures.kind(refused) == RedisFailures.Kind.AUTHENTICATION) {
                    String reason = "the Sentinel at " + sentinel + " refused the Sentinel credentials (settings "
                            + "sentinelUser, sentinelPassword): "
                            + RedisFailures.reason(refused, RedisFailures.Kind.AUTHENTICATION);
                    BackendUnavailableException failure = StoreErrors.authenticationFailed(
                            p.target(), RedisErrors.scrub(reason, p.secrets()), null, refused);
                    failure.addSuppressed(e);
                    throw failure;
                }
            }
        }
    }

    private static BackendUnavailableException unavailable(
            RedisTarget p, Duration connectTimeout, boolean tls, RuntimeException e) {
        return unavailable(p.target(), p.secrets(), connectTimeout, tls, e);
    }

    private static BackendUnavailableException unavailable(
            String target, Set<String> secrets, Duration connectTimeout, boolean tls, RuntimeException e) {
        String privilege = RedisErrors.missingPrivilege(e);
        if (privilege != null) { // NOPERM is a JedisAccessControlException too, but the credentials were right
            String refusal = RedisErrors.scrub(RedisFailures.reason(e, RedisFailures.Kind.AUTHENTICATION), secrets);
            return new BackendUnavailableException(
                    "Could not connect to " + target + ": " + RedisErrors.withPrivilege(refusal, privilege),
                    null,
                    target,
                    e);
        }
        RedisFailures.Kind kind = RedisFailures.kind(e);
        // the server's own words where the kind is known (the cluster client keeps them as suppressed exceptions)
        String known = kind == RedisFailures.Kind.OTHER ? null : RedisFailures.reason(e, kind);
        String reason = RedisErrors.scrub(known != null ? known : RedisErrors.describe(e, tls), secrets);
        return kind == RedisFailures.Kind.AUTHENTICATION
                ? StoreErrors.authenticationFailed(target, reason, null, e)
                : StoreErrors.cannotReach(target, connectTimeout, reason, null, e);
    }
}

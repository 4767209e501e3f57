package io.latchkey.redis;

import io.latchkey.BackendUnavailableException;
import io.latchkey.spi.BackendUri;
import io.latchkey.spi.DaemonThreads;
import io.latchkey.spi.StoreErrors;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Function;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Jedis;

/*
 * The check a backend built from a URI makes before it is handed out: every node gets a fresh connection
 * (TCP connect, TLS handshake, AUTH, SELECT, CLIENT SETNAME) and a PING, all nodes in parallel, and the
 * caller waits at most connectTimeout in total. So Latchkey.connect fails at once, with one line, when the
 * store cannot be used at all (closed port, silent port, wrong password, another service on the port), rather
 * than at the first lock.
 *
 * The probe connections are the probe's own (socket timeout = connectTimeout, so that a slow but live node
 * passes) and are closed afterwards; a probe still running when the wait ends is left to its own timeouts on
 * its daemon thread, and its connection is closed when it finishes. A node that answered then gets one
 * connection opened in its pool ({@code warm}), still within the wait, so that the first lock operation does
 * not pay a cold connection (which on Redlock must fit in the 200 ms per-node timeout). One thread per node
 * and per backend creation, never per lock operation.
 */
final class RedisReachability {
    private static final Logger log = LoggerFactory.getLogger(RedisReachability.class);

    /** What one node did: null = answered PING. */
    record Outcome(BackendUri.HostPort node, boolean answered, Throwable failure) {
        boolean ok() {
            return answered && failure == null;
        }
    }

    private RedisReachability() {}

    /** Probes every node; returns one outcome per node, in order, within about {@code connectTimeout}. */
    static List<Outcome> probe(
            List<BackendUri.HostPort> nodes,
            Function<BackendUri.HostPort, Jedis> open,
            IntConsumer warm,
            Duration connectTimeout)
            throws InterruptedException {
        int n = nodes.size();
        CountDownLatch done = new CountDownLatch(n);
        AtomicReferenceArray<Throwable> failures = new AtomicReferenceArray<>(n);
        AtomicReferenceArray<Boolean> answered = new AtomicReferenceArray<>(n);
        for (int i = 0; i < n; i++) {
            int index = i;
            BackendUri.HostPort node = nodes.get(i);
            DaemonThreads.start("latchkey-redis-connect-check-" + node, () -> {
                boolean ok = false;
                try (Jedis jedis = open.apply(node)) {
                    jedis.ping();
                    ok = true;
                } catch (RuntimeException | Error e) {
                    failures.set(index, e);
                } finally {
                    answered.set(index, Boolean.TRUE);
                }
                try {
                    if (ok) {
                        warm.accept(index);
                    }
                } catch (RuntimeException e) {
                    // only a head start: the first operation opens the connection instead
                } finally {
                    done.countDown();
                }
            });
        }
        done.await(connectTimeout.toNanos(), TimeUnit.NANOSECONDS);
        Outcome[] out = new Outcome[n];
        for (int i = 0; i < n; i++) {
            // the flag first: a probe sets its failure before its flag, so a set flag means the failure is visible
            boolean a = Boolean.TRUE.equals(answered.get(i));
            out[i] = new Outcome(nodes.get(i), a, a ? failures.get(i) : null);
        }
        return List.of(out);
    }

    /**
     * Checks every node of a connection built from a URI; returns when a quorum answered (with a warning naming
     * the nodes that did not), else throws the one-line error that fits what the nodes did.
     */
    static void check(RedisConnection c, List<BackendUri.HostPort> hosts, Function<BackendUri.HostPort, Jedis> open) {
        List<Outcome> outcomes;
        try {
            outcomes = probe(hosts, open, i -> c.nodes().get(i).warm(), c.connectTimeout());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendUnavailableException(
                    "interrupted while connecting to " + c.description(), null, c.description(), e);
        }
        List<Outcome> failed = outcomes.stream().filter(o -> !o.ok()).toList();
        int quorum = c.quorum();
        String target = c.target();
        if (outcomes.size() - failed.size() >= quorum) {
            if (!failed.isEmpty()) {
                log.warn(
                        "{} of {} nodes of {} cannot be used now ({}); locking goes on while a quorum of {} answers",
                        failed.size(),
                        outcomes.size(),
                        target,
                        summary(c, failed),
                        quorum);
            }
            return;
        }
        Throwable cause = failed.stream()
                .map(Outcome::failure)
                .filter(Objects::nonNull)
                .findFirst()
                .orElse(null);
        int n = c.nodes().size();
        String reasons =
                (n == 1 ? "" : failed.size() + " of " + n + " nodes failed (a quorum of " + quorum + " must answer): ")
                        + summary(c, failed);
        for (RedisFailures.Kind kind : List.of(RedisFailures.Kind.AUTHENTICATION, RedisFailures.Kind.NOT_REDIS)) {
            for (Outcome o : failed) {
                if (o.failure() != null && kind(c, o.failure()) == kind) {
                    throw kind == RedisFailures.Kind.AUTHENTICATION
                            ? StoreErrors.authenticationFailed(target, reasons, null, o.failure())
                            : StoreErrors.notThatServer(
                                    o.node().toString(), "Redis", target, reasons, null, o.failure());
                }
            }
        }
        throw StoreErrors.cannotReach(target, c.connectTimeout(), reasons, null, cause);
    }

    /** As {@link RedisFailures#kind}, where a fresh plain-text connection closed without a reply is not Redis. */
    private static RedisFailures.Kind kind(RedisConnection c, Throwable failure) {
        RedisFailures.Kind kind = RedisFailures.kind(failure);
        if (kind == RedisFailures.Kind.OTHER && !c.tls() && RedisFailures.closedWithoutReply(failure)) {
            return RedisFailures.Kind.NOT_REDIS;
        }
        return kind;
    }

    private static String summary(RedisConnection c, List<Outcome> failed) {
        StringBuilder sb = new StringBuilder();
        for (Outcome o : failed) {
            sb.append(sb.length() == 0 ? "" : "; ").append(c.nodes().size() == 1 ? "" : o.node() + ": ");
            // the probe's own read timeout (= connectTimeout) may fire just before the wait ends: the same silence
            if (!o.answered()
                    || (RedisNode.isTimeout(o.failure()) && kind(c, o.failure()) != RedisFailures.Kind.UNREACHABLE)) {
                // a TLS client on a plain-text port waits for a ServerHello that never comes
                sb.append(c.tls() ? "no answer (a plain-text port? then use redis://)" : "no answer");
                continue;
            }
            RedisFailures.Kind kind = kind(c, o.failure());
            String reason = kind == RedisFailures.Kind.OTHER ? null : RedisFailures.reason(o.failure(), kind);
            if (kind == RedisFailures.Kind.NOT_REDIS && reason == null) {
                reason = "the connection was closed without a reply (a TLS port? then use rediss://)";
            }
            sb.append(reason != null ? c.errors().scrub(reason) : c.errors().describe(o.failure()));
        }
        return sb.toString();
    }
}

package io.latchkey.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Function;
import java.util.function.IntConsumer;
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
    /** What one node did: null = answered PING. */
    record Outcome(RedisUris.HostPort node, boolean answered, Throwable failure) {
        boolean ok() {
            return answered && failure == null;
        }
    }

    private RedisReachability() {
    }

    /** Probes every node; returns one outcome per node, in order, within about {@code connectTimeout}. */
    static List<Outcome> probe(List<RedisUris.HostPort> nodes, Function<RedisUris.HostPort, Jedis> open,
                               IntConsumer warm, Duration connectTimeout) throws InterruptedException {
        int n = nodes.size();
        CountDownLatch done = new CountDownLatch(n);
        AtomicReferenceArray<Throwable> failures = new AtomicReferenceArray<>(n);
        AtomicReferenceArray<Boolean> answered = new AtomicReferenceArray<>(n);
        for (int i = 0; i < n; i++) {
            int index = i;
            RedisUris.HostPort node = nodes.get(i);
            Thread t = new Thread(() -> {
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
            }, "latchkey-redis-connect-check-" + node);
            t.setDaemon(true);
            t.start();
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
}

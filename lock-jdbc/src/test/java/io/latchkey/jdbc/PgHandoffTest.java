package io.latchkey.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockOptions;
import io.latchkey.RetryStrategy;
import io.latchkey.jdbc.fixtures.PostgresFixture;
import io.latchkey.servers.RunningServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * PostgreSQL lease mode, waiters in SEPARATE clients (each its own backend and LISTEN connection; the core
 * already queues the waiters of one client): one release must wake one waiter, not every client, and waiters
 * must not poll between notifications. Counted on the clients' connections: acquire statements per grant.
 */
class PgHandoffTest {
    private static RunningServer server;
    private static HikariDataSource pool;

    @BeforeAll
    static void start() {
        server = PostgresFixture.start();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(PostgresFixture.url(server));
        config.setMaximumPoolSize(60);
        config.setMinimumIdle(1);
        pool = new HikariDataSource(config);
    }

    @AfterAll
    static void stop() {
        if (pool != null) {
            pool.close();
        }
        if (server != null) {
            server.close();
        }
    }

    /**
     * N clients wait for a lock another client holds, then take it one after the other (each holds it 5 ms
     * and leaves). Every client's first attempt finds the lock busy; after that, each attempt is a wake-up.
     * One wake-up per release: 2 attempts per grant. Waking every waiting client at each release: the k-th
     * release wakes N - k + 1 clients, (N + 3) / 2 per grant on average (4 with 5 clients, 11.5 with 20).
     */
    @ParameterizedTest(name = "{0} waiting clients")
    @ValueSource(ints = {5, 20})
    void oneReleaseWakesOneWaitingClient(int clients) throws Exception {
        CountingDataSource counting = new CountingDataSource(pool);
        String name = "handoff-" + clients;
        List<LockClient> all = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(clients);
        try (LockClient holder = client(pool)) {
            for (int i = 0; i < clients; i++) {
                all.add(client(counting));
            }
            // the core's own polling far slower than the test: every wake-up seen here comes from the backend
            LockOptions options = LockOptions.builder()
                    .lease(Duration.ofSeconds(30))
                    .retry(RetryStrategy.fixed(Duration.ofSeconds(30)))
                    .build();
            int rounds = 3;
            long attempts = 0;
            AtomicInteger inside = new AtomicInteger();
            AtomicInteger overlaps = new AtomicInteger();
            AtomicInteger grants = new AtomicInteger();
            for (int round = 0; round < rounds; round++) {
                LockHandle held = holder.lock(name).acquire(Duration.ofSeconds(30));
                counting.start();
                List<Future<?>> done = new ArrayList<>();
                for (LockClient c : all) {
                    done.add(threads.submit(() -> {
                        try (LockHandle h = c.lock(name, options).acquire(Duration.ofSeconds(120))) {
                            if (inside.incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                            grants.incrementAndGet();
                            TimeUnit.MILLISECONDS.sleep(5); // the work under the lock
                            inside.decrementAndGet();
                        }
                        return null;
                    }));
                }
                // every client has made its first (busy) attempt and waits
                org.awaitility.Awaitility.await()
                        .atMost(Duration.ofSeconds(60))
                        .until(() -> acquires(counting.sent) >= clients);
                held.release();
                for (Future<?> f : done) {
                    f.get(300, TimeUnit.SECONDS);
                }
                attempts += acquires(counting.stop());
            }
            double perGrant = (double) attempts / grants.get();
            System.out.printf(
                    "%d clients: %d grants, %d acquire statements, %.2f per grant%n",
                    clients, grants.get(), attempts, perGrant);
            assertThat(overlaps.get()).as("two holders at once").isZero();
            assertThat(grants.get()).isEqualTo(clients * rounds);
            assertThat(perGrant)
                    .as(
                            "acquire statements per grant with %d waiting clients (%d in all; 2 = one wake-up"
                                    + " per release): a release woke more than one waiter, or waiters polled",
                            clients, attempts)
                    .isLessThanOrEqualTo(2.5);
        } finally {
            all.forEach(LockClient::close);
            threads.shutdownNow();
        }
    }

    private static long acquires(List<String> sent) {
        return sent.stream().filter(s -> s.contains("ON CONFLICT")).count();
    }

    @Test
    void aWaiterThatGivesUpPassesTheWakeUpOn() throws Exception {
        // a holder, a waiter that times out while queued, and a second waiter that must still be woken at once
        CountingDataSource counting = new CountingDataSource(pool);
        try (LockClient a = client(counting);
                LockClient b = client(counting);
                LockClient c = client(counting)) {
            String name = "give-up";
            LockOptions slow = LockOptions.builder()
                    .retry(RetryStrategy.fixed(Duration.ofSeconds(60)))
                    .build();
            LockHandle held = a.lock(name).acquire(Duration.ofSeconds(10));
            Future<Boolean> quitter = Executors.newSingleThreadExecutor()
                    .submit(() -> b.lock(name, slow)
                            .tryAcquire(Duration.ofMillis(300))
                            .isPresent());
            awaitQueued(name, 1); // b queued first
            Future<Long> patient = Executors.newSingleThreadExecutor().submit(() -> {
                try (LockHandle h = c.lock(name, slow).acquire(Duration.ofSeconds(60))) {
                    return System.nanoTime();
                }
            });
            awaitQueued(name, 2);
            assertThat(quitter.get(10, TimeUnit.SECONDS)).isFalse();
            assertThat(queued(name))
                    .as("the waiter that gave up left the queue")
                    .isEqualTo(1);
            long released = System.nanoTime();
            held.release();
            long got = patient.get(30, TimeUnit.SECONDS);
            assertThat(Duration.ofNanos(got - released))
                    .as("the second waiter was woken by the release")
                    .isLessThan(Duration.ofSeconds(2)); // the safety-net poll interval
        }
    }

    @Test
    void aHandOffBetweenThreadsOfOneClientIsOneStatement() throws Exception {
        // the releasing thread gives the row to the waiting thread's new owner id in its release statement: the
        // waiter sends nothing, so the hand-off is one round trip instead of a release and an acquire in series
        CountingDataSource counting = new CountingDataSource(pool);
        try (LockClient a = client(counting)) {
            String name = "one-statement-hand-off";
            LockHandle held = a.lock(name).acquire(Duration.ofSeconds(10));
            java.util.concurrent.CompletableFuture<LockHandle> next = waitingThread(a, name, LockOptions.defaults());
            counting.start();
            assertThat(held.release()).isTrue();
            LockHandle got = next.get(10, TimeUnit.SECONDS);
            List<String> sent = counting.stop();
            assertThat(sent)
                    .as("statements from the release to the waiter's grant")
                    .hasSize(1)
                    .allMatch(s -> s.contains("UPDATE") && !s.contains("ON CONFLICT"));
            assertThat(got.fencingToken()).isEqualTo(held.fencingToken() + 1);
            assertThat(got.isValid()).isTrue();
            try (LockClient other = client(pool)) {
                assertThat(other.lock(name).tryAcquire()).as("the handed-over row excludes others").isEmpty();
                assertThat(other.inspect(name).orElseThrow().fencingToken()).isEqualTo(got.fencingToken());
                assertThat(got.release()).isTrue();
                assertThat(other.lock(name).tryAcquire()).as("free after the handed-over grant's release").isPresent();
            }
        }
    }

    @Test
    void aHandOffDoesNotPassOverAnotherClientQueuedInTheRow() throws Exception {
        CountingDataSource counting = new CountingDataSource(pool);
        try (LockClient a = client(counting);
                LockClient b = client(pool)) {
            String name = "no-hand-off-past-the-queue";
            LockOptions slow = LockOptions.builder()
                    .retry(RetryStrategy.fixed(Duration.ofSeconds(60)))
                    .build();
            LockHandle held = a.lock(name).acquire(Duration.ofSeconds(10));
            long[] remoteGotAt = {0};
            Future<Long> remote = Executors.newSingleThreadExecutor().submit(() -> {
                try (LockHandle h = b.lock(name, slow).acquire(Duration.ofSeconds(60))) {
                    remoteGotAt[0] = System.nanoTime();
                    return h.fencingToken();
                }
            });
            awaitQueued(name, 1);
            java.util.concurrent.CompletableFuture<LockHandle> local = waitingThread(a, name, slow);
            counting.start();
            long released = System.nanoTime();
            held.release();
            long remoteToken = remote.get(10, TimeUnit.SECONDS);
            assertThat(counting.stop().get(0))
                    .as("the release, sent as a hand-over (a thread of this client waited)")
                    .contains("owner = CASE WHEN");
            assertThat(remoteToken)
                    .as("the other client's queued waiter got the lock after the release")
                    .isEqualTo(held.fencingToken() + 1);
            assertThat(Duration.ofNanos(remoteGotAt[0] - released))
                    .as("the queued waiter was woken by the release's NOTIFY, not by the safety net")
                    .isLessThan(LeaseBackend.SAFETY_NET.minusMillis(500));
            LockHandle localHandle = local.get(10, TimeUnit.SECONDS);
            assertThat(localHandle.fencingToken())
                    .as("the local waiter, after the other client's grant")
                    .isGreaterThan(remoteToken);
            localHandle.release();
        }
    }

    @Test
    void aWaiterGrantedOnItsLastAttemptLeavesTheQueue() throws Exception {
        // the waiter is second in the queue behind a head that never comes, so the release does not wake it: it looks
        // again when its wait ends, after the head's grace, and is granted by the attempt it makes with no time left
        try (LockClient a = client(pool);
                LockClient b = client(pool);
                var idle = pool.getConnection()) {
            String name = "granted-at-the-deadline";
            LockOptions slow = LockOptions.builder()
                    .retry(RetryStrategy.fixed(Duration.ofSeconds(60)))
                    .build();
            LockHandle held = a.lock(name).acquire(Duration.ofSeconds(10));
            makeHead(name, pidOf(idle));
            Future<java.util.Optional<LockHandle>> waiter = Executors.newSingleThreadExecutor()
                    .submit(() -> b.lock(name, slow).tryAcquire(Duration.ofMillis(1500)));
            awaitQueued(name, 2);
            held.release();
            LockHandle got = waiter.get(10, TimeUnit.SECONDS).orElseThrow();
            assertThat(queued(name))
                    .as("pids queued once the waiter was granted (the absent head only)")
                    .isEqualTo(1);
            got.release();
        }
    }

    @Test
    void aReleaseKeepsTheLockForTheWaiterItNotified() throws Exception {
        // the releasing client's next attempt reaches the database before the notified waiter is even told (a NOTIFY
        // arrives about 1 ms after the commit): it must not take the lock back, or a queued waiter starves
        try (LockClient a = client(pool);
                LockClient b = client(pool)) {
            String name = "kept-for-head";
            LockOptions slow = LockOptions.builder()
                    .retry(RetryStrategy.fixed(Duration.ofSeconds(60)))
                    .build();
            LockHandle held = a.lock(name).acquire(Duration.ofSeconds(10));
            Future<Long> waiter = Executors.newSingleThreadExecutor().submit(() -> {
                try (LockHandle h = b.lock(name, slow).acquire(Duration.ofSeconds(60))) {
                    return h.fencingToken();
                }
            });
            awaitQueued(name, 1);
            held.release();
            assertThat(a.lock(name).tryAcquire())
                    .as("the releasing client's next attempt, sent before the waiter its release notified could come")
                    .isEmpty();
            assertThat(waiter.get(10, TimeUnit.SECONDS))
                    .as("the waiter's token")
                    .isGreaterThan(held.fencingToken());
        }
    }

    @Test
    void aHeadThatDoesNotComeIsPassedByAfterTheGraceAndNoFairnessNeverWaitsForIt() throws Exception {
        // the queue's head is a live session that waits for nothing (as a waiter whose process is paused)
        try (LockClient a = client(pool);
                var idle = pool.getConnection()) {
            String name = "absent-head";
            LockHandle held = a.lock(name).acquire(Duration.ofSeconds(10));
            makeHead(name, pidOf(idle));
            held.release();
            long released = System.nanoTime();
            assertThat(a.lock(name).tryAcquire())
                    .as("a fair attempt while the released lock is kept for the head")
                    .isEmpty();
            LockOptions unfair =
                    LockOptions.builder().fairness(io.latchkey.Fairness.NONE).build();
            try (LockHandle barged = a.lock(name, unfair).tryAcquire().orElseThrow()) {
                assertThat(barged.fencingToken()).isGreaterThan(held.fencingToken());
            }
            LockHandle afterGrace = org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> a.lock(name).tryAcquire().orElse(null), java.util.Objects::nonNull);
            afterGrace.release();
            assertThat(Duration.ofNanos(System.nanoTime() - released))
                    .as("a fair attempt waits out the grace")
                    .isGreaterThanOrEqualTo(Duration.ofMillis(LeaseStatements.HEAD_GRACE_MILLIS));
        }
    }

    @Test
    void aWaiterBehindAHeadThatDoesNotComeLooksAgainWhenTheGraceEnds() throws Exception {
        // nothing notifies it when the grace ends: its busy answer says when, instead of the 2 s safety net
        try (LockClient a = client(pool);
                LockClient b = client(pool);
                var idle = pool.getConnection()) {
            String name = "behind-absent-head";
            LockHandle held = a.lock(name).acquire(Duration.ofSeconds(10));
            makeHead(name, pidOf(idle));
            held.release();
            long released = System.nanoTime();
            LockOptions slow = LockOptions.builder()
                    .retry(RetryStrategy.fixed(Duration.ofSeconds(60)))
                    .build();
            try (LockHandle got = b.lock(name, slow).acquire(Duration.ofSeconds(30))) {
                assertThat(Duration.ofNanos(System.nanoTime() - released))
                        .as("the waiter behind the absent head got the lock before the safety net's 2 s")
                        .isLessThan(LeaseBackend.SAFETY_NET.minusMillis(500));
            }
        }
    }

    /** A thread of {@code c} waiting up to 60 s for {@code name}, parked at the client's gate when this returns. */
    private static java.util.concurrent.CompletableFuture<LockHandle> waitingThread(
            LockClient c, String name, LockOptions options) {
        java.util.concurrent.CompletableFuture<LockHandle> got = new java.util.concurrent.CompletableFuture<>();
        Thread waiter = new Thread(() -> {
            try {
                got.complete(c.lock(name, options).acquire(Duration.ofSeconds(60)));
            } catch (Throwable e) {
                got.completeExceptionally(e);
            }
        });
        waiter.start();
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() -> waiter.getState() == Thread.State.WAITING
                        || waiter.getState() == Thread.State.TIMED_WAITING);
        return got;
    }

    private static int pidOf(java.sql.Connection c) throws java.sql.SQLException {
        try (var st = c.createStatement();
                var rs = st.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** Makes a session's pid the only one queued for {@code name}, as a waiter that queued and then stopped. */
    private static void makeHead(String name, int pid) throws java.sql.SQLException {
        try (var c = pool.getConnection();
                var ps = c.prepareStatement(
                        "UPDATE handoff_locks SET waiting = ARRAY[CAST(? AS INTEGER)] WHERE ns = '' AND name = ?")) {
            ps.setInt(1, pid);
            ps.setString(2, name);
            assertThat(ps.executeUpdate()).isEqualTo(1);
        }
    }

    private static void awaitQueued(String name, int n) {
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> queued(name) == n);
    }

    private static int queued(String name) throws java.sql.SQLException {
        try (var c = pool.getConnection();
                var ps = c.prepareStatement(
                        "SELECT coalesce(cardinality(waiting), 0) FROM handoff_locks WHERE ns = '' AND name = ?")) {
            ps.setString(1, name);
            try (var rs = ps.executeQuery()) {
                return rs.next() ? rs.getInt(1) : 0;
            }
        }
    }

    private static LockClient client(javax.sql.DataSource ds) {
        return Latchkey.client(JdbcLockBackend.builder(ds)
                .dialect(Dialect.POSTGRESQL)
                .table("handoff_locks")
                .build());
    }
}

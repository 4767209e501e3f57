package io.latchkey.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockLoss;
import io.latchkey.LockOptions;
import io.latchkey.RetryStrategy;
import io.latchkey.servers.ServerControl;
import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Issue item 7: faults injected on real servers, observed through the public API. */
class JdbcFaultTest {
    private static Databases db;

    @BeforeAll
    static void start() {
        db = new Databases();
    }

    @AfterAll
    static void stop() {
        if (db != null) {
            db.close();
        }
    }

    private static LockClient client(Dialect d, JdbcMode mode) {
        return Latchkey.connect(
                URI.create(db.url(d)),
                Map.of(
                        "mode",
                        mode.name().toLowerCase(),
                        "table",
                        "fault_" + mode.name().toLowerCase()));
    }

    private static String unique(String what) {
        return "fault-" + what + "-" + System.nanoTime();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(
            value = Dialect.class,
            names = {"POSTGRESQL", "MARIADB"})
    @DisplayName("session mode: a holder whose session is killed server-side reports SESSION_LOST and the lock frees")
    void killedSessionIsReportedAndTheLockFrees(Dialect d) throws Exception {
        String name = unique("killed");
        try (LockClient holder = client(d, JdbcMode.SESSION);
                LockClient other = client(d, JdbcMode.SESSION)) {
            LockHandle h = holder.lock(
                            name,
                            LockOptions.builder().lease(Duration.ofSeconds(3)).build())
                    .tryAcquire()
                    .orElseThrow();
            assertThat(other.lock(name).tryAcquire()).isEmpty();
            try (Connection admin = DriverManager.getConnection(db.url(d));
                    Statement s = admin.createStatement()) {
                long session = holderSession(admin, d, name);
                s.execute(d == Dialect.POSTGRESQL ? "SELECT pg_terminate_backend(" + session + ")" : "KILL " + session);
            }
            LockLoss loss = h.lost().toCompletableFuture().get(10, TimeUnit.SECONDS); // renewal probes every lease/3
            assertThat(loss.reason()).isEqualTo(LockLoss.Reason.SESSION_LOST);
            assertThat(h.isValid()).isFalse();
            try (LockHandle next = other.lock(name).acquire(Duration.ofSeconds(5))) {
                assertThat(next.fencingToken()).isGreaterThan(h.fencingToken());
            }
        }
    }

    private static long holderSession(Connection admin, Dialect d, String name) throws Exception {
        String sql = "SELECT holder_session FROM fault_session WHERE name = ?";
        try (PreparedStatement ps = admin.prepareStatement(sql)) {
            if (d == Dialect.MARIADB) {
                ps.setBytes(1, name.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            } else {
                ps.setString(1, name);
            }
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).as("row of the held lock").isTrue();
                return rs.getLong(1);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(
            value = Dialect.class,
            names = {"POSTGRESQL", "MARIADB"})
    @DisplayName(
            "lease mode: a database down for longer than the lease is reported before validUntil; afterwards the same client acquires again")
    void outageLongerThanTheLeaseIsReportedAndTheClientRecovers(Dialect d) throws Exception {
        ServerControl server = db.server(d).requireFaultInjection();
        String name = unique("outage");
        Duration lease = Duration.ofSeconds(2);
        try (LockClient c = client(d, JdbcMode.LEASE)) {
            LockHandle h = c.lock(name, LockOptions.builder().lease(lease).build())
                    .tryAcquire()
                    .orElseThrow();
            CompletableFuture<Instant[]> seen = new CompletableFuture<>();
            h.onLost(l -> seen.complete(new Instant[] {Instant.now(), h.validUntil()}));
            server.kill(); // the database is gone (SIGKILL); it stays down past the lease
            try {
                LockLoss loss =
                        h.lost().toCompletableFuture().get(lease.multipliedBy(3).toMillis(), TimeUnit.MILLISECONDS);
                assertThat(loss.reason()).isEqualTo(LockLoss.Reason.RENEWAL_FAILED);
                Instant[] at = seen.get(5, TimeUnit.SECONDS);
                assertThat(at[0]).as("loss reported before validUntil").isBefore(at[1]);
                assertThat(h.isValid()).isFalse();
            } finally {
                restartAfterKill(server);
            }
            try (LockHandle again = c.lock(
                            name,
                            LockOptions.builder()
                                    .retry(RetryStrategy.fixed(Duration.ofMillis(50)))
                                    .build())
                    .acquire(Duration.ofSeconds(20))) {
                assertThat(again.fencingToken()).isGreaterThan(h.fencingToken());
                assertThat(again.isValid()).isTrue();
            }
        }
    }

    /**
     * After SIGKILL, backends the postmaster forked just before may still be exiting and hold its shared
     * memory, so the first start can be refused ("pre-existing shared memory block is still in use"): retry.
     */
    private static void restartAfterKill(ServerControl server) {
        for (int attempt = 1; ; attempt++) {
            try {
                server.restart();
                return;
            } catch (RuntimeException e) {
                if (attempt == 5) {
                    throw e;
                }
                java.util.concurrent.locks.LockSupport.parkNanos(
                        TimeUnit.SECONDS.toNanos(1)); // let the old processes exit
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Dialect.class)
    @DisplayName("a holder that dies without releasing frees a session lock at once and a lease lock within its lease")
    void deadHolderFreesTheLock(Dialect d) throws Exception {
        for (JdbcMode mode : JdbcMode.values()) {
            String name = unique("dead-" + mode);
            Duration lease = Duration.ofSeconds(2);
            JdbcLockBackend backend = (JdbcLockBackend) new JdbcBackendProvider()
                    .create(
                            URI.create(db.url(d)),
                            Map.of(
                                    "mode",
                                    mode.name().toLowerCase(),
                                    "table",
                                    "fault_" + mode.name().toLowerCase()));
            LockClient holder = Latchkey.client(backend);
            try (LockClient other = client(d, mode)) {
                // held, never released: the process dies holding it
                LockHandle unused = holder.lock(
                                name, LockOptions.builder().lease(lease).build())
                        .tryAcquire()
                        .orElseThrow();
                long died = System.nanoTime();
                backend.close(); // the process dies: its connections close, nothing is released
                try (LockHandle next = other.lock(
                                name,
                                LockOptions.builder()
                                        .retry(RetryStrategy.fixed(Duration.ofMillis(20)))
                                        .build())
                        .acquire(Duration.ofSeconds(10))) {
                    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - died);
                    if (mode == JdbcMode.SESSION) {
                        assertThat(tookMillis)
                                .as("session lock freed at once (%s)", d)
                                .isLessThan(1000);
                    } else {
                        assertThat(tookMillis)
                                .as("lease lock freed within the lease (%s)", d)
                                .isLessThan(lease.toMillis() + 500);
                    }
                    assertThat(next.isValid()).isTrue();
                }
            } finally {
                holder.close();
            }
        }
    }
}

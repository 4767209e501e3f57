package io.latchkey.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockOptions;
import io.latchkey.jdbc.fixtures.PostgresFixture;
import io.latchkey.servers.RunningServer;
import io.latchkey.tck.server.StoreClients;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The fencing example of docs/fencing.md, run for real on PostgreSQL: two clients (each what one process of an
 * application has: its own pool and owner), one lock, and a guarded row that takes a write only with a fencing token at
 * least as high as the last one it saw. The first holder pauses past its lease, the second takes over and writes, and
 * the first's late write is rejected by the database, not by the lock.
 */
class FencingWithSqlExampleTest {
    private static StoreClients store;
    private static String url;

    @BeforeAll
    static void start() throws SQLException {
        RunningServer server = PostgresFixture.start();
        url = PostgresFixture.url(server);
        store = StoreClients.of(server, url, 2);
        try (Connection c = DriverManager.getConnection(url);
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS fenced_account"
                    + " (id text PRIMARY KEY, balance bigint NOT NULL, fence bigint NOT NULL)");
        }
    }

    @AfterAll
    static void stop() {
        if (store != null) {
            store.close();
        }
    }

    /**
     * The guarded write: it applies only if no newer holder has written. {@code <=}, not {@code <}, so that a holder may
     * write more than once under one grant; a stale holder's token is lower than the row's, and the row stays as it is.
     */
    static boolean write(Connection c, String account, long balance, long fencingToken) throws SQLException {
        try (PreparedStatement update = c.prepareStatement(
                "UPDATE fenced_account SET balance = ?, fence = ? WHERE id = ? AND fence <= ?")) {
            update.setLong(1, balance);
            update.setLong(2, fencingToken);
            update.setString(3, account);
            update.setLong(4, fencingToken);
            return update.executeUpdate() == 1;
        }
    }

    private static long balance(Connection c, String account) throws SQLException {
        try (PreparedStatement q = c.prepareStatement("SELECT balance FROM fenced_account WHERE id = ?")) {
            q.setString(1, account);
            try (ResultSet rs = q.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    @Test
    @DisplayName("a holder that paused past its lease writes with a stale token, and the database rejects the write")
    void staleWriterIsRejectedByTheDatabase() throws Exception {
        String account = "acct-" + UUID.randomUUID();
        String lockName = "account/" + account;
        LockClient processA = store.client(0);
        LockClient processB = store.client(1);
        try (Connection a = DriverManager.getConnection(url);
                Connection b = DriverManager.getConnection(url)) {
            try (PreparedStatement insert =
                    a.prepareStatement("INSERT INTO fenced_account (id, balance, fence) VALUES (?, 100, 0)")) {
                insert.setString(1, account);
                insert.executeUpdate();
            }

            // A takes the lock; a short lease and no renewal stand for a process that stops (GC pause, frozen VM)
            LockOptions pausing =
                    LockOptions.builder().lease(Duration.ofSeconds(1)).autoRenew(false).build();
            LockHandle first = processA.lock(lockName, pausing).tryAcquire().orElseThrow();
            long staleToken = first.fencingToken();

            // while A is paused its lease runs out and B takes over: a higher token, and B's write goes through
            LockHandle second = processB.lock(lockName).acquire(Duration.ofSeconds(15));
            assertThat(second.fencingToken()).isGreaterThan(staleToken);
            assertThat(write(b, account, 200, second.fencingToken())).isTrue();
            assertThat(write(b, account, 250, second.fencingToken()))
                    .as("the holder writes again under the same grant")
                    .isTrue();

            // A wakes up, believes it still holds the lock, and writes: the row refuses the stale token
            assertThat(write(a, account, 999, staleToken)).isFalse();
            assertThat(balance(a, account)).isEqualTo(250);
            assertThat(first.isValid()).as("A's handle knows it is no longer valid").isFalse();
            second.release();
        }
    }
}

package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.BackendUnavailableException;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.redis.fixtures.RedisServers;
import io.latchkey.servers.RunningServer;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * The least-privilege ACL user of the README's "Least privilege" section, on one plain redis-server (the TCK's core
 * groups run with exactly that grant in RedisTlsTckTest): the README's ACL SETUSER line is the fixture's, the grant
 * names every command the code sends or a script calls and nothing else, it also covers what the TLS TCK run leaves
 * out (semaphores, read-write locks, forceRelease, list), and a user that lacks one privilege gets a one-line error
 * naming the ACL rule it needs, without its password.
 */
@Timeout(60)
class RedisLeastPrivilegeTest {
    private static final String PASSWORD = "least-Pw-66r-never-shown";
    /** The commands the Java code sends itself; every other command of the grant is one a script calls. */
    private static final Set<String> SENT_DIRECTLY = Set.of("ping", "client|setname", "evalsha", "eval", "blpop", "scan");

    private static RunningServer server;

    @BeforeAll
    static void startServer() {
        List<String> args = new ArrayList<>();
        addUser(args, RedisServers.LOCK_USER, "latchkey:", Set.of());
        addUser(args, "no-incr", "latchkey:", Set.of("incr"));
        addUser(args, "no-evalsha", "latchkey:", Set.of("evalsha"));
        addUser(args, "no-ping", "latchkey:", Set.of("ping"));
        addUser(args, "other-keys", "other:", Set.of());
        server = RedisServers.owned(args.toArray(String[]::new));
    }

    private static void addUser(List<String> args, String user, String keyPrefix, Set<String> without) {
        args.addAll(List.of(
                RedisServers.userArguments(user, PASSWORD, RedisServers.lockUserRules(keyPrefix, without))));
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    private static String uri(String user) {
        return "redis://" + user + ":" + PASSWORD + "@" + server.endpoint().hostAndPort();
    }

    private static LockClient connect(String user) {
        return Latchkey.connect(uri(user), Map.of("timeout", "2s"));
    }

    @Test
    void theReadmeGivesExactlyTheGrantTheTestsUse() throws IOException {
        String readme = Files.readString(Path.of("README.md"), StandardCharsets.UTF_8);
        String line = "ACL SETUSER " + RedisServers.LOCK_USER + " reset on >PASSWORD "
                + String.join(" ", RedisServers.lockUserRules("latchkey:", Set.of()));
        assertThat(readme).as("lock-redis/README.md's least-privilege line").contains(line + "\n");
    }

    /** Every script is known to RedisErrors (which names a refused call from its line) and calls only granted commands. */
    @Test
    void theGrantIsEveryCommandTheCodeSendsOrAScriptCallsAndNothingElse() throws IllegalAccessException {
        List<LuaScript> scripts = new ArrayList<>();
        for (Class<?> holder : List.of(RedisScripts.class, ReadWriteScripts.class)) {
            for (Field f : holder.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers()) && f.getType() == LuaScript.class) {
                    f.setAccessible(true);
                    scripts.add((LuaScript) f.get(null));
                }
            }
        }
        assertThat(RedisErrors.SCRIPTS).containsExactlyInAnyOrderElementsOf(scripts);
        Set<String> called = new HashSet<>();
        Matcher m = Pattern.compile("redis\\.call\\('([A-Za-z]+)'").matcher("");
        for (LuaScript s : scripts) {
            m.reset(new String(s.body, StandardCharsets.UTF_8));
            while (m.find()) {
                called.add(m.group(1).toLowerCase(Locale.ROOT));
            }
        }
        Set<String> needed = new HashSet<>(called);
        needed.addAll(SENT_DIRECTLY);
        assertThat(RedisServers.LOCK_COMMANDS).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(needed);
    }

    /** What the TLS TCK run (core groups) leaves out: semaphores, read-write locks, list, forceRelease, waiting. */
    @Test
    void theGrantCoversSemaphoresReadWriteLocksListingAndForceRelease() throws Exception {
        try (LockClient a = connect(RedisServers.LOCK_USER);
                LockClient b = connect(RedisServers.LOCK_USER)) {
            useEveryPrimitive(a, b, "lp/");
        }
        assertNoAclRefusal(server);
    }

    /**
     * Everything the backend offers, through two clients of the least-privilege user: a semaphore with a waiter woken
     * by a release, a read-write lock (read, a writer that gives up behind it, write, downgrade), and a lock listed,
     * inspected and force-released with a waiter woken by the forced release.
     */
    static void useEveryPrimitive(LockClient a, LockClient b, String prefix) throws Exception {
        // a semaphore: acquire, a waiter woken by the release (BLPOP on its wake list), availablePermits
        LockHandle one = a.semaphore(prefix + "sem", 1).tryAcquire(1).orElseThrow();
        CompletableFuture<LockHandle> waiter = b.semaphore(prefix + "sem", 1).acquireAsync(1, Duration.ofSeconds(20));
        assertThat(a.semaphore(prefix + "sem", 1).availablePermits()).isZero();
        one.release();
        waiter.get(20, TimeUnit.SECONDS).release();
        // a read-write lock: read, write, downgrade, a writer that waits behind a reader and gives up (withdraw)
        try (LockHandle r = a.readWriteLock(prefix + "rw").readLock().tryAcquire().orElseThrow()) {
            assertThat(r.fencingToken()).isPositive();
            assertThat(b.readWriteLock(prefix + "rw").writeLock().tryAcquire(Duration.ofMillis(300)))
                    .isEmpty();
        }
        LockHandle w = a.readWriteLock(prefix + "rw").writeLock().tryAcquire().orElseThrow();
        a.readWriteLock(prefix + "rw").downgrade(w).release();
        // a lock: list, inspect, forceRelease, and a waiter woken by the forced release
        LockHandle held = a.lock(prefix + "lock").tryAcquire().orElseThrow();
        assertThat(b.list(prefix)).extracting(i -> i.name()).contains(prefix + "lock");
        assertThat(b.inspect(prefix + "lock")).isPresent();
        CompletableFuture<LockHandle> next = b.lock(prefix + "lock").acquireAsync(Duration.ofSeconds(20));
        assertThat(b.forceRelease(prefix + "lock")).isTrue();
        next.get(20, TimeUnit.SECONDS).release();
    }

    /** The server's ACL LOG holds no refusal of the least-privilege user (CLIENT SETINFO aside: see the README). */
    static void assertNoAclRefusal(RunningServer node) {
        try (Jedis admin = new Jedis(new HostAndPort(node.endpoint().host(), node.endpoint().port()))) {
            assertThat(admin.aclLog().stream()
                            .filter(e -> e.getUsername().equals(RedisServers.LOCK_USER))
                            .filter(e -> !e.getObject().equalsIgnoreCase("client|setinfo"))
                            .map(e -> e.getReason() + " " + e.getObject()))
                    .as("what the ACL of " + node.endpoint().hostAndPort() + " refused the least-privilege user")
                    .isEmpty();
        }
    }

    @Test
    void aScriptCallTheAclRefusesIsNamedWithTheRuleThatGrantsIt() {
        try (LockClient c = connect("no-incr")) {
            assertThatThrownBy(() -> c.lock("lp/no-incr").tryAcquire())
                    .isInstanceOf(BackendUnavailableException.class)
                    .satisfies(e -> assertOneLineWithoutPassword(e, "Could not acquire lock 'lp/no-incr' on "))
                    .hasMessageContaining("missing privilege: the ACL user needs +incr, which the acquire script calls")
                    .hasMessageContaining("\"Least privilege\" in the lock-redis README");
        }
    }

    @Test
    void aCommandTheAclRefusesIsNamedWithTheRuleThatGrantsIt() {
        try (LockClient c = connect("no-evalsha")) {
            assertThatThrownBy(() -> c.lock("lp/no-evalsha").tryAcquire())
                    .isInstanceOf(BackendUnavailableException.class)
                    .satisfies(e -> assertOneLineWithoutPassword(e, "Could not acquire lock 'lp/no-evalsha' on "))
                    .hasMessageContaining("'evalsha'")
                    .hasMessageContaining("missing privilege: the ACL user needs +evalsha;");
        }
    }

    @Test
    void keysOutsideTheUsersKeyPatternAreNamedWithThePatternNeeded() {
        try (LockClient c = connect("other-keys")) {
            assertThatThrownBy(() -> c.lock("lp/other-keys").tryAcquire())
                    .isInstanceOf(BackendUnavailableException.class)
                    .satisfies(e -> assertOneLineWithoutPassword(e, "Could not acquire lock 'lp/other-keys' on "))
                    .hasMessageContaining("missing privilege: the ACL user may not use a key of this backend: its key"
                            + " pattern must be ~<keyPrefix>*, which is ~latchkey:* unless keyPrefix is set;");
        }
    }

    /** The connect check's PING; which first words the connect error gets is RedisReachability's choice. */
    @Test
    void aRefusedPingAtConnectIsNamedToo() {
        assertThatThrownBy(() -> connect("no-ping").close())
                .isInstanceOf(BackendUnavailableException.class)
                .satisfies(e -> assertOneLineWithoutPassword(e, ""))
                .hasMessageContaining("'ping'")
                .hasMessageContaining("missing privilege: the ACL user needs +ping;");
    }

    private static void assertOneLineWithoutPassword(Throwable e, String start) {
        assertThat(e.getMessage()).startsWith(start).doesNotContain("\n");
        for (Throwable t = e; t != null; t = t.getCause()) {
            assertThat(String.valueOf(t.getMessage())).doesNotContain(PASSWORD);
        }
        assertThat(((BackendUnavailableException) e).backend()).doesNotContain(PASSWORD);
    }
}

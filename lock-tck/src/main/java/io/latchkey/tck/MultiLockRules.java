package io.latchkey.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LockClient;
import io.latchkey.LockLoss;
import io.latchkey.LockOptions;
import io.latchkey.LockTimeoutException;
import io.latchkey.MultiLock;
import io.latchkey.MultiLockHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code LockClient.lockAll} on this backend: no deadlock between overlapping sets in crossed orders, all or nothing
 * within one wait budget, one combined handle that turns invalid with any part, and a killed holder's parts freed.
 * The multi-lock comes from {@link #newMultiLock}, which the TCK's self-test overrides with broken ones.
 */
public interface MultiLockRules extends TckRules {

    /**
     * The multi-lock under test; the self-test overrides it.
     *
     * @param client the client
     * @param names the names to lock together
     * @param options each part's options
     * @return the multi-lock
     */
    default MultiLock newMultiLock(LockClient client, List<String> names, LockOptions options) {
        return client.lockAll(names, options);
    }

    private void assumeRecipeRules() {
        Tck.assumeRecipeRules(tck());
    }

    private Duration timeout() {
        return tck().settings()
                .shortLease()
                .plus(tck().settings().slack())
                .plus(tck().settings().wakeUp());
    }

    /**
     * Rule recipe multi-lock: 8 threads on 4 clients taking overlapping sets in crossed orders never deadlock and never overlap.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("multi-lock")
    @DisplayName("recipe multi-lock: 8 threads on 4 clients taking overlapping sets in crossed orders never deadlock"
            + " and never overlap")
    default void multilock_noDeadlockWithCrossedOrders() throws Exception {
        assumeRecipeRules();
        List<String> pool = new ArrayList<>();
        Map<String, OverlapDetector> detectors = new HashMap<>();
        Map<String, LostUpdateRegister> registers = new HashMap<>();
        Map<String, AtomicInteger> expected = new HashMap<>();
        for (int i = 0; i < 6; i++) {
            String name = tck().name("crossed-" + i);
            pool.add(name);
            detectors.put(name, new OverlapDetector());
            registers.put(name, new LostUpdateRegister());
            expected.put(name, new AtomicInteger());
        }
        List<LockClient> clients = List.of(tck().newClient(), tck().newClient(), tck().newClient(), tck().newClient());
        int rounds = 15;
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<CompletableFuture<Void>> threads = new ArrayList<>();
        java.util.concurrent.ExecutorService executor = java.util.concurrent.Executors.newFixedThreadPool(8);
        for (int t = 0; t < 8; t++) {
            LockClient client = clients.get(t % clients.size());
            String id = "thread-" + t;
            threads.add(CompletableFuture.runAsync(
                    () -> {
                        try {
                            for (int r = 0; r < rounds; r++) {
                                List<String> set = new ArrayList<>(pool);
                                Collections.shuffle(set, ThreadLocalRandom.current());
                                set = set.subList(
                                        0, 3 + ThreadLocalRandom.current().nextInt(2)); // crossed orders
                                MultiLockHandle held = newMultiLock(client, set, LockOptions.defaults())
                                        .acquire(timeout());
                                try {
                                    for (String name : set) {
                                        detectors.get(name).enter(id);
                                    }
                                    // hold a moment: without it, a store that grants everything can get through
                                    // 120 sections on 2 cores without two of them ever meeting
                                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                                    for (String name : set) {
                                        registers.get(name).increment();
                                        expected.get(name).incrementAndGet();
                                    }
                                    for (String name : set) {
                                        detectors.get(name).exit(id);
                                    }
                                } finally {
                                    held.release();
                                }
                            }
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                        }
                    },
                    executor));
        }
        try {
            CompletableFuture.allOf(threads.toArray(CompletableFuture[]::new))
                    .get(timeout().multipliedBy(rounds).toMillis(), TimeUnit.MILLISECONDS);
        } finally {
            executor.shutdownNow();
        }
        if (failure.get() instanceof LockTimeoutException timeout) {
            throw new AssertionError(
                    "a lockAll waited past its budget while others held parts of its set"
                            + " (a deadlock between crossed orders?): " + timeout.getMessage(),
                    timeout);
        }
        if (failure.get() != null) {
            throw new AssertionError("a lockAll thread failed", failure.get());
        }
        for (String name : pool) {
            assertEquals(
                    0,
                    detectors.get(name).overlaps(),
                    () -> "overlap on " + name + ": " + detectors.get(name).firstOverlap());
            assertEquals(expected.get(name).get(), registers.get(name).value(), () -> "lost updates on " + name);
        }
    }

    /**
     * Rule recipe multi-lock: a set whose part is taken times out holding none of the others.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("multi-lock")
    @DisplayName("recipe multi-lock: a set whose part is taken times out holding none of the others")
    default void multilock_allOrNothingOnTimeout() throws Exception {
        assumeRecipeRules();
        LockClient holder = tck().newClient();
        LockClient taker = tck().newClient();
        String a = tck().name("a");
        String b = tck().name("b");
        String c = tck().name("c");
        try (var held = Tck.mustAcquire(holder.lock(b))) {
            Optional<MultiLockHandle> all = newMultiLock(taker, List.of(c, b, a), LockOptions.defaults())
                    .tryAcquire(Duration.ofMillis(300));
            assertFalse(all.isPresent(), "lockAll succeeded although a part was held by another client");
            assertEquals(Optional.empty(), holder.inspect(a), "lockAll left a part held after timing out");
            assertEquals(Optional.empty(), holder.inspect(c), "lockAll left a part held after timing out");
            Tck.mustAcquire(holder.lock(a)).release();
            Tck.mustAcquire(holder.lock(c)).release();
            assertThrows(
                    LockTimeoutException.class,
                    () -> newMultiLock(taker, List.of(a, b), LockOptions.defaults())
                            .acquire(Duration.ofMillis(100)));
            assertTrue(held.isValid());
        }
    }

    /**
     * Rule recipe multi-lock: losing any part invalidates the combined handle and completes lost().
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("multi-lock")
    @DisplayName("recipe multi-lock: losing any part invalidates the combined handle and completes lost()")
    default void multilock_lossOfAnyPartInvalidatesTheHandle() throws Exception {
        assumeRecipeRules();
        LockClient client = tck().newClient();
        LockClient admin = tck().newClient();
        List<String> names = List.of(tck().name("x"), tck().name("y"), tck().name("z"));
        MultiLockHandle held = newMultiLock(client, names, Tck.renewing(tck())).acquire(timeout());
        assertTrue(held.isValid());
        Tck.forceRelease(admin, names.get(1));
        LockLoss loss = held.lost().toCompletableFuture().get(timeout().toMillis(), TimeUnit.MILLISECONDS);
        assertEquals(names.get(1), loss.name());
        assertFalse(held.isValid(), "the combined handle stayed valid after a part was lost");
        assertFalse(held.release(), "release() said every part was released although one had been lost");
        for (String name : names) {
            Tck.mustAcquire(admin.lock(name)).release();
        }
    }

    /**
     * Rule recipe multi-lock: release frees every part, and the next holder's tokens are greater.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("multi-lock")
    @DisplayName("recipe multi-lock: release frees every part, and the next holder's tokens are greater")
    default void multilock_releaseFreesEveryPartAndTokensRise() throws Exception {
        assumeRecipeRules();
        List<String> names = List.of(tck().name("p"), tck().name("q"), tck().name("r"));
        MultiLockHandle first =
                newMultiLock(tck().newClient(), names, LockOptions.defaults()).acquire(timeout());
        Map<String, Long> before = first.fencingTokens();
        LockClient other = tck().newClient();
        for (String name : names) {
            Tck.mustBeBusy(other.lock(name), "a multi-lock held it");
        }
        assertTrue(first.release(), "release() of a valid multi-lock did not release every part");
        assertFalse(first.isValid(), "the combined handle stayed valid after release()");
        MultiLockHandle second = newMultiLock(tck().newClient(), names, LockOptions.defaults())
                .tryAcquire()
                .orElseThrow(() -> new AssertionError("a released set was not free at once"));
        for (String name : names) {
            assertTrue(
                    second.fencingTokens().get(name) > before.get(name),
                    () -> "token of " + name + " did not rise: " + before + " then " + second.fencingTokens());
        }
        second.release();
    }

    /** Rule recipe multi-lock: no names, a repeated name or an invalid name is rejected before the store is touched. */
    @Test
    @Tag("multi-lock")
    @DisplayName("recipe multi-lock: no names, a repeated name or an invalid name is rejected before the store is"
            + " touched")
    default void multilock_badInputIsRejectedAndTouchesNothing() {
        assumeRecipeRules();
        LockClient client = tck().newClient();
        String ok = tck().name("valid");
        assertThrows(IllegalArgumentException.class, () -> newMultiLock(client, List.of(), LockOptions.defaults()));
        IllegalArgumentException twice = assertThrows(
                IllegalArgumentException.class, () -> newMultiLock(client, List.of(ok, ok), LockOptions.defaults()));
        assertTrue(twice.getMessage().contains("more than once"), twice.getMessage());
        assertThrows(
                IllegalArgumentException.class,
                () -> newMultiLock(client, List.of(ok, "bad\u0001name"), LockOptions.defaults()));
        assertEquals(Optional.empty(), client.inspect(ok), "a rejected lockAll left something in the store");
    }

    /**
     * Rule recipe multi-lock (separate JVMs): a holder killed with SIGKILL frees every part within its lease.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("multi-lock")
    @DisplayName("recipe multi-lock (separate JVMs): a holder killed with SIGKILL frees every part within its lease")
    default void multilock_killedHolderProcessFreesEveryPart() throws Exception {
        assumeRecipeRules();
        LockOptions options = Tck.renewing(tck());
        List<String> names = List.of(tck().name("k1"), tck().name("k2"), tck().name("k3"));
        List<String> args = new ArrayList<>();
        args.add(Long.toString(options.lease().toMillis()));
        args.addAll(names);
        TckProcess child = tck().startProcess(MultiLockProcess.class, args.toArray(String[]::new));
        String line = child.awaitLine("HELD ", Duration.ofSeconds(60));
        Map<String, Long> childTokens = new HashMap<>();
        for (String pair : line.substring("HELD ".length()).trim().split(",")) {
            int eq = pair.lastIndexOf('=');
            childTokens.put(pair.substring(0, eq), Long.parseLong(pair.substring(eq + 1)));
        }
        LockClient survivor = tck().newClient();
        assertFalse(
                newMultiLock(survivor, names, LockOptions.defaults())
                        .tryAcquire()
                        .isPresent(),
                "the set was free while the child held it");
        child.kill();
        Duration bound = options.lease()
                .plus(tck().settings().slack())
                .plus(ProcessFaultBounds.sessionAllowance(tck()));
        MultiLockHandle taken =
                newMultiLock(survivor, names, LockOptions.defaults()).acquire(bound);
        for (String name : names) {
            assertTrue(
                    taken.fencingTokens().get(name) > childTokens.get(name),
                    () -> "token of " + name + " did not rise above the killed holder's: " + childTokens + " then "
                            + taken.fencingTokens());
        }
        taken.release();
    }
}

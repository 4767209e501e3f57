package io.latchkey.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** §4.1 Exclusion: at most one valid handle per name at any instant, as judged by the store. */
public interface ExclusionRules extends TckRules {

    /** Rule §4.1 exclusion: a second client cannot acquire a lock another client holds. */
    @Test
    @Tag("exclusion")
    @DisplayName("§4.1 exclusion: a second client cannot acquire a lock another client holds")
    default void exclusion_secondClientCannotAcquireHeldLock() {
        LockClient a = tck().newClient();
        LockClient b = tck().newClient();
        String name = tck().name("held");
        try (LockHandle h = Tck.mustAcquire(a.lock(name))) {
            assertTrue(
                    b.lock(name).tryAcquire().isEmpty(),
                    "client B acquired '" + name + "' while A held it (token " + h.fencingToken() + ")");
        }
        Tck.mustAcquire(b.lock(name)).close();
    }

    /**
     * Rule §4.1 exclusion: 16 threads on 8 clients x 500 acquisitions never overlap, lose no update and never lose a grant.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("exclusion")
    @DisplayName(
            "§4.1 exclusion: 16 threads on 8 clients x 500 acquisitions never overlap, lose no update and never lose a grant")
    default void exclusion_noOverlapAndNoLostUpdateUnderConcurrency() throws Exception {
        TckSettings s = tck().settings();
        String name = tck().name("contended");
        List<LockClient> clients = new ArrayList<>();
        for (int i = 0; i < s.exclusionClients(); i++) {
            clients.add(tck().newClient());
        }
        LockOptions options = Tck.fastRetry(
                LockOptions.builder().lease(Duration.ofSeconds(30)).build());
        OverlapDetector detector = new OverlapDetector();
        LostUpdateRegister register = new LostUpdateRegister();
        LockHistory history = tck().history();
        java.util.concurrent.atomic.AtomicInteger replaced = new java.util.concurrent.atomic.AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(s.exclusionThreads());
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < s.exclusionThreads(); t++) {
                DistributedLock lock = clients.get(t % clients.size()).lock(name, options);
                String who = "thread-" + t;
                futures.add(pool.submit(() -> {
                    start.await();
                    for (int r = 0; r < s.exclusionRounds(); r++) {
                        LockHandle h = lock.acquire(Duration.ofSeconds(120));
                        LockHistory.Entry e = history.granted(h);
                        detector.enter(who);
                        register.increment();
                        detector.exit(who);
                        e.released();
                        // with a 30 s renewed lease nothing expires here: a release that finds its grant gone
                        // means the store gave the lock to someone else while this grant was valid
                        if (!h.release()) {
                            replaced.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : futures) {
                f.get(170, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        long expected = (long) s.exclusionThreads() * s.exclusionRounds();
        assertEquals(
                0,
                replaced.get(),
                () -> replaced.get() + " releases found their valid grant replaced by another owner's");
        assertEquals(
                0,
                detector.overlaps(),
                () -> "holders overlapped " + detector.overlaps() + " times; first: " + detector.firstOverlap());
        assertEquals(
                expected,
                register.value(),
                "lost updates: the register shows " + register.value() + " of " + expected + " increments");
        assertEquals(List.of(), history.violations(), "the lock history has violations");
    }

    /** Rule §4.1 exclusion: locks with different names do not exclude each other. */
    @Test
    @Tag("exclusion")
    @DisplayName("§4.1 exclusion: locks with different names do not exclude each other")
    default void exclusion_differentNamesAreIndependent() {
        LockClient a = tck().newClient();
        LockClient b = tck().newClient();
        LockClient c = tck().newClient();
        try (LockHandle x = Tck.mustAcquire(a.lock(tck().name("x")));
                LockHandle y = Tck.mustAcquire(b.lock(tck().name("y")))) {
            assertTrue(x.isValid() && y.isValid());
            // each is held in the store, not merely granted: a third client can take neither
            Tck.mustBeBusy(c.lock(x.name()), "another client held it beside a held lock of another name");
            Tck.mustBeBusy(c.lock(y.name()), "another client held it beside a held lock of another name");
        }
    }
}

package io.latchkey.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.Capability;
import io.latchkey.DistributedReadWriteLock;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockLoss;
import io.latchkey.LockOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Read-write locks ({@link Capability#READ_WRITE}): readers share and exclude writers, a writer is not starved by
 * a stream of readers and does not hold readers back once it gives up, tokens rise across both sides, upgrades are
 * refused, a downgrade leaves no gap, a dead holder's grant frees, loss is reported. A backend that does not claim the capability must refuse
 * {@code readWriteLock(...)} politely.
 */
public interface ReadWriteRules extends TckRules {

    private DistributedReadWriteLock rw(LockClient client, String name, LockOptions options) {
        Assumptions.assumeTrue(
                tck().capabilities().contains(Capability.READ_WRITE), "backend does not claim READ_WRITE");
        Tck.assumePrimitiveRules(tck());
        return client.readWriteLock(name, options);
    }

    /**
     * Rule read-write: readers on different clients share the lock, and exclude a writer until the last one leaves; a writer excludes readers.
     */
    @Test
    @Tag("read-write")
    @DisplayName("read-write: readers on different clients share the lock, and exclude a writer until the last"
            + " one leaves; a writer excludes readers")
    default void rw_readersShareAndExcludeWriters() {
        String name = tck().name("share");
        DistributedReadWriteLock a = rw(tck().newClient(), name, LockOptions.defaults());
        DistributedReadWriteLock b = rw(tck().newClient(), name, LockOptions.defaults());
        DistributedReadWriteLock c = rw(tck().newClient(), name, LockOptions.defaults());
        LockHandle r1 = a.readLock().tryAcquire().orElseThrow(() -> new AssertionError("a free lock refused a reader"));
        LockHandle r2 = b.readLock().tryAcquire().orElseThrow(() -> new AssertionError("readers did not share"));
        assertEquals(Optional.empty(), c.writeLock().tryAcquire(), "a writer was admitted while 2 readers held");
        r1.release();
        r2.release();
        // the writer above gave up at once: its wish to write must not keep readers out now
        LockHandle w = c.writeLock().tryAcquire().orElseThrow(() -> new AssertionError("a free lock refused a writer"));
        assertEquals(Optional.empty(), a.readLock().tryAcquire(), "a reader was admitted while a writer held");
        assertEquals(Optional.empty(), b.writeLock().tryAcquire(), "a second writer was admitted");
        w.release();
        a.readLock()
                .tryAcquire()
                .orElseThrow(() -> new AssertionError("a released lock refused a reader"))
                .release();
    }

    /**
     * Rule read-write: 8 threads on 4 clients, readers and writers mixed, never a writer beside anyone (a read-write register), and readers do share.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("read-write")
    @DisplayName("read-write: 8 threads on 4 clients, readers and writers mixed, never a writer beside anyone"
            + " (a read-write register), and readers do share")
    default void rw_exclusionUnderConcurrency() throws Exception {
        String name = tck().name("register");
        int clients = 4;
        int threads = 8;
        int rounds = 15;
        ReadWriteRegister register = new ReadWriteRegister();
        LockOptions options = Tck.fastRetry(Tck.renewing(tck()));
        List<DistributedReadWriteLock> views = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            views.add(rw(tck().newClient(), name, options));
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<CompletableFuture<Void>> workers = new ArrayList<>();
        Duration wait = timeout();
        try {
            for (int t = 0; t < threads; t++) {
                DistributedReadWriteLock view = views.get(t % clients);
                boolean writer = t % 4 == 0; // 2 writers, 6 readers
                String id = (writer ? "writer-" : "reader-") + t;
                workers.add(CompletableFuture.runAsync(
                        () -> {
                            for (int r = 0; r < rounds; r++) {
                                try (LockHandle h = (writer ? view.writeLock() : view.readLock()).acquire(wait)) {
                                    if (writer) {
                                        register.enterWrite(id + " (token " + h.fencingToken() + ")");
                                    } else {
                                        register.enterRead(id + " (token " + h.fencingToken() + ")");
                                    }
                                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2)); // hold a moment
                                    if (writer) {
                                        register.exitWrite();
                                    } else {
                                        register.exitRead();
                                    }
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                    return;
                                }
                            }
                        },
                        pool));
            }
            CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new))
                    .get(wait.multipliedBy(rounds).toMillis(), TimeUnit.MILLISECONDS);
        } finally {
            pool.shutdownNow();
        }
        assertEquals(0, register.violations(), () -> "exclusion broken: " + register.firstViolation());
        assertTrue(
                register.mostReaders() >= 2,
                () -> "readers never held together (most at once: " + register.mostReaders()
                        + "): the read side behaved as an exclusive lock");
    }

    /**
     * Rule read-write: a writer waiting behind a continuous stream of overlapping readers gets the lock (writer preference: new readers wait once a writer waits).
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("read-write")
    @DisplayName("read-write: a writer waiting behind a continuous stream of overlapping readers gets the lock"
            + " (writer preference: new readers wait once a writer waits)")
    default void rw_writerIsNotStarvedByReaders() throws Exception {
        String name = tck().name("starve");
        LockOptions options = Tck.fastRetry(Tck.renewing(tck()));
        AtomicBoolean stop = new AtomicBoolean();
        java.util.concurrent.atomic.AtomicInteger streamGrants = new java.util.concurrent.atomic.AtomicInteger();
        ReadWriteRegister register = new ReadWriteRegister(); // the writer, when it gets in, must be alone
        // six readers, each on its own client: a flawed lock lets the writer in only when all six are out at once, which a
        // loaded 2-core machine still managed now and then with three
        int streams = 6;
        ExecutorService pool = Executors.newFixedThreadPool(streams);
        List<CompletableFuture<Void>> readers = new ArrayList<>();
        DistributedReadWriteLock first = rw(tck().newClient(), name, options);
        LockHandle seed = first.readLock().tryAcquire().orElseThrow(() -> new AssertionError("reader refused"));
        try {
            for (int t = 0; t < streams; t++) {
                DistributedReadWriteLock view = rw(tck().newClient(), name, options);
                readers.add(CompletableFuture.runAsync(
                        () -> {
                            while (!stop.get()) { // hold 60 ms, let go, come back at once: always a reader inside
                                try {
                                    Optional<LockHandle> h = view.readLock().tryAcquire(Duration.ofMillis(200));
                                    if (h.isPresent()) {
                                        streamGrants.incrementAndGet();
                                        register.enterRead("a streaming reader (token "
                                                + h.get().fencingToken() + ")");
                                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(60));
                                        register.exitRead();
                                        h.get().release();
                                    }
                                } catch (InterruptedException e) {
                                    return;
                                }
                            }
                        },
                        pool));
            }
            Tck.await(Duration.ofSeconds(10)).until(() -> streamGrants.get() >= 6); // the stream is flowing
            seed.release(); // from here on, only the stream keeps the lock read-held
            DistributedReadWriteLock writer = rw(tck().newClient(), name, options);
            Duration bound = Duration.ofSeconds(5).plus(tck().settings().slack());
            long asked = System.nanoTime();
            Optional<LockHandle> w = writer.writeLock().tryAcquire(bound);
            long took = System.nanoTime() - asked;
            assertTrue(
                    w.isPresent(),
                    () -> "the writer waited " + Tck.millis(took) + " ms behind a stream of readers"
                            + " and never got the lock: readers kept coming while it waited");
            register.enterWrite("the writer (token " + w.get().fencingToken() + ")");
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100)); // a reader beside it would show now
            register.exitWrite();
            w.get().release();
            assertEquals(0, register.violations(), () -> "exclusion broken: " + register.firstViolation());
        } finally {
            stop.set(true);
            pool.shutdown();
            pool.awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    /**
     * Rule read-write: a writer that gives up stops holding new readers back at once.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("read-write")
    @DisplayName("read-write: a writer that gives up stops holding new readers back at once")
    default void rw_aWriterThatGivesUpLetsReadersIn() throws Exception {
        String name = tck().name("gives-up");
        DistributedReadWriteLock holder = rw(tck().newClient(), name, LockOptions.defaults());
        DistributedReadWriteLock writer = rw(tck().newClient(), name, Tck.fastRetry(LockOptions.defaults()));
        DistributedReadWriteLock late = rw(tck().newClient(), name, LockOptions.defaults());
        LockHandle r = holder.readLock().tryAcquire().orElseThrow(() -> new AssertionError("reader refused"));
        assertEquals(Optional.empty(), writer.writeLock().tryAcquire(Duration.ofMillis(300)), "writer beside reader");
        LockHandle next = late.readLock()
                .tryAcquire()
                .orElseThrow(() -> new AssertionError("a reader was kept out by a writer that had given up"));
        next.release();
        r.release();
    }

    /** Rule read-write: every grant's token, read or write, is greater than every earlier grant's. */
    @Test
    @Tag("read-write")
    @DisplayName("read-write: every grant's token, read or write, is greater than every earlier grant's")
    default void rw_tokensRiseAcrossBothSides() {
        String name = tck().name("tokens");
        DistributedReadWriteLock a = rw(tck().newClient(), name, LockOptions.defaults());
        DistributedReadWriteLock b = rw(tck().newClient(), name, LockOptions.defaults());
        List<Long> seen = new ArrayList<>();
        LockHandle r1 = a.readLock().tryAcquire().orElseThrow();
        seen.add(r1.fencingToken());
        LockHandle r2 = b.readLock().tryAcquire().orElseThrow();
        seen.add(r2.fencingToken());
        r1.release();
        r2.release();
        LockHandle w = b.writeLock().tryAcquire().orElseThrow();
        seen.add(w.fencingToken());
        w.release();
        LockHandle r3 = a.readLock().tryAcquire().orElseThrow();
        seen.add(r3.fencingToken());
        r3.release();
        for (int i = 1; i < seen.size(); i++) {
            int n = i;
            assertTrue(seen.get(i) > seen.get(i - 1), () -> "tokens did not rise: " + seen + " at #" + n);
        }
    }

    /** Rule read-write: a thread holding the read lock that asks for the write lock is refused at once. */
    @Test
    @Tag("read-write")
    @DisplayName("read-write: a thread holding the read lock that asks for the write lock is refused at once")
    default void rw_upgradeIsRefused() {
        String name = tck().name("upgrade");
        DistributedReadWriteLock rw = rw(tck().newClient(), name, LockOptions.defaults());
        try (LockHandle r = rw.readLock().tryAcquire().orElseThrow()) {
            IllegalStateException e = assertThrows(
                    IllegalStateException.class, () -> rw.writeLock().tryAcquire(Duration.ofSeconds(1)));
            assertTrue(e.getMessage().contains("upgrad"), () -> "the refusal should say why: " + e.getMessage());
            assertTrue(r.isValid(), "the read grant was lost by the refused upgrade");
        }
        rw.writeLock()
                .tryAcquire()
                .orElseThrow(() -> new AssertionError("released, yet no writer"))
                .release();
    }

    /**
     * Rule read-write: a crashed writer's lock frees within its lease (or session timeout) plus slack.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("read-write")
    @DisplayName("read-write: a crashed writer's lock frees within its lease (or session timeout) plus slack")
    default void rw_crashedWritersLockFrees() throws Exception {
        String name = tck().name("orphan");
        LockClient dying = tck().newClient();
        DistributedReadWriteLock holder = rw(dying, name, Tck.renewing(tck()));
        DistributedReadWriteLock reader = rw(tck().newClient(), name, Tck.fastRetry(LockOptions.defaults()));
        LockHandle w = holder.writeLock().tryAcquire().orElseThrow(() -> new AssertionError("writer refused"));
        assertEquals(Optional.empty(), reader.readLock().tryAcquire(), "a reader was admitted beside the writer");
        long crashedAt = System.nanoTime();
        tck().crash(dying);
        Duration bound = tck().settings().shortLease().plus(tck().settings().slack());
        LockHandle r = reader.readLock()
                .tryAcquire(bound.plusSeconds(1))
                .orElseThrow(() -> new AssertionError("the crashed writer's lock (token " + w.fencingToken()
                        + ") did not free within " + bound.plusSeconds(1).toMillis() + " ms"));
        long took = System.nanoTime() - crashedAt;
        r.release();
        assertTrue(
                took <= bound.toNanos(),
                () -> "the crashed writer's lock freed after " + Tck.millis(took) + " ms; lease + slack allows "
                        + bound.toMillis() + " ms");
        assertTrue(r.fencingToken() > w.fencingToken(), "the next grant's token did not rise");
    }

    /** Rule read-write: a read grant that is not renewed is reported lost, by its validUntil. */
    @Test
    @Tag("read-write")
    @DisplayName("read-write: a read grant that is not renewed is reported lost, by its validUntil")
    default void rw_lossIsReported() {
        String name = tck().name("loss");
        DistributedReadWriteLock rw = rw(tck().newClient(), name, Tck.expiring(tck()));
        LockHandle h = rw.readLock().tryAcquire().orElseThrow();
        java.time.Instant validUntil = h.validUntil();
        LockLoss loss = Tck.awaitLoss(
                h, tck().settings().shortLease().plus(tck().settings().slack()), "its lease ran out unrenewed");
        assertEquals(LockLoss.Reason.EXPIRED, loss.reason());
        assertFalse(h.isValid());
        assertFalse(loss.at().isAfter(validUntil.plus(tck().settings().slack())), "loss reported late");
    }

    /** Rule read-write: a backend that does not claim READ_WRITE refuses readWriteLock() politely. */
    @Test
    @Tag("read-write")
    @DisplayName("read-write: a backend that does not claim READ_WRITE refuses readWriteLock() politely")
    default void rw_refusedPolitelyWithoutTheCapability() {
        Assumptions.assumeFalse(
                tck().capabilities().contains(Capability.READ_WRITE), "backend claims READ_WRITE: its rules run");
        LockClient client = tck().newClient();
        UnsupportedOperationException e =
                assertThrows(UnsupportedOperationException.class, () -> client.readWriteLock(tck().name("refused")));
        assertTrue(
                e.getMessage().contains("READ_WRITE") && e.getMessage().contains(client.backend()),
                () -> "the refusal should name the capability and the backend: " + e.getMessage());
    }

    /**
     * Rule read-write: a downgrade turns the write grant into a read grant with no gap: readers may join, a waiting writer stays out until the read grant goes, and the next writer's token rises.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("read-write")
    @DisplayName("read-write: a downgrade turns the write grant into a read grant with no gap: readers may join, a"
            + " waiting writer stays out until the read grant goes, and the next writer's token rises")
    default void rw_downgradeLeavesNoGap() throws Exception {
        String name = tck().name("downgrade");
        DistributedReadWriteLock holder = rw(tck().newClient(), name, LockOptions.defaults());
        LockClient writerClient = tck().newClient();
        DistributedReadWriteLock writer = rw(writerClient, name, Tck.fastRetry(LockOptions.defaults()));
        DistributedReadWriteLock reader = rw(tck().newClient(), name, LockOptions.defaults());
        LockHandle w =
                holder.writeLock().tryAcquire().orElseThrow(() -> new AssertionError("a free lock refused a writer"));
        LockHandle r = holder.downgrade(w);
        assertFalse(w.isValid(), "the write handle stayed valid after its downgrade");
        assertTrue(r.isValid(), "the read grant of a downgrade was not valid");
        // a queue store keeps the writer's place, and its token; a counter store issues the next one
        assertTrue(
                r.fencingToken() >= w.fencingToken(),
                () -> "the read grant's token " + r.fencingToken() + " fell below the write grant's "
                        + w.fencingToken());
        reader.readLock()
                .tryAcquire()
                .orElseThrow(() -> new AssertionError("a reader was refused beside a downgraded (read) grant"))
                .release();
        assertEquals(
                Optional.empty(), writer.writeLock().tryAcquire(), "a writer was admitted beside a downgraded grant");
        r.release();

        LockHandle w2 =
                holder.writeLock().tryAcquire().orElseThrow(() -> new AssertionError("a free lock refused a writer"));
        CompletableFuture<LockHandle> waiting = writer.writeLock().acquireAsync(timeout());
        tck().awaitAskedTheStore(writerClient);
        LockHandle r2 = holder.downgrade(w2);
        Tck.staysTrue(
                Duration.ofMillis(300),
                () -> !waiting.isDone(),
                "a waiting writer got the lock during the downgrade, beside its read grant: there was a gap");
        assertTrue(r2.isValid(), "the read grant of a downgrade was not valid");
        r2.release();
        LockHandle next = waiting.get(timeout().toMillis(), TimeUnit.MILLISECONDS);
        next.release();
        assertTrue(next.fencingToken() > r2.fencingToken(), "the next writer's token did not rise");
    }

    /**
     * Rule read-write: downgrade() refuses a read handle, another lock's handle and a released write handle, changing nothing.
     */
    @Test
    @Tag("read-write")
    @DisplayName("read-write: downgrade() refuses a read handle, another lock's handle and a released write handle,"
            + " changing nothing")
    default void rw_downgradeNeedsAHeldWriteGrantOfThisLock() {
        String name = tck().name("downgrade-input");
        LockClient client = tck().newClient();
        DistributedReadWriteLock rw = rw(client, name, LockOptions.defaults());
        DistributedReadWriteLock other = rw(client, name + "-other", LockOptions.defaults());
        LockHandle read =
                rw.readLock().tryAcquire().orElseThrow(() -> new AssertionError("a free lock refused a reader"));
        assertThrows(IllegalArgumentException.class, () -> rw.downgrade(read), "a read handle was downgraded");
        assertTrue(read.isValid(), "a refused downgrade ended the read grant");
        read.release();
        LockHandle w =
                rw.writeLock().tryAcquire().orElseThrow(() -> new AssertionError("a free lock refused a writer"));
        assertThrows(IllegalArgumentException.class, () -> other.downgrade(w), "another lock's handle was downgraded");
        assertTrue(w.isValid(), "a refused downgrade ended the write grant");
        w.release();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> rw.downgrade(w));
        assertTrue(e.getMessage().contains("released"), () -> "the refusal should say why: " + e.getMessage());
        rw.writeLock()
                .tryAcquire()
                .orElseThrow(() -> new AssertionError("a refused downgrade left the lock held"))
                .release();
    }

    private Duration timeout() {
        return tck().settings().shortLease().multipliedBy(4).plus(Duration.ofSeconds(10));
    }
}

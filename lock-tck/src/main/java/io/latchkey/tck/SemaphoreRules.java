package io.latchkey.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.Capability;
import io.latchkey.DistributedSemaphore;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockLoss;
import io.latchkey.LockOptions;
import io.latchkey.Reentrancy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Semaphores ({@link Capability#SEMAPHORE}): never more permits out than the count, a dead holder's permits come
 * back after its lease, tokens rise across the semaphore, loss is reported, and the permit count is identity. A
 * backend that does not claim the capability must refuse {@code semaphore(...)} politely.
 */
public interface SemaphoreRules extends TckRules {

    private DistributedSemaphore semaphore(LockClient client, String name, int permits, LockOptions options) {
        Assumptions.assumeTrue(tck().capabilities().contains(Capability.SEMAPHORE), "backend does not claim SEMAPHORE");
        Tck.assumePrimitiveRules(tck());
        return client.semaphore(name, permits, options);
    }

    /**
     * Rule semaphore: 16 threads on 4 clients never hold more permits at once than the count (a counted register), and every grant has its own token.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("semaphore")
    @DisplayName("semaphore: 16 threads on 4 clients never hold more permits at once than the count (a counted"
            + " register), and every grant has its own token")
    default void semaphore_neverGrantsMoreThanItsPermits() throws Exception {
        String name = tck().name("counted");
        int permits = 4;
        int clients = 4;
        int threadsPerClient = 4;
        int rounds = 15;
        PermitRegister register = new PermitRegister(permits);
        List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
        LockOptions options = Tck.fastRetry(Tck.renewing(tck()));
        List<DistributedSemaphore> views = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            views.add(semaphore(tck().newClient(), name, permits, options));
        }
        ExecutorService pool = Executors.newFixedThreadPool(clients * threadsPerClient);
        List<CompletableFuture<Void>> workers = new ArrayList<>();
        try {
            for (int t = 0; t < clients * threadsPerClient; t++) {
                DistributedSemaphore view = views.get(t % clients);
                int n = t % 3 == 0 ? 2 : 1; // a mix of one- and two-permit grants
                String id = "thread-" + t;
                workers.add(CompletableFuture.runAsync(
                        () -> {
                            for (int r = 0; r < rounds; r++) {
                                try (LockHandle h = view.acquire(n, timeout())) {
                                    tokens.add(h.fencingToken());
                                    register.enter(id, n);
                                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(300)); // hold a moment
                                    register.exit(n);
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                    return;
                                }
                            }
                        },
                        pool));
            }
            CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new))
                    .get(timeout().multipliedBy(rounds).toMillis(), TimeUnit.MILLISECONDS);
        } finally {
            pool.shutdownNow();
        }
        assertEquals(
                0, register.overGrants(), () -> "more permits out than " + permits + ": " + register.firstOverGrant());
        assertEquals(clients * threadsPerClient * rounds, tokens.size(), "not every acquisition was granted");
        assertEquals(tokens.size(), tokens.stream().distinct().count(), () -> "two grants shared a token: " + tokens);
        assertTrue(
                register.most() >= 2,
                () -> "permits were never held by two grants at once (most in use: " + register.most()
                        + "): the semaphore behaved as an exclusive lock");
    }

    /**
     * Rule semaphore: every grant's fencing token is greater than every earlier grant's of the semaphore.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("semaphore")
    @DisplayName("semaphore: every grant's fencing token is greater than every earlier grant's of the semaphore")
    default void semaphore_tokensRiseAcrossTheSemaphore() throws Exception {
        String name = tck().name("tokens");
        DistributedSemaphore a = semaphore(tck().newClient(), name, 2, LockOptions.defaults());
        DistributedSemaphore b = semaphore(tck().newClient(), name, 2, LockOptions.defaults());
        List<Long> seen = new ArrayList<>();
        LockHandle first = a.tryAcquire(1).orElseThrow(() -> new AssertionError("a free semaphore refused 1 permit"));
        seen.add(first.fencingToken());
        LockHandle second = b.tryAcquire(1).orElseThrow(() -> new AssertionError("1 of 2 permits was not free"));
        seen.add(second.fencingToken());
        first.release();
        LockHandle third = b.tryAcquire(1).orElseThrow(() -> new AssertionError("a released permit was not free"));
        seen.add(third.fencingToken());
        second.release();
        third.release();
        LockHandle fourth = a.tryAcquire(2).orElseThrow(() -> new AssertionError("released permits were not free"));
        seen.add(fourth.fencingToken());
        fourth.release();
        for (int i = 1; i < seen.size(); i++) {
            int n = i;
            assertTrue(seen.get(i) > seen.get(i - 1), () -> "tokens did not rise: " + seen + " at #" + n);
        }
    }

    /**
     * Rule semaphore: release returns the permits, availablePermits() counts them, and a request for more than are free is refused.
     */
    @Test
    @Tag("semaphore")
    @DisplayName("semaphore: release returns the permits, availablePermits() counts them, and a request for more"
            + " than are free is refused")
    default void semaphore_releaseReturnsPermitsAndAvailableCountsThem() {
        String name = tck().name("count");
        DistributedSemaphore a = semaphore(tck().newClient(), name, 5, LockOptions.defaults());
        DistributedSemaphore b = semaphore(tck().newClient(), name, 5, LockOptions.defaults());
        assertEquals(5, b.availablePermits(), "a new semaphore");
        LockHandle two = a.tryAcquire(2).orElseThrow(() -> new AssertionError("2 of 5 free permits were refused"));
        assertEquals(3, b.availablePermits(), "after 2 of 5 were taken");
        assertEquals(Optional.empty(), b.tryAcquire(4), "4 permits granted while only 3 were free");
        LockHandle three = b.tryAcquire(3).orElseThrow(() -> new AssertionError("the 3 free permits were refused"));
        assertEquals(0, a.availablePermits(), "after all 5 were taken");
        assertEquals(Optional.empty(), a.tryAcquire(1), "a permit granted while none was free");
        assertTrue(two.release(), "release() of a valid grant returned false");
        assertFalse(two.release(), "a second release() returned true");
        assertEquals(2, b.availablePermits(), "after 2 were released");
        three.release();
        assertEquals(5, a.availablePermits(), "after every permit was released");
    }

    /**
     * Rule semaphore: a waiter blocked for permits gets them when enough are released.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("semaphore")
    @DisplayName("semaphore: a waiter blocked for permits gets them when enough are released")
    default void semaphore_aWaiterGetsPermitsWhenReleased() throws Exception {
        String name = tck().name("waiter");
        DistributedSemaphore holder = semaphore(tck().newClient(), name, 3, LockOptions.defaults());
        LockClient waitingClient = tck().newClient();
        DistributedSemaphore waiter = semaphore(waitingClient, name, 3, Tck.fastRetry(LockOptions.defaults()));
        LockHandle one = holder.tryAcquire(1).orElseThrow();
        LockHandle two = holder.tryAcquire(2).orElseThrow();
        CompletableFuture<LockHandle> waiting = waiter.acquireAsync(2, timeout());
        tck().awaitAskedTheStore(waitingClient);
        one.release();
        Tck.await(Duration.ofSeconds(5)).during(Duration.ofMillis(300)).until(() -> !waiting.isDone());
        long releasedAt = System.nanoTime();
        two.release();
        Duration bound = tck().settings().wakeUp().plus(tck().settings().slack());
        LockHandle got = waiting.get(bound.toMillis() + 1000, TimeUnit.MILLISECONDS);
        long took = System.nanoTime() - releasedAt;
        got.release();
        assertTrue(
                took <= bound.toNanos(),
                () -> "the waiter got its permits " + Tck.millis(took) + " ms after they were released; the bound is "
                        + bound.toMillis() + " ms");
    }

    /** Rule semaphore: a crashed holder's permits come back within its lease (or session timeout) plus slack. */
    @Test
    @Tag("semaphore")
    @DisplayName("semaphore: a crashed holder's permits come back within its lease (or session timeout) plus slack")
    default void semaphore_deadHoldersPermitsReturnAfterItsLease() {
        String name = tck().name("orphan");
        LockClient dying = tck().newClient();
        DistributedSemaphore holder = semaphore(dying, name, 2, Tck.renewing(tck()));
        DistributedSemaphore waiter = semaphore(tck().newClient(), name, 2, Tck.fastRetry(LockOptions.defaults()));
        LockHandle h = holder.tryAcquire(2).orElseThrow(() -> new AssertionError("2 free permits were refused"));
        assertEquals(Optional.empty(), waiter.tryAcquire(1), "a permit granted while the holder had both");
        long crashedAt = System.nanoTime();
        tck().crash(dying);
        Duration bound = tck().settings().shortLease().plus(tck().settings().slack());
        LockHandle next;
        try {
            next = waiter.tryAcquire(2, bound.plus(Duration.ofSeconds(1)))
                    .orElseThrow(() -> new AssertionError(
                            "the crashed holder's permits (token " + h.fencingToken() + ") did not come back within "
                                    + bound.plusSeconds(1).toMillis() + " ms"));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
        long took = System.nanoTime() - crashedAt;
        next.release();
        assertTrue(
                took <= bound.toNanos(),
                () -> "the crashed holder's permits came back after " + Tck.millis(took) + " ms; lease + slack allows "
                        + bound.toMillis() + " ms");
        assertTrue(next.fencingToken() > h.fencingToken(), "the next grant's token did not rise");
    }

    /** Rule semaphore: a grant that is not renewed is reported lost, and is invalid by its validUntil. */
    @Test
    @Tag("semaphore")
    @DisplayName("semaphore: a grant that is not renewed is reported lost, and is invalid by its validUntil")
    default void semaphore_lossIsReported() {
        String name = tck().name("loss");
        DistributedSemaphore s = semaphore(tck().newClient(), name, 2, Tck.expiring(tck()));
        LockHandle h = s.tryAcquire(1).orElseThrow(() -> new AssertionError("a free permit was refused"));
        java.time.Instant validUntil = h.validUntil();
        LockLoss loss = Tck.awaitLoss(
                h, tck().settings().shortLease().plus(tck().settings().slack()), "its lease ran out unrenewed");
        assertEquals(LockLoss.Reason.EXPIRED, loss.reason());
        assertFalse(h.isValid(), "the grant stayed valid after its loss");
        assertFalse(
                loss.at().isAfter(validUntil.plus(tck().settings().slack())),
                () -> "the loss was reported at " + loss.at() + ", well after validUntil " + validUntil);
    }

    /** Rule semaphore: the permit count is identity: another count for the same name is refused and changes nothing. */
    @Test
    @Tag("semaphore")
    @DisplayName("semaphore: the permit count is identity: another count for the same name is refused and changes"
            + " nothing")
    default void semaphore_anotherPermitCountIsRefused() {
        String name = tck().name("identity");
        DistributedSemaphore three = semaphore(tck().newClient(), name, 3, LockOptions.defaults());
        LockHandle h = three.tryAcquire(1).orElseThrow(() -> new AssertionError("a free permit was refused"));
        DistributedSemaphore four = tck().newClient().semaphore(name, 4);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> four.tryAcquire(1));
        assertTrue(
                e.getMessage().contains("3")
                        && e.getMessage().contains("4")
                        && e.getMessage().contains(name),
                () -> "the refusal should name the semaphore and both counts: " + e.getMessage());
        assertEquals(2, three.availablePermits(), "a refused request changed the semaphore");
        h.release();
    }

    /** Rule semaphore: bad counts and options are rejected before the store is touched. */
    @Test
    @Tag("semaphore")
    @DisplayName("semaphore: bad counts and options are rejected before the store is touched")
    default void semaphore_badInputIsRejected() {
        LockClient client = tck().newClient();
        String name = tck().name("bad-input");
        semaphore(client, name, 1, LockOptions.defaults()); // skips unless SEMAPHORE is claimed
        assertThrows(IllegalArgumentException.class, () -> client.semaphore(name, 0));
        assertThrows(IllegalArgumentException.class, () -> client.semaphore(name, 10_001));
        assertThrows(IllegalArgumentException.class, () -> client.semaphore("bad\u0001name", 2));
        assertThrows(
                IllegalArgumentException.class,
                () -> client.semaphore(
                        name,
                        2,
                        LockOptions.builder().reentrancy(Reentrancy.PER_THREAD).build()));
        DistributedSemaphore two = client.semaphore(name, 2);
        assertThrows(IllegalArgumentException.class, () -> two.tryAcquire(0));
        assertThrows(IllegalArgumentException.class, () -> two.tryAcquire(3));
        // nothing was stored: a view with another count is still accepted
        tck().newClient().semaphore(name, 7).tryAcquire(7).orElseThrow().release();
    }

    /** Rule semaphore: a backend that does not claim SEMAPHORE refuses semaphore() politely, naming itself. */
    @Test
    @Tag("semaphore")
    @DisplayName("semaphore: a backend that does not claim SEMAPHORE refuses semaphore() politely, naming itself")
    default void semaphore_refusedPolitelyWithoutTheCapability() {
        Assumptions.assumeFalse(
                tck().capabilities().contains(Capability.SEMAPHORE), "backend claims SEMAPHORE: its rules run");
        LockClient client = tck().newClient();
        UnsupportedOperationException e =
                assertThrows(UnsupportedOperationException.class, () -> client.semaphore(tck().name("refused"), 2));
        assertTrue(
                e.getMessage().contains("SEMAPHORE") && e.getMessage().contains(client.backend()),
                () -> "the refusal should name the capability and the backend: " + e.getMessage());
    }

    private Duration timeout() {
        return tck().settings().shortLease().multipliedBy(4).plus(Duration.ofSeconds(10));
    }
}

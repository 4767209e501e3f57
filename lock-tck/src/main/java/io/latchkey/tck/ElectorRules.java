package io.latchkey.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LockClient;
import io.latchkey.LockOptions;
import io.latchkey.recipes.ElectionListener;
import io.latchkey.recipes.Elector;
import io.latchkey.recipes.Revocation;
import io.latchkey.recipes.Term;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The elector recipe ({@code io.latchkey.recipes.Elector}) on this backend: one leader at a time, terms that rise,
 * relinquish that hands over, loss that revokes no later than the term's validity, and a killed leader replaced.
 * The recipe comes from {@link #newElector}, which the TCK's self-test overrides with broken electors.
 */
public interface ElectorRules extends TckRules {

    /**
     * The elector under test; the self-test overrides it with broken ones.
     *
     * @param client the client the elector uses
     * @param name the election's name
     * @param options the election lock's options
     * @param backoff how long a relinquished instance stays out
     * @param listener the election listener
     * @return the elector, not started
     */
    default Elector newElector(
            LockClient client, String name, LockOptions options, Duration backoff, ElectionListener listener) {
        return Elector.builder(client, name)
                .options(options)
                .relinquishBackoff(backoff)
                .listener(listener, Runnable::run)
                .build();
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

    private Elector started(LockClient client, String name, Duration backoff, ElectionListener listener) {
        Elector e = newElector(client, name, Tck.renewing(tck()), backoff, listener);
        e.start();
        return e;
    }

    /**
     * Rule recipe elector: one leader at a time, and every term's token is greater than the last.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("elector")
    @DisplayName("recipe elector: one leader at a time, and every term's token is greater than the last")
    default void elector_oneLeaderAtATimeAndTermsRise() throws Exception {
        assumeRecipeRules();
        String name = tck().name("one-leader");
        OverlapDetector leaders = new OverlapDetector();
        LostUpdateRegister register = new LostUpdateRegister();
        List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger terms = new AtomicInteger();
        int wanted = 6;
        int updatesPerTerm = 20;
        // a term's section is short, so besides the detector each leader asks the other electors directly
        List<String> alsoLeading = Collections.synchronizedList(new ArrayList<>());
        List<Elector> electors = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            electors.add(started(tck().newClient(), name, Duration.ofMillis(50), new ElectionListener() {}));
        }
        List<CompletableFuture<Void>> workers = new ArrayList<>();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(3);
        for (int i = 0; i < 3; i++) {
            Elector e = electors.get(i);
            String id = "elector-" + i;
            workers.add(CompletableFuture.runAsync(
                    () -> {
                        try {
                            while (terms.get() < wanted) {
                                Optional<Term> term = e.awaitLeadership(Duration.ofMillis(200));
                                if (term.isEmpty()) {
                                    continue;
                                }
                                leaders.enter(id);
                                tokens.add(term.get().fencingToken());
                                for (int o = 0; o < electors.size(); o++) {
                                    if (electors.get(o) != e && electors.get(o).isLeader()) {
                                        alsoLeading.add("elector-" + o + " during " + id + "'s term " + term.get());
                                    }
                                }
                                for (int u = 0; u < updatesPerTerm; u++) {
                                    register.increment();
                                }
                                terms.incrementAndGet();
                                leaders.exit(id);
                                e.relinquish();
                            }
                        } catch (InterruptedException ex) {
                            Thread.currentThread().interrupt();
                        }
                    },
                    pool));
        }
        try {
            CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new))
                    .get(timeout().multipliedBy(wanted).toMillis(), TimeUnit.MILLISECONDS);
        } finally {
            electors.forEach(Elector::close);
            pool.shutdownNow();
        }
        assertEquals(0, leaders.overlaps(), () -> "two leaders at once: " + leaders.firstOverlap());
        assertEquals(List.of(), alsoLeading, "two leaders at once: another elector said isLeader()");
        assertEquals((long) terms.get() * updatesPerTerm, register.value(), "lost updates between leaders");
        for (int i = 1; i < tokens.size(); i++) {
            int n = i;
            assertTrue(tokens.get(i) > tokens.get(i - 1), () -> "term tokens did not rise: " + tokens + " at #" + n);
        }
    }

    /**
     * Rule recipe elector: relinquish hands leadership over, and the relinquisher stays out for its back-off.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("elector")
    @DisplayName("recipe elector: relinquish hands leadership over, and the relinquisher stays out for its back-off")
    default void elector_relinquishHandsOverAndStaysOut() throws Exception {
        assumeRecipeRules();
        String name = tck().name("relinquish");
        Duration backoff = tck().settings().wakeUp().plus(tck().settings().slack()); // longer than a hand-over
        Elector first = started(tck().newClient(), name, backoff, new ElectionListener() {});
        Term firstTerm = first.awaitLeadership(timeout())
                .orElseThrow(() -> new AssertionError("a lone elector was not elected within " + timeout()));
        Elector second = started(tck().newClient(), name, backoff, new ElectionListener() {});
        assertFalse(second.awaitLeadership(Duration.ofMillis(300)).isPresent(), "two leaders before relinquish");
        long relinquishedAt = System.nanoTime();
        first.relinquish();
        assertFalse(first.isLeader(), "isLeader() still true after relinquish() returned");
        Term secondTerm = second.awaitLeadership(timeout())
                .orElseThrow(() -> new AssertionError("relinquish did not hand leadership over within " + timeout()));
        assertTrue(secondTerm.fencingToken() > firstTerm.fencingToken(), "the new term's token did not rise");
        second.close();
        // `first` is still in its back-off: nobody may lead until it ends
        Optional<Term> early = first.awaitLeadership(backoff.minus(Duration.ofNanos(System.nanoTime() - relinquishedAt))
                .minusMillis(200));
        assertFalse(early.isPresent(), "the relinquisher re-entered the election before its back-off ended");
        Term again = first.awaitLeadership(timeout())
                .orElseThrow(() -> new AssertionError("the relinquisher did not re-enter after its back-off"));
        assertTrue(again.fencingToken() > secondTerm.fencingToken(), "the next term's token did not rise");
        first.close();
    }

    /**
     * Rule recipe elector: a lost lock revokes the term (LOST) and the elector re-enters by itself.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("elector")
    @DisplayName("recipe elector: a lost lock revokes the term (LOST) and the elector re-enters by itself")
    default void elector_lossRevokesAndTheElectorReenters() throws Exception {
        assumeRecipeRules();
        String name = tck().name("loss");
        List<String> events = new CopyOnWriteArrayList<>();
        CompletableFuture<Revocation> revoked = new CompletableFuture<>();
        Elector elector = started(tck().newClient(), name, Duration.ofMillis(50), new ElectionListener() {
            @Override
            public void onElected(Term term) {
                events.add("elected " + term.fencingToken());
            }

            @Override
            public void onRevoked(Term term, Revocation why) {
                events.add("revoked " + term.fencingToken() + " " + why.reason());
                revoked.complete(why);
            }
        });
        Term term = elector.awaitLeadership(timeout())
                .orElseThrow(() -> new AssertionError("a lone elector was not elected within " + timeout()));
        Tck.forceRelease(tck().newClient(), name);
        Revocation why = revoked.get(timeout().toMillis(), TimeUnit.MILLISECONDS);
        assertEquals(Revocation.Reason.LOST, why.reason(), () -> "events: " + events);
        assertFalse(term.isCurrent(), "the revoked term still says it is current");
        Term next = elector.awaitLeadership(timeout().multipliedBy(2))
                .orElseThrow(
                        () -> new AssertionError("the elector did not re-enter after its loss; events: " + events));
        assertTrue(next.fencingToken() > term.fencingToken(), "the re-election's token did not rise");
        elector.close();
    }

    /**
     * Rule recipe elector: during an outage the leader stops leading no later than its term's validUntil.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("elector")
    @DisplayName("recipe elector: during an outage the leader stops leading no later than its term's validUntil")
    default void elector_outageEndsLeadershipNoLaterThanValidUntil() throws Exception {
        assumeRecipeRules();
        String name = tck().name("outage");
        CompletableFuture<Revocation> revoked = new CompletableFuture<>();
        LockClient client = tck().newClient();
        Elector elector = started(client, name, Duration.ofMillis(50), new ElectionListener() {
            @Override
            public void onRevoked(Term term, Revocation why) {
                revoked.complete(why);
            }
        });
        Term term = elector.awaitLeadership(timeout())
                .orElseThrow(() -> new AssertionError("a lone elector was not elected within " + timeout()));
        Instant lastValidUntil;
        Instant stoppedLeading;
        try (AutoCloseable outage = tck().faults().outage()) {
            // poll: the instant isLeader() turns false, against the validity the term had then
            Instant validUntil = term.validUntil();
            long deadline = System.nanoTime() + timeout().multipliedBy(2).toNanos();
            while (elector.isLeader() && System.nanoTime() < deadline) {
                validUntil = term.validUntil();
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1)); // the sampling interval of this measurement
            }
            stoppedLeading = Instant.now();
            lastValidUntil = validUntil;
            assertFalse(elector.isLeader(), "still leading " + timeout().multipliedBy(2) + " into an outage");
            Revocation why = revoked.get(timeout().toMillis(), TimeUnit.MILLISECONDS);
            assertEquals(Revocation.Reason.LOST, why.reason());
        }
        long marginMillis = Duration.between(stoppedLeading, lastValidUntil).toMillis();
        Tck.figure(
                "FIGURE elector loss detection on {}: stopped leading {} ms before validUntil",
                tck().newClient().backend(),
                marginMillis);
        assertTrue(
                marginMillis >= -50, () -> "the leader still led " + -marginMillis + " ms after its term's validUntil");
        elector.close();
    }

    /**
     * Rule recipe elector: close revokes the term (CLOSED) and frees the election for another elector.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("elector")
    @DisplayName("recipe elector: close revokes the term (CLOSED) and frees the election for another elector")
    default void elector_closeRevokesAndReleases() throws Exception {
        assumeRecipeRules();
        String name = tck().name("close");
        CompletableFuture<Revocation> revoked = new CompletableFuture<>();
        Elector first = started(tck().newClient(), name, Duration.ofMillis(50), new ElectionListener() {
            @Override
            public void onRevoked(Term term, Revocation why) {
                revoked.complete(why);
            }
        });
        Term term = first.awaitLeadership(timeout()).orElseThrow(() -> new AssertionError("not elected"));
        Elector second = started(tck().newClient(), name, Duration.ofMillis(50), new ElectionListener() {});
        assertFalse(second.awaitLeadership(Duration.ofMillis(300)).isPresent(), "two leaders at once");
        first.close();
        assertEquals(
                Revocation.Reason.CLOSED,
                revoked.get(timeout().toMillis(), TimeUnit.MILLISECONDS).reason());
        assertFalse(first.isLeader());
        Term next = second.awaitLeadership(
                        tck().settings().wakeUp().plus(tck().settings().slack()))
                .orElseThrow(() -> new AssertionError("close() did not free the election promptly"));
        assertTrue(next.fencingToken() > term.fencingToken());
        second.close();
    }

    /**
     * Rule recipe elector (separate JVMs): a leader killed with SIGKILL is replaced within its lease plus one renewal interval.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("elector")
    @DisplayName("recipe elector (separate JVMs): a leader killed with SIGKILL is replaced within its lease plus one"
            + " renewal interval")
    default void elector_killedLeaderProcessIsReplaced() throws Exception {
        assumeRecipeRules();
        String name = tck().name("killed-leader");
        LockOptions options = Tck.renewing(tck());
        TckProcess child = tck().startProcess(
                        ElectorProcess.class,
                        name,
                        Long.toString(options.lease().toMillis()));
        long childToken = Long.parseLong(child.awaitLine("ELECTED ", Duration.ofSeconds(60))
                .substring("ELECTED ".length())
                .trim());
        LockClient client = tck().newClient();
        Elector survivor = started(client, name, Duration.ofMillis(50), new ElectionListener() {});
        assertFalse(survivor.awaitLeadership(Duration.ofMillis(300)).isPresent(), "two leaders at once");
        child.kill();
        long killedAt = System.nanoTime();
        // session stores free the lock when the dead process's session ends (ZooKeeper: its session timeout)
        Duration bound = options.lease()
                .plus(options.renewInterval())
                .plus(tck().settings().slack())
                .plus(tck().settings().wakeUp())
                .plus(ProcessFaultBounds.sessionAllowance(tck()));
        Term term = survivor.awaitLeadership(bound)
                .orElseThrow(() -> new AssertionError("no new leader within " + bound + " of the leader's SIGKILL"));
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
        Tck.figure(
                "FIGURE elector failover after SIGKILL on {}: {} ms (lease {} ms, renew interval {} ms)",
                tck().newClient().backend(),
                tookMillis,
                options.lease().toMillis(),
                options.renewInterval().toMillis());
        assertTrue(term.fencingToken() > childToken, "the new term's token did not rise above the killed leader's");
        survivor.close();
    }
}

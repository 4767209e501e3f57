package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.BackendUnavailableException;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockLoss;
import io.latchkey.LockOptions;
import io.latchkey.mem.MemoryStore;
import io.latchkey.spi.Grant;
import io.latchkey.spi.RenewResult;
import io.latchkey.testing.ForwardingBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.time.Instant;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The background renewals of a backend that renews in batches (RenewalBatcher): locks taken together are renewed
 * together in few calls, each grant gets its own result, an outage of a batch is retried for each grant, and a batch
 * that fails in a way that cannot be trusted (an Error, an answer of the wrong length) ends every grant in it at once.
 */
class RenewalBatcherTest {
    private static final int LOCKS = 40;
    private static final LockOptions SHORT = LockOptions.builder()
            .lease(Duration.ofMillis(900))
            .renewInterval(Duration.ofMillis(300))
            .build();

    private final MemoryStore store = new MemoryStore();
    /** The size of every renewAll call, in order. */
    private final List<Integer> batches = new CopyOnWriteArrayList<>();

    private final AtomicInteger singleRenewals = new AtomicInteger();
    /** A lock whose renewals the store answers "not held" (without telling its holder otherwise), or null. */
    private volatile String refused;
    /** A lock whose renewals the store leaves undecided (a null answer), or null. */
    private volatile String undecided;
    /** Replaces the store's answer to a batch when set. */
    private volatile BiFunction<List<Grant>, List<Duration>, List<@org.jspecify.annotations.Nullable RenewResult>>
            batchAnswer;

    private final LockClient client = Latchkey.client(new ForwardingBackend(store.newBackend()) {
        @Override
        public int renewalBatchSize() {
            return 64;
        }

        @Override
        public List<@org.jspecify.annotations.Nullable RenewResult> renewAll(
                List<Grant> grants, List<Duration> leases) {
            batches.add(grants.size());
            BiFunction<List<Grant>, List<Duration>, List<@org.jspecify.annotations.Nullable RenewResult>> answer =
                    batchAnswer;
            if (answer != null) {
                return answer.apply(grants, leases);
            }
            List<@org.jspecify.annotations.Nullable RenewResult> out = new ArrayList<>();
            for (int i = 0; i < grants.size(); i++) {
                String name = grants.get(i).name();
                out.add(
                        name.equals(refused)
                                ? RenewResult.notHeld()
                                : name.equals(undecided) ? null : super.renew(grants.get(i), leases.get(i)));
            }
            return out;
        }

        @Override
        public RenewResult renew(Grant grant, Duration lease) {
            singleRenewals.incrementAndGet();
            return super.renew(grant, lease);
        }
    });
    private final LockClient other = Latchkey.client(store.newBackend());

    /** Keeps a batch that hangs (see aBatchThatHangsEndsItsGrantsAtTheirLossDeadline) hanging until the test ends. */
    private final CountDownLatch hang = new CountDownLatch(1);

    @AfterEach
    void close() {
        hang.countDown();
        client.close();
        other.close();
    }

    private List<LockHandle> holdMany(String prefix) {
        List<LockHandle> held = new ArrayList<>();
        for (int i = 0; i < LOCKS; i++) {
            held.add(client.lock(prefix + i, SHORT).tryAcquire().orElseThrow());
        }
        return held;
    }

    @Test
    @DisplayName("locks taken together are renewed together: few calls for many grants, every lock kept and exclusive")
    void locksTakenTogetherAreRenewedInFewCalls() {
        List<LockHandle> held = holdMany("together/");
        await().atMost(Duration.ofSeconds(5)).until(() -> batches.stream().mapToInt(Integer::intValue).sum()
                >= 3 * LOCKS); // three renewals of every lock: past three renew intervals, beyond the first lease
        assertThat(held).allMatch(LockHandle::isValid);
        assertThat(held).noneMatch(h -> h.lost().toCompletableFuture().isDone());
        for (LockHandle h : held) {
            assertThat(other.lock(h.name()).tryAcquire()).as("lock %s is still held in the store", h.name())
                    .isEmpty();
        }
        assertThat(singleRenewals.get()).as("renewals sent one by one").isZero();
        double average = batches.stream().mapToInt(Integer::intValue).average().orElse(0);
        assertThat(average)
                .as("grants per renewAll call (calls: %s)", batches)
                .isGreaterThanOrEqualTo(LOCKS / 4.0);
    }

    @Test
    @DisplayName("a slot holding more grants than one batch is split over several calls: none larger than the backend's"
            + " batch size, every grant renewed and kept")
    void aSlotLargerThanABatchIsSplitOverCalls() {
        int many = 3 * 64 + 5;
        List<LockHandle> held = new ArrayList<>();
        for (int i = 0; i < many; i++) {
            held.add(client.lock("split/" + i, SHORT).tryAcquire().orElseThrow());
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> batches.stream().mapToInt(Integer::intValue).sum()
                >= 3 * many); // three renewals of every lock: the later ones come from shared slots
        assertThat(batches).as("grants per renewAll call").allMatch(size -> size <= 64);
        assertThat(batches.stream().filter(size -> size == 64).count())
                .as("full calls: a slot's grants were split (calls: %s)", batches)
                .isGreaterThanOrEqualTo(4);
        assertThat(held).allMatch(LockHandle::isValid);
        assertThat(singleRenewals.get()).as("renewals sent one by one").isZero();
        for (LockHandle h : held) {
            assertThat(other.lock(h.name()).tryAcquire()).as("lock %s is still held in the store", h.name())
                    .isEmpty();
        }
    }

    @Test
    @DisplayName("a grant renewed in a batch waits for its next renewal in a shared slot: no timer per grant per renewal")
    void nextRenewalsShareOneTimerPerSlot() {
        LockOptions often = LockOptions.builder()
                .lease(Duration.ofMillis(1500))
                .renewInterval(Duration.ofMillis(150))
                .build();
        List<LockHandle> held = new ArrayList<>();
        for (int i = 0; i < LOCKS; i++) {
            held.add(client.lock("slots/" + i, often).tryAcquire().orElseThrow());
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> renewed() >= LOCKS); // the first round: one timer each
        // each renewal armed and ran its own timer before: at least one task per renewal. Now a slot's one timer
        // serves its grants, and the slot watches their loss deadlines too (see the next test).
        timerTasksPerRenewal().isLessThan(0.5);
        assertThat(held).allMatch(LockHandle::isValid);
        assertThat(singleRenewals.get()).as("renewals sent one by one").isZero();
    }

    @Test
    @DisplayName("a grant renewed in batches has no timer of its own: its slot watches its loss deadline, and no grant's"
            + " loss timer runs once per lease")
    void aGrantRenewedInBatchesHasNoTimerOfItsOwn() {
        List<LockHandle> held = holdMany("watched/");
        await().atMost(Duration.ofSeconds(5)).until(() -> renewed() >= 2 * LOCKS); // past the first batched renewal
        // a loss timer per grant, re-armed when it fires once per lease (900 ms, renewed every 300), runs about once
        // per three renewals; the slot's two timers (its start and, cancelled when every answer came, its loss
        // deadline) serve all forty grants taken together
        timerTasksPerRenewal().isLessThan(0.15);
        assertThat(held).allMatch(LockHandle::isValid);
    }

    @Test
    @DisplayName("a batch that hangs in the store: every grant waiting for its answer is lost by its validity's end,"
            + " as RENEWAL_FAILED, though its slot has already fired")
    void aBatchThatHangsEndsItsGrantsAtTheirLossDeadline() {
        List<LockHandle> held = holdMany("hang/");
        await().atMost(Duration.ofSeconds(5)).until(() -> renewed() >= 2 * LOCKS); // the slots watch them now
        batchAnswer = (grants, leases) -> {
            try {
                hang.await(); // a store call stuck in I/O, until the test ends
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new BackendUnavailableException("store hung (expected in this test)", null, "mem", null);
        };
        await().atMost(Duration.ofSeconds(5))
                .until(() -> held.stream().allMatch(h -> h.lost().toCompletableFuture().isDone()));
        for (LockHandle h : held) {
            LockLoss loss = h.lost().toCompletableFuture().join();
            assertThat(loss.reason()).as("%s", h.name()).isEqualTo(LockLoss.Reason.RENEWAL_FAILED);
            Instant validUntil = h.validUntil(); // its last validity: nothing renewed it after the loss
            assertThat(loss.at())
                    .as("%s reported lost at its loss deadline (validity minus 90 ms), not after its validity", h.name())
                    .isBeforeOrEqualTo(validUntil.plusMillis(200));
        }
    }

    @Test
    @DisplayName("locks taken one by one across a renew interval still renew in few calls: every renewal is on the "
            + "batcher's grid, at most interval / step + 1 calls per round")
    void locksTakenAtDifferentMomentsRenewOnTheSharedGrid() {
        LockOptions spread = LockOptions.builder()
                .lease(Duration.ofMillis(2400))
                .renewInterval(Duration.ofMillis(800))
                .build();
        long step = RenewalBatcher.gridStep(spread.renewInterval().toNanos());
        assertThat(step).isEqualTo(Duration.ofMillis(80).toNanos());
        List<LockHandle> held = new ArrayList<>();
        for (int i = 0; i < LOCKS; i++) {
            held.add(client.lock("spread/" + i, spread).tryAcquire().orElseThrow());
            // a workload shape, not synchronisation: one lock every 20 ms, twice the batcher's 10 ms gather, so
            // that without the grid no two first renewals would share a call
            long begin = System.nanoTime();
            await().pollDelay(Duration.ofMillis(20)).until(() -> System.nanoTime() - begin >= 20_000_000L);
        }
        long callsBefore = batches.size();
        long renewalsBefore = renewed();
        await().atMost(Duration.ofSeconds(20)).until(() -> renewed() - renewalsBefore >= 3 * LOCKS);
        long calls = batches.size() - callsBefore;
        long rounds = (renewed() - renewalsBefore + LOCKS - 1) / LOCKS;
        long perRound = spread.renewInterval().toNanos() / step + 1;
        assertThat(calls)
                .as("renewAll calls for %d rounds of %d locks taken 20 ms apart (calls: %s)", rounds, LOCKS, batches.subList((int) callsBefore, batches.size()))
                .isLessThanOrEqualTo((rounds + 1) * perRound);
        assertThat(held).allMatch(LockHandle::isValid);
        assertThat(singleRenewals.get()).as("renewals sent one by one").isZero();
    }

    @Test
    @DisplayName("the renewal grid: 10 ms times a power of two, at most an eighth of the interval; none below 80 ms")
    void theGridStepIsAtMostAnEighthOfTheInterval() {
        assertThat(RenewalBatcher.gridStep(Duration.ofMillis(79).toNanos())).isEqualTo(1);
        assertThat(RenewalBatcher.gridStep(Duration.ofMillis(80).toNanos())).isEqualTo(Duration.ofMillis(10).toNanos());
        assertThat(RenewalBatcher.gridStep(Duration.ofMillis(1000).toNanos())).isEqualTo(Duration.ofMillis(80).toNanos());
        assertThat(RenewalBatcher.gridStep(Duration.ofSeconds(10).toNanos())).isEqualTo(Duration.ofMillis(640).toNanos());
    }

    /** The timer tasks the client ran per background renewal over the next six rounds of every lock, to assert on. */
    private org.assertj.core.api.AbstractDoubleAssert<?> timerTasksPerRenewal() {
        DeadlineTimer timer = ((CoreLockClient) client).executors.scheduler;
        long tasksBefore = timer.ranCount();
        long renewalsBefore = renewed();
        await().atMost(Duration.ofSeconds(10)).until(() -> renewed() - renewalsBefore >= 6 * LOCKS);
        long tasks = timer.ranCount() - tasksBefore;
        long renewals = renewed() - renewalsBefore;
        return assertThat((double) tasks / renewals).as("timer tasks (%d) per background renewal (%d)", tasks, renewals);
    }

    private long renewed() {
        return batches.stream().mapToInt(Integer::intValue).sum();
    }

    @Test
    @DisplayName("each grant gets its own answer: the one a batch answers 'not held' is lost, the others are kept")
    void eachGrantGetsItsOwnAnswer() {
        List<LockHandle> held = holdMany("own/");
        LockHandle victim = held.get(LOCKS / 2);
        refused = victim.name();
        await().atMost(Duration.ofSeconds(5)).until(() -> victim.lost().toCompletableFuture().isDone());
        assertThat(victim.lost().toCompletableFuture().join().reason()).isEqualTo(LockLoss.Reason.RELEASED_BY_ADMIN);
        int after = batches.size();
        await().atMost(Duration.ofSeconds(5)).until(() -> batches.size() >= after + 2);
        held.stream().filter(h -> h != victim).forEach(h -> {
            assertThat(h.isValid()).as("%s", h.name()).isTrue();
            assertThat(h.lost().toCompletableFuture()).as("%s", h.name()).isNotDone();
        });
    }

    @Test
    @DisplayName("a grant the store could not decide is an outage for it alone: it is lost when its validity ends, the"
            + " others of its batches are kept")
    void anUndecidedGrantFailsAlone() {
        List<LockHandle> held = holdMany("undecided/");
        LockHandle victim = held.get(LOCKS / 3);
        undecided = victim.name();
        await().atMost(Duration.ofSeconds(5)).until(() -> victim.lost().toCompletableFuture().isDone());
        LockLoss loss = victim.lost().toCompletableFuture().join();
        assertThat(loss.reason()).isEqualTo(LockLoss.Reason.RENEWAL_FAILED);
        assertThat(loss.failure()).isPresent().get().isInstanceOf(BackendUnavailableException.class);
        assertThat(loss.failure().get().getMessage()).contains("could not decide the renewal of lock '" + victim.name());
        held.stream().filter(h -> h != victim).forEach(h -> {
            assertThat(h.isValid()).as("%s", h.name()).isTrue();
            assertThat(h.lost().toCompletableFuture()).as("%s", h.name()).isNotDone();
        });
    }

    @Test
    @DisplayName("a batch the store could not answer is retried for each grant, which keeps its lock once it answers")
    void anOutageOfABatchIsRetried() {
        List<LockHandle> held = holdMany("outage/");
        AtomicInteger failed = new AtomicInteger();
        batchAnswer = (grants, leases) -> {
            failed.incrementAndGet();
            throw new BackendUnavailableException("store away (expected in this test)", null, "mem", null);
        };
        await().atMost(Duration.ofSeconds(5)).until(() -> failed.get() >= 1);
        batchAnswer = null;
        int after = batches.size();
        await().atMost(Duration.ofSeconds(5)).until(() -> batches.size() >= after + 3);
        assertThat(held).allMatch(LockHandle::isValid);
        assertThat(held).noneMatch(h -> h.lost().toCompletableFuture().isDone());
    }

    @Test
    @DisplayName("an outage that outlasts the validity ends every grant of the batch as RENEWAL_FAILED, with the cause")
    void aLongOutageEndsEveryGrant() {
        List<LockHandle> held = holdMany("long/");
        batchAnswer = (grants, leases) -> {
            throw new BackendUnavailableException("store away (expected in this test)", null, "mem", null);
        };
        await().atMost(Duration.ofSeconds(5))
                .until(() -> held.stream().allMatch(h -> h.lost().toCompletableFuture().isDone()));
        for (LockHandle h : held) {
            LockLoss loss = h.lost().toCompletableFuture().join();
            assertThat(loss.reason()).isEqualTo(LockLoss.Reason.RENEWAL_FAILED);
            assertThat(loss.failure()).isPresent().get().isInstanceOf(BackendUnavailableException.class);
        }
    }

    @Test
    @DisplayName("an answer of the wrong length cannot be trusted: every grant of the batch is lost at once")
    void aWrongNumberOfAnswersEndsEveryGrantAtOnce() {
        List<LockHandle> held = holdMany("wrong/");
        // no answer at all: wrong for a batch of any size (one answer was right for a batch of one, which a grant
        // acquired across a grid step from the others could be, and that grant was then renewed for good)
        batchAnswer = (grants, leases) -> List.of();
        await().atMost(Duration.ofSeconds(5))
                .until(() -> held.stream().allMatch(h -> h.lost().toCompletableFuture().isDone()));
        LockLoss loss = held.get(0).lost().toCompletableFuture().join();
        assertThat(loss.reason()).isEqualTo(LockLoss.Reason.RENEWAL_FAILED);
        assertThat(loss.failure()).isPresent().get().isInstanceOf(IllegalStateException.class);
        assertThat(loss.failure().get().getMessage()).contains("answered 0 results to a batch of");
    }

    @Test
    @DisplayName("an Error from a batch ends every grant in it at once")
    void anErrorEndsEveryGrantAtOnce() {
        List<LockHandle> held = holdMany("error/");
        batchAnswer = (grants, leases) -> {
            throw new AssertionError("a bug in the backend (expected in this test)");
        };
        await().atMost(Duration.ofSeconds(5))
                .until(() -> held.stream().allMatch(h -> h.lost().toCompletableFuture().isDone()));
        assertThat(held.get(0).lost().toCompletableFuture().join().failure())
                .isPresent()
                .get()
                .isInstanceOf(AssertionError.class);
    }
}

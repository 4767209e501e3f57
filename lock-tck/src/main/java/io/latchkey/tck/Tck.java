package io.latchkey.tck;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.DistributedLock;
import io.latchkey.LockHandle;
import io.latchkey.LockOptions;
import io.latchkey.RetryStrategy;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.Assumptions;

/** Helpers shared by the rule groups. */
final class Tck {
    private Tck() {}

    /**
     * Awaitility with a fine poll interval, for conditions that should hold soon. It does not fail on another
     * thread's uncaught exception (Awaitility's default): in a JVM that runs many rules, that thread may belong to
     * an earlier rule's recipe, and a rule must fail for what it checks.
     */
    static ConditionFactory await(Duration atMost) {
        return Awaitility.await()
                .dontCatchUncaughtExceptions()
                .atMost(atMost)
                .pollInterval(Duration.ofMillis(5))
                .pollDelay(Duration.ZERO);
    }

    /** Options with the TCK's short lease and no renewal: a grant that expires by itself. */
    /**
     * Asserts that {@code condition} holds now and for all of {@code during}; if it does not, fails with
     * {@code otherwise} (what went wrong) rather than Awaitility's timeout.
     */
    static void staysTrue(Duration during, java.util.concurrent.Callable<Boolean> condition, String otherwise) {
        // polled by hand rather than with Awaitility's during(): that one keeps polling until its atMost after the
        // condition turned false, and a rule must fail as soon as it knows
        long end = System.nanoTime() + during.toNanos();
        while (true) {
            boolean holds;
            try {
                holds = condition.call();
            } catch (Exception e) {
                throw new AssertionError(otherwise + " (the check itself failed)", e);
            }
            if (!holds) {
                throw new AssertionError(otherwise);
            }
            if (System.nanoTime() - end >= 0) {
                return;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    static LockOptions expiring(TckContext tck) {
        return LockOptions.builder()
                .lease(tck.settings().shortLease())
                .autoRenew(false)
                .build();
    }

    /** Options with the short lease, renewed automatically. */
    static LockOptions renewing(TckContext tck) {
        return LockOptions.builder().lease(tck.settings().shortLease()).build();
    }

    /** Fast polling, so waiting tests measure the backend rather than the default backoff. */
    static LockOptions fastRetry(LockOptions base) {
        return base.toBuilder()
                .retry(RetryStrategy.exponential(Duration.ofMillis(1), Duration.ofMillis(20)))
                .build();
    }

    static LockHandle mustAcquire(DistributedLock lock) {
        Optional<LockHandle> h = lock.tryAcquire();
        assertTrue(h.isPresent(), () -> "expected to acquire free lock '" + lock.name() + "' at once, but it was busy");
        return h.get();
    }

    /**
     * Asserts that another client cannot take the lock now: the precondition that makes a "then it is released"
     * rule mean something (a store that grants everything would otherwise pass it).
     */
    static void mustBeBusy(DistributedLock lock, String held) {
        Optional<LockHandle> h = lock.tryAcquire();
        h.ifPresent(LockHandle::release);
        assertTrue(h.isEmpty(), () -> "another client acquired '" + lock.name() + "' while " + held);
    }

    static LockHandle mustAcquire(DistributedLock lock, Duration wait) {
        return mustAcquire(lock, wait, () -> "expected to acquire lock '" + lock.name() + "' within " + wait);
    }

    /** As {@link #mustAcquire(DistributedLock, Duration)}, failing with {@code otherwise} (what the store did not do). */
    static LockHandle mustAcquire(DistributedLock lock, Duration wait, java.util.function.Supplier<String> otherwise) {
        try {
            Optional<LockHandle> h = lock.tryAcquire(wait);
            assertTrue(h.isPresent(), otherwise);
            return h.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /**
     * Waits until the thread is blocked: parked in the core's queue or in the store's client, or reading a
     * socket (a blocking store command such as BLPOP shows as RUNNABLE in a socket read).
     */
    static void awaitParked(Thread t, Duration atMost) {
        await(atMost).until(() -> isParked(t));
    }

    static boolean isParked(Thread t) {
        Thread.State s = t.getState();
        if (s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING || s == Thread.State.BLOCKED) {
            return true;
        }
        if (s != Thread.State.RUNNABLE) {
            return false;
        }
        StackTraceElement[] stack = t.getStackTrace();
        for (int i = 0; i < Math.min(10, stack.length); i++) {
            String cls = stack[i].getClassName();
            String method = stack[i].getMethodName();
            if (cls.startsWith("sun.nio.ch.")
                    || cls.startsWith("java.net.Socket")
                    || method.equals("read0")
                    || method.equals("epollWait")
                    || method.equals("poll")) {
                return true;
            }
        }
        return false;
    }

    /** Waits for the handle's loss, failing with a message that says what should have caused it. */
    static io.latchkey.LockLoss awaitLoss(LockHandle h, Duration within, String because) {
        try {
            return h.lost().toCompletableFuture().get(within.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("the holder of '" + h.name() + "' (token " + h.fencingToken()
                    + ") was not told of its loss within " + within.toMillis() + " ms although " + because);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new AssertionError("lost() failed", e.getCause());
        }
    }

    /**
     * Reports a measured figure ({@code "FIGURE ..."}, SLF4J-style {} placeholders): logged, and printed on stdout so
     * that it lands in the test's report whatever logging binding the backend's tests use.
     */
    /**
     * Waits up to {@code within} for a helper's future and, if it failed, throws its failure as it was (an assertion's
     * message intact, not wrapped): a rule's check that runs on another thread fails the rule for its own reason.
     */
    static void rethrowFailureOf(java.util.concurrent.CompletableFuture<?> helper, Duration within) {
        try {
            helper.get(within.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new AssertionError("a helper of the rule failed", e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("a helper of the rule did not finish within " + within.toMillis() + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for a helper of the rule", e);
        }
    }

    static void figure(String format, Object... args) {
        org.slf4j.helpers.FormattingTuple text = org.slf4j.helpers.MessageFormatter.arrayFormat(format, args);
        org.slf4j.LoggerFactory.getLogger(Tck.class).info(text.getMessage());
        System.out.println(text.getMessage());
        TckNotes.figure(text.getMessage());
    }

    /** Skips a recipe rule on a configuration that turned the recipe groups off ({@link TckSettings#recipeRules()}). */
    static void assumeRecipeRules(TckContext tck) {
        Assumptions.assumeTrue(
                tck.settings().recipeRules(), "recipe rules run on this backend's primary configuration");
    }

    /** Skips a process, clock or network fault rule on a configuration that turned them off. */
    static void assumeFaultRules(TckContext tck) {
        Assumptions.assumeTrue(
                tck.settings().faultRules(),
                "the process, clock and network fault rules are off on this configuration (TckSettings.faultRules):"
                        + " its backend runs them on its primary configuration");
    }

    /** Skips a read-write or semaphore rule on a configuration that turned them off ({@link TckSettings#primitiveRules()}). */
    static void assumePrimitiveRules(TckContext tck) {
        Assumptions.assumeTrue(
                tck.settings().primitiveRules(),
                "read-write and semaphore rules run on this backend's primary configuration");
    }

    /** What a recipe rule allows for a lease to run out and a waiter to wake: short lease + slack + wake-up. */
    static Duration recipeTimeout(TckContext tck) {
        return tck.settings()
                .shortLease()
                .plus(tck.settings().slack())
                .plus(tck.settings().wakeUp());
    }

    /** Force-releases {@code name}, skipping the rule where the backend cannot; fails if no grant was removed. */
    static void forceRelease(io.latchkey.LockClient admin, String name) {
        boolean removed;
        try {
            removed = admin.forceRelease(name);
        } catch (UnsupportedOperationException e) {
            Assumptions.abort("backend does not support forceRelease: " + e.getMessage());
            return;
        }
        assertTrue(removed, "forceRelease found no grant to remove");
    }

    static long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }
}

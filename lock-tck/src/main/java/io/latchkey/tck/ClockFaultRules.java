package io.latchkey.tck;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/*
 * A holder's wall clock stepped by an hour while it holds and renews a lock (NTP after a suspend, an administrator,
 * a VM restored from a snapshot). Leases run on CLOCK_MONOTONIC in the core and on the store's clock in the store, so
 * the step must change nothing: the holder keeps the lock (a step forward must not shorten its validity or its
 * renewals), and once it dies the lock frees within the lease (a step back must not have renewed it for an hour).
 * The holder runs in a child JVM under libfaketime; the parent and the store keep the real clock.
 */
/**
 * Clock faults: the holder's wall clock stepped by an hour each way while it holds a renewed lock, in a child JVM under
 * libfaketime. Needs {@link LockBackendTck#processBackend()} and the libfaketime package.
 */
public interface ClockFaultRules extends TckRules {

    /**
     * Rule fault clock: a holder's wall clock stepped back 1 h and then forward 1 h neither shortens nor extends its
     * lease.
     */
    @Test
    @Tag("clock-fault")
    @DisplayName("fault clock: a holder's wall clock stepped back 1 h, then forward 1 h, neither shortens nor extends"
            + " its lease")
    default void clock_wallClockStepsOfAnHourEitherWayDoNotMoveTheLease() {
        Tck.assumeFaultRules(tck());
        // back first: a lease set from the holder's clock then ends at once, which the hold sees; forward second: a
        // lease set from it then outlives the holder by an hour, which the kill at the end sees
        holdThroughSteps(-3600, 3600);
    }

    private void holdThroughSteps(long... steps) {
        String name = tck().name("clock-steps");
        Duration lease = tck().settings().shortLease();
        try (Libfaketime clock = Libfaketime.start()) {
            TckProcess child = tck().startProcess(
                    clock.environment(), LockHolderProcess.class, name, Long.toString(lease.toMillis()), "renew");
            long childToken = HolderLines.heldToken(child, Duration.ofSeconds(60));
            LockClient other = tck().newClient();
            Tck.mustBeBusy(other.lock(name), "the child JVM held it");

            for (long seconds : steps) {
                long realWallAtStep = System.currentTimeMillis();
                long steppedAt = System.nanoTime();
                clock.step(seconds);
                child.awaitLine(
                        line -> {
                            String[] f = line.split(" ");
                            if (!f[0].equals("WRITE") || Long.parseLong(f[2]) < steppedAt) {
                                return false;
                            }
                            long real =
                                    realWallAtStep + TimeUnit.NANOSECONDS.toMillis(Long.parseLong(f[2]) - steppedAt);
                            return Math.abs(Long.parseLong(f[4]) - real - seconds * 1000) < 60_000;
                        },
                        "a guarded write stamped with its wall clock at " + seconds + " s (libfaketime's step)",
                        Duration.ofSeconds(10));
                Duration hold = lease.multipliedBy(2);
                Tck.staysTrue(
                        hold,
                        () -> child.lines("INVALID").isEmpty()
                                && child.lines("LOST").isEmpty()
                                && other.lock(name).tryAcquire().map(h -> {
                                            h.close();
                                            return false;
                                        })
                                        .orElse(true),
                        "after its wall clock was set to " + seconds + " s off, the holder (token " + childToken
                                + ") did not keep its renewed lock for " + hold.toMillis() + " ms: its stdout ends "
                                + tail(child) + " (a lease, a renewal or a validity computed from the wall clock?)");
            }
            child.kill();
            long killedAt = System.nanoTime();
            Duration bound = ProcessFaultBounds.freedWithin(tck(), lease);
            LockHandle next = ProcessFaultBounds.awaitFreed(
                    other, name, bound.plusSeconds(1),
                    "a holder whose wall clock was stepped " + java.util.Arrays.toString(steps) + " s, then killed (token "
                            + childToken + ")");
            long tookNanos = System.nanoTime() - killedAt;
            next.close();
            String stepsText = java.util.Arrays.toString(steps);
            Tck.figure(
                    "FIGURE fault clock steps {} s on {}: held through them; free {} ms after the holder's SIGKILL"
                            + " (lease {} ms)",
                    stepsText,
                    other.backend(),
                    Tck.millis(tookNanos),
                    lease.toMillis());
            assertTrue(
                    tookNanos <= bound.toNanos(),
                    () -> "the holder's wall clock was stepped " + stepsText + " s, and after it died its lock freed only"
                            + " after " + Tck.millis(tookNanos) + " ms; lease + slack allows " + bound.toMillis()
                            + " ms (a renewal that set the expiry from the holder's wall clock?)");
        }
    }

    private static String tail(TckProcess child) {
        java.util.List<String> lines = child.lines();
        String err = child.stderrTail();
        return lines.subList(Math.max(0, lines.size() - 3), lines.size())
                + (err.isBlank() ? "" : "; the end of its stderr: " + err.substring(Math.max(0, err.length() - 1500)));
    }
}

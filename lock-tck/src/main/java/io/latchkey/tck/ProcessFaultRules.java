package io.latchkey.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/*
 * Faults of the holder's process, on a real process: the holder runs in a child JVM (LockHolderProcess) and is
 * killed with SIGKILL or frozen with SIGSTOP, as an OOM kill or a long GC pause / frozen VM would. Both sides stamp
 * events with System.nanoTime(), CLOCK_MONOTONIC on Linux and so one clock for the parent and the child: the safe
 * windows (the holder's last guarded write before another's grant, the grant after the pause) are differences on
 * that clock, untouched by the pause itself.
 */
/**
 * Process faults: a lock holder in a separate JVM killed with SIGKILL or paused with SIGSTOP. Needs
 * {@link LockBackendTck#processBackend()}; skipped without it.
 */
public interface ProcessFaultRules extends TckRules {

    /**
     * Rule fault process: a holder killed with SIGKILL frees the lock within its lease (or session timeout) plus slack.
     */
    @Test
    @Tag("process-fault")
    @DisplayName("fault process: a holder killed with SIGKILL frees the lock within its lease (or session timeout)"
            + " plus slack")
    default void process_killedHolderFreesTheLockWithinItsLeasePlusSlack() {
        Tck.assumeFaultRules(tck());
        String name = tck().name("sigkill");
        Duration lease = tck().settings().shortLease();
        TckProcess child = tck().startProcess(LockHolderProcess.class, name, Long.toString(lease.toMillis()), "renew");
        long childToken = HolderLines.heldToken(child, Duration.ofSeconds(60));
        LockClient other = tck().newClient();
        Tck.mustBeBusy(other.lock(name), "the child JVM held it");
        child.kill();
        long killedAt = System.nanoTime();
        Duration bound = ProcessFaultBounds.freedWithin(tck(), lease);
        LockHandle next = ProcessFaultBounds.awaitFreed(
                other, name, bound.plusSeconds(1), "a holder killed with SIGKILL (token " + childToken + ")");
        long tookNanos = System.nanoTime() - killedAt;
        next.close();
        Tck.figure(
                "FIGURE fault process SIGKILL on {}: lock free {} ms after the kill (lease {} ms, bound {} ms)",
                other.backend(),
                Tck.millis(tookNanos),
                lease.toMillis(),
                bound.toMillis());
        assertTrue(
                tookNanos <= bound.toNanos(),
                () -> "the SIGKILLed holder's grant (token " + childToken + ") freed only after " + Tck.millis(tookNanos)
                        + " ms; lease " + lease.toMillis() + " ms + slack allows " + bound.toMillis() + " ms");
        assertTrue(next.fencingToken() > childToken, "the next grant's token did not rise above the killed holder's");
    }

    /**
     * Rule fault process: a holder paused with SIGSTOP for twice its lease loses the lock to another process, and after
     * SIGCONT it finds its handle invalid and is told of the loss before it writes again; the fenced register
     * accepts none of its later writes.
     */
    @Test
    @Tag("process-fault")
    @DisplayName("fault process: a holder paused with SIGSTOP for twice its lease loses the lock, and after SIGCONT"
            + " sees it invalid and is told before it writes again")
    default void process_pausedHolderSeesItsLossBeforeItWritesAgain() {
        Tck.assumeFaultRules(tck());
        String name = tck().name("sigstop");
        Duration lease = tck().settings().shortLease();
        Duration slack = tck().settings().slack();
        boolean keepsLock = tck().settings().pausedHolderKeepsItsLock();
        TckProcess child = tck().startProcess(LockHolderProcess.class, name, Long.toString(lease.toMillis()), "renew");
        String held = child.awaitLine("HELD ", Duration.ofSeconds(60));
        long childToken = Long.parseLong(held.split(" ")[1]);
        long heldAt = Long.parseLong(held.split(" ")[2]);
        // pause a holder that has been renewing for a while, so that what is paused is a renewed grant
        child.awaitLine(
                l -> l.startsWith("WRITE ") && Long.parseLong(l.split(" ")[2]) - heldAt >= lease.toNanos(),
                "a guarded write one lease after its grant",
                lease.multipliedBy(2).plusSeconds(10));
        LockClient other = tck().newClient();
        Tck.mustBeBusy(other.lock(name), "the child JVM held it");

        child.pause();
        long pausedAt = System.nanoTime();
        Duration pause = lease.multipliedBy(2);
        FencedRegister register = new FencedRegister();
        Optional<LockHandle> taken = Optional.empty();
        long grantedAt = 0;
        if (keepsLock) {
            Tck.staysTrue(
                    pause,
                    () -> other.lock(name).tryAcquire().map(h -> {
                                h.close();
                                return false;
                            })
                            .orElse(true),
                    "another client was granted '" + name + "' while its holder was paused (and kept its session)");
        } else {
            Duration bound = ProcessFaultBounds.freedWithin(tck(), lease).plus(lease);
            taken = Optional.of(ProcessFaultBounds.awaitFreed(
                    other, name, bound, "a holder paused with SIGSTOP (token " + childToken + ")"));
            grantedAt = System.nanoTime();
        }
        long untilResume = pausedAt + pause.toNanos() - System.nanoTime();
        if (untilResume > 0) { // the pause lasts at least twice the lease, whenever the other was granted
            Tck.await(Duration.ofNanos(untilResume).plusSeconds(5))
                    .pollDelay(Duration.ofNanos(untilResume))
                    .until(() -> true);
        }
        List<HolderLines.Write> before = HolderLines.writes(child);
        child.resume();
        long resumedAt = System.nanoTime();

        long invalidAt = HolderLines.invalidAt(child, slack);
        String[] loss = HolderLines.loss(child, slack);
        long lossAt = Long.parseLong(loss[1]);
        List<HolderLines.Write> all = HolderLines.writes(child);
        for (HolderLines.Write w : before) {
            register.write(w.token());
        }
        long lastValidEnd = before.isEmpty()
                ? pausedAt
                : before.get(before.size() - 1).nanos()
                        + TimeUnit.MILLISECONDS.toNanos(before.get(before.size() - 1).remainingMillis());
        if (taken.isPresent()) {
            assertTrue(
                    register.write(taken.get().fencingToken()),
                    "the fenced register refused the new holder's first write");
        }
        List<HolderLines.Write> afterResume = all.subList(before.size(), all.size()).stream()
                .filter(w -> w.nanos() >= resumedAt)
                .toList();
        long acceptedLate = afterResume.stream().filter(w -> register.write(w.token())).count();
        Tck.figure(
                "FIGURE fault process SIGSTOP on {}: {} after the stop; holder saw invalid {} ms and was told ({}) {} ms"
                        + " after SIGCONT; {} write(s) after SIGCONT (lease {} ms)",
                other.backend(),
                taken.isPresent() ? "another granted " + Tck.millis(grantedAt - pausedAt) + " ms" : "lock kept",
                Tck.millis(invalidAt - resumedAt),
                loss[0],
                Tck.millis(lossAt - resumedAt),
                afterResume.size(),
                lease.toMillis());
        taken.ifPresent(LockHandle::close);

        assertTrue(
                afterResume.size() <= 1,
                () -> "after SIGCONT the paused holder (token " + childToken + ") wrote " + afterResume.size()
                        + " times with its lapsed grant before isValid() said false; at most the one write whose check"
                        + " preceded the pause is allowed");
        assertEquals(0, acceptedLate, "the fenced register accepted a write of the paused holder after its resume");
        if (taken.isPresent()) {
            long window = grantedAt - lastValidEnd;
            assertTrue(
                    window >= 0,
                    () -> "another client was granted the lock " + Tck.millis(-window) + " ms before the paused holder's"
                            + " last reported validity ended: its isValid() would have let it write while another"
                            + " held the lock (check the validUntil the backend reports from acquire/renew)");
        }
        assertTrue(
                lossAt - resumedAt <= slack.toNanos(),
                () -> "the paused holder was told of its loss only " + Tck.millis(lossAt - resumedAt) + " ms after SIGCONT");
    }
}

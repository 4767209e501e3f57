package io.latchkey.tck;

import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockOptions;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/*
 * The holder of the process and clock fault rules, in a child JVM. It acquires one lock and then, every few
 * milliseconds, does what an application that guards a fenced write does: it asks the handle isValid() and, only
 * if so, "writes" (prints WRITE). Every line carries System.nanoTime(), which on Linux is CLOCK_MONOTONIC: the
 * parent compares these stamps with its own (same clock, same machine) to measure the safe windows, and
 * SIGSTOP/SIGCONT or a wall-clock step cannot move that clock. The wall-clock time goes along too, so that the
 * clock rules can see that libfaketime's step reached this JVM.
 *
 * Lines: HELD <token> <nanos> <remainingMillis>; WRITE <token> <nanos> <remainingMillis> <wallMillis>;
 * INVALID <nanos> <wallMillis>; LOST <reason> <nanos>. After INVALID it releases and waits to be killed.
 */
/**
 * A child JVM for {@link ProcessFaultRules} and {@link ClockFaultRules}: holds one lock and reports, with
 * CLOCK_MONOTONIC stamps, each guarded write and the moment it sees the grant invalid. Arguments: the lock's
 * name, the lease in milliseconds, and {@code renew} or {@code expire}.
 */
public final class LockHolderProcess {
    private static final long WRITE_EVERY_NANOS = Duration.ofMillis(5).toNanos();

    private LockHolderProcess() {}

    /**
     * The child's entry point.
     *
     * @param args the lock's name, the lease in milliseconds, and {@code renew} or {@code expire}
     * @throws Exception if the lock cannot be acquired (the parent sees the child's stderr)
     */
    public static void main(String[] args) throws Exception {
        String name = args[0];
        Duration lease = Duration.ofMillis(Long.parseLong(args[1]));
        boolean renew = "renew".equals(args[2]);
        LockClient client = TckProcessMain.connect();
        LockHandle handle = client.lock(
                        name, LockOptions.builder().lease(lease).autoRenew(renew).build())
                .acquire(Duration.ofSeconds(30));
        handle.onLost(loss -> TckProcessMain.emit("LOST " + loss.reason() + " " + System.nanoTime()));
        TckProcessMain.emit("HELD " + handle.fencingToken() + " " + System.nanoTime() + " "
                + handle.remaining().toMillis());
        while (true) {
            Duration remaining = handle.remaining();
            boolean valid = handle.isValid();
            long now = System.nanoTime();
            if (!valid) {
                TckProcessMain.emit("INVALID " + now + " " + System.currentTimeMillis());
                break;
            }
            TckProcessMain.emit("WRITE " + handle.fencingToken() + " " + now + " " + remaining.toMillis() + " "
                    + System.currentTimeMillis());
            LockSupport.parkNanos(WRITE_EVERY_NANOS); // the application's work between two writes
        }
        handle.close();
        Thread.currentThread().join(); // until killed
    }
}

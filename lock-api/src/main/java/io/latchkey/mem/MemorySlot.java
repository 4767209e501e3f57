package io.latchkey.mem;

import io.latchkey.LockInfo;
import io.latchkey.core.WallClock;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.Busy;
import io.latchkey.spi.Grant;
import io.latchkey.spi.TimeSource;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/*
 * One name's state in a MemoryStore: holder, token counter, expiry and waiters. Every field is guarded by
 * the slot's own lock (see MemoryStore's concurrency design): the store takes `lock` around each use, and
 * nothing here blocks or calls out while it is held.
 */
final class MemorySlot {
    final ReentrantLock lock = new ReentrantLock();
    final Condition changed = lock.newCondition();
    final ArrayDeque<Ticket> queue = new ArrayDeque<>(2);

    @Nullable
    String owner;

    long token;
    long lastToken;
    long expiresAt;
    long acquiredNanos; // the wall-clock time is worked out when asked for (display only, see WallClock)

    @Nullable
    MemoryBackend grantor;

    @Nullable
    String forcedOwner;

    /** How many times the grant was ended (released or forced out): a waiter compares it with what it last saw. */
    long ends;

    boolean isHeld(long now) {
        return owner != null && now - expiresAt < 0;
    }

    /** Whether the slot's record is this very grant (owner and token), live or expired. */
    boolean isRecordOf(Grant g) {
        return owner != null && owner.equals(g.owner()) && token == g.fencingToken();
    }

    /** The holder's owner id; called only once isHeld has said so, when it is set. */
    String heldBy() {
        return Objects.requireNonNull(owner, "a held slot has its owner");
    }

    Grant grant(AcquireRequest req, MemoryBackend by, long start, long now) {
        owner = req.owner();
        token = ++lastToken;
        long lease = req.lease().toNanos();
        expiresAt = now + lease;
        acquiredNanos = now;
        grantor = by;
        return new Grant(req.name(), owner, token, start + lease, null);
    }

    Grant currentGrant(String lockName) {
        // the request's owner already holds it: an earlier attempt whose reply was lost
        return new Grant(lockName, heldBy(), token, expiresAt, null);
    }

    Busy busy(long now) {
        return new Busy(owner, token, Duration.ofNanos(expiresAt - now));
    }

    void clear() {
        owner = null;
        grantor = null;
        ends++;
        signalHead();
        changed.signal();
    }

    void signalHead() {
        Ticket head = queue.peekFirst();
        if (head != null) {
            head.wakeUp.signal();
        }
    }

    @Nullable
    LockInfo info(String lockName, long now, TimeSource time) {
        if (!isHeld(now)) {
            return null;
        }
        // a clock that cannot be read leaves the display times out; the answer itself does not need them
        Optional<Instant> wall = WallClock.read(time);
        return new LockInfo(
                lockName,
                heldBy(),
                token,
                wall.map(w -> w.minusNanos(now - acquiredNanos)),
                wall.map(w -> w.plusNanos(expiresAt - now)));
    }

    static final class Ticket {
        final Condition wakeUp;

        Ticket(Condition wakeUp) {
            this.wakeUp = wakeUp;
        }
    }
}

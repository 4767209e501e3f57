package io.latchkey.tck.selftest;

import io.latchkey.Capability;
import io.latchkey.mem.MemoryBackend;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Busy;
import io.latchkey.spi.Grant;
import io.latchkey.spi.GrantKind;
import io.latchkey.spi.RenewResult;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/*
 * A client of the in-memory store whose read-write locks have one deliberate defect (ReadWriteFlaw), put in front
 * of the store's correct ones; exclusive locks and semaphores are the store's own.
 */
final class FlawedReadWrite extends DecoratedMemoryBackend {
    /** The one defect; NONE is the control. */
    enum ReadWriteFlaw {
        NONE,
        /** A reader the store turned away is granted anyway (nothing stored): readers beside a writer. */
        READER_BESIDE_WRITER,
        /** A writer's intent is withdrawn as soon as it is recorded: readers keep coming, the writer starves. */
        NO_WRITER_PREFERENCE,
        /** withdraw() does nothing: a writer that gave up keeps new readers out until its intent expires. */
        INTENT_LEAK,
        /** downgrade() releases the write grant, then asks for a read grant: a waiting writer gets in between. */
        DOWNGRADE_WITH_GAP,
        /** Stores nothing, grants everything. */
        GRANTS_EVERYTHING
    }

    private final ReadWriteFlaw flaw;
    private final AtomicLong everyToken;

    FlawedReadWrite(MemoryBackend store, ReadWriteFlaw flaw, AtomicLong everyToken) {
        super(store, "read-write flaw " + flaw);
        this.flaw = flaw;
        this.everyToken = everyToken;
    }

    @Override
    public Set<Capability> capabilities() {
        Set<Capability> caps = EnumSet.copyOf(store.capabilities());
        caps.add(Capability.READ_WRITE);
        return caps;
    }

    private static boolean mine(GrantKind kind) {
        return kind.type() == GrantKind.Type.READ || kind.type() == GrantKind.Type.WRITE;
    }

    @Override
    public AcquireResult tryAcquire(AcquireRequest request) {
        if (!mine(request.kind())) {
            return store.tryAcquire(request);
        }
        if (flaw == ReadWriteFlaw.GRANTS_EVERYTHING) {
            return fake(request);
        }
        AcquireResult r = store.tryAcquire(request);
        if (r instanceof Busy
                && request.kind().type() == GrantKind.Type.READ
                && flaw == ReadWriteFlaw.READER_BESIDE_WRITER) {
            return fake(request);
        }
        if (r instanceof Busy
                && request.kind().type() == GrantKind.Type.WRITE
                && flaw == ReadWriteFlaw.NO_WRITER_PREFERENCE) {
            store.withdraw(request);
        }
        return r;
    }

    /** A grant the store never made (state "fake"): renewals and releases of it succeed without asking. */
    private Grant fake(AcquireRequest request) {
        long validUntil = timeSource().nanoTime() + request.lease().toNanos();
        return new Grant(
                request.name(), request.owner(), everyToken.incrementAndGet(), validUntil, "fake", request.kind());
    }

    @Override
    public Grant downgrade(Grant write, AcquireRequest read) {
        if (flaw == ReadWriteFlaw.GRANTS_EVERYTHING) {
            return fake(read);
        }
        if (flaw != ReadWriteFlaw.DOWNGRADE_WITH_GAP) {
            return store.downgrade(write, read);
        }
        store.release(write); // the defect: the lock is free, and the writer waiting for it is woken
        AcquireResult r = store.tryAcquire(read); // busy: that writer's intent keeps new readers out
        return r instanceof Grant g ? g : fake(read);
    }

    @Override
    public void withdraw(AcquireRequest request) {
        if (flaw != ReadWriteFlaw.INTENT_LEAK) {
            store.withdraw(request);
        }
    }

    @Override
    public RenewResult renew(Grant grant, Duration lease) {
        return "fake".equals(grant.state())
                ? RenewResult.renewed(timeSource().nanoTime() + lease.toNanos())
                : store.renew(grant, lease);
    }

    @Override
    public boolean release(Grant grant) {
        return "fake".equals(grant.state()) || store.release(grant);
    }
}

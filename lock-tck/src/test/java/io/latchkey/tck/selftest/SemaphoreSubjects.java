package io.latchkey.tck.selftest;

import io.latchkey.mem.MemoryStore;
import io.latchkey.spi.LockBackend;
import io.latchkey.tck.selftest.FlawedSemaphores.SemaphoreFlaw;
import java.util.concurrent.atomic.AtomicLong;

/*
 * The TCK subjects SemaphoreSelfTest runs: each on a fresh in-memory store (one per test instance) whose clients'
 * semaphores have one SemaphoreFlaw. Like FlawedSubjects, only a self-test run enables them (the Subject base).
 */
final class SemaphoreSubjects {
    private SemaphoreSubjects() {}

    abstract static class SemaphoreSubject extends FlawedSubjects.Subject {
        private final MemoryStore store = new MemoryStore();
        private final AtomicLong everyToken = new AtomicLong();
        private final SemaphoreFlaw flaw;

        SemaphoreSubject(SemaphoreFlaw flaw) {
            super(Flaw.NONE);
            this.flaw = flaw;
        }

        @Override
        protected LockBackend newBackend() {
            return new FlawedSemaphores(store.newBackend(), flaw, everyToken);
        }
    }

    static final class NoFlaw extends SemaphoreSubject {
        NoFlaw() {
            super(SemaphoreFlaw.NONE);
        }
    }

    static final class OverGrantByOne extends SemaphoreSubject {
        OverGrantByOne() {
            super(SemaphoreFlaw.OVER_GRANT_BY_ONE);
        }
    }

    static final class PermitLeak extends SemaphoreSubject {
        PermitLeak() {
            super(SemaphoreFlaw.PERMIT_LEAK);
        }
    }

    static final class NoReturnAfterDeath extends SemaphoreSubject {
        NoReturnAfterDeath() {
            super(SemaphoreFlaw.NO_RETURN_AFTER_DEATH);
        }
    }

    static final class SharedToken extends SemaphoreSubject {
        SharedToken() {
            super(SemaphoreFlaw.SHARED_TOKEN);
        }
    }

    static final class GrantsEverything extends SemaphoreSubject {
        GrantsEverything() {
            super(SemaphoreFlaw.GRANTS_EVERYTHING);
        }
    }
}

package io.latchkey.tck.selftest;

import io.latchkey.mem.MemoryStore;
import io.latchkey.spi.LockBackend;
import io.latchkey.tck.selftest.FlawedReadWrite.ReadWriteFlaw;
import java.util.concurrent.atomic.AtomicLong;

/*
 * The TCK subjects ReadWriteSelfTest runs: each on a fresh in-memory store (one per test instance) whose clients'
 * read-write locks have one ReadWriteFlaw. Like FlawedSubjects, only a self-test run enables them.
 */
final class ReadWriteSubjects {
    private ReadWriteSubjects() {}

    abstract static class ReadWriteSubject extends FlawedSubjects.Subject {
        private final MemoryStore store = new MemoryStore();
        private final AtomicLong everyToken = new AtomicLong();
        private final ReadWriteFlaw flaw;

        ReadWriteSubject(ReadWriteFlaw flaw) {
            super(Flaw.NONE);
            this.flaw = flaw;
        }

        @Override
        protected LockBackend newBackend() {
            return new FlawedReadWrite(store.newBackend(), flaw, everyToken);
        }
    }

    static final class NoFlaw extends ReadWriteSubject {
        NoFlaw() {
            super(ReadWriteFlaw.NONE);
        }
    }

    static final class ReaderBesideWriter extends ReadWriteSubject {
        ReaderBesideWriter() {
            super(ReadWriteFlaw.READER_BESIDE_WRITER);
        }
    }

    static final class NoWriterPreference extends ReadWriteSubject {
        NoWriterPreference() {
            super(ReadWriteFlaw.NO_WRITER_PREFERENCE);
        }
    }

    static final class IntentLeak extends ReadWriteSubject {
        IntentLeak() {
            super(ReadWriteFlaw.INTENT_LEAK);
        }
    }

    static final class DowngradeWithGap extends ReadWriteSubject {
        DowngradeWithGap() {
            super(ReadWriteFlaw.DOWNGRADE_WITH_GAP);
        }
    }

    static final class GrantsEverything extends ReadWriteSubject {
        GrantsEverything() {
            super(ReadWriteFlaw.GRANTS_EVERYTHING);
        }
    }
}

package io.latchkey.tck.selftest;

import io.latchkey.LockClient;
import io.latchkey.LockInfo;
import io.latchkey.LockOptions;
import io.latchkey.recipes.ElectionListener;
import io.latchkey.recipes.Elector;
import io.latchkey.recipes.Revocation;
import io.latchkey.recipes.Term;
import io.latchkey.spi.DaemonThreads;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/*
 * Deliberately broken electors for RecipeSelfTest: each wraps the real Elector and breaks one promise the
 * ElectorRules check. They are built through ElectorRules#newElector, which the subjects in RecipeSubjects override.
 */
final class BrokenElectors {
    private BrokenElectors() {}

    enum Kind {
        /** Keeps saying it leads after its lock was lost, and never reports the loss. */
        NEVER_REVOKES_ON_LOSS,
        /** Hands out the first term it ever won, again and again. */
        STALE_TERM,
        /** Leaves the election for good after a loss. */
        NEVER_REJOINS_AFTER_LOSS,
        /** relinquish() does nothing. */
        RELINQUISH_KEEPS_THE_LOCK,
        /** close() does nothing: the term is neither revoked nor released. */
        CLOSE_KEEPS_THE_LOCK,
        /**
         * Believes its term until the store says otherwise: a loss counts only once the store answers again, so in
         * an outage it leads on past validUntil.
         */
        LEADS_UNTIL_THE_STORE_ANSWERS,
        /** Stands by for good when somebody already leads: a dead leader is never replaced by it. */
        JOINS_ONLY_AN_EMPTY_ELECTION
    }

    static Elector build(
            Kind kind,
            LockClient client,
            String name,
            LockOptions options,
            Duration backoff,
            ElectionListener listener) {
        AtomicReference<Elector> self = new AtomicReference<>();
        AtomicReference<Term> sticky = new AtomicReference<>();
        AtomicReference<Term> believed = new AtomicReference<>();
        AtomicBoolean leftForGood = new AtomicBoolean();
        ElectionListener wrapped = new ElectionListener() {
            @Override
            public void onElected(Term term) {
                if (leftForGood.get()) {
                    return; // NEVER_REJOINS_AFTER_LOSS: out of the election, whatever its own thread did meanwhile
                }
                sticky.compareAndSet(null, term);
                believed.set(term);
                listener.onElected(term);
            }

            @Override
            public void onRevoked(Term term, Revocation why) {
                if (leftForGood.get()) {
                    return; // see onElected: the close below revokes a term won meanwhile, which nobody is told of
                }
                if (why.reason() == Revocation.Reason.LOST && kind == Kind.LEADS_UNTIL_THE_STORE_ANSWERS) {
                    DaemonThreads.start("broken-elector-believer", () -> {
                        while (!storeAnswers(client, name)) {
                            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
                        }
                        believed.compareAndSet(term, null);
                        listener.onRevoked(term, why);
                    });
                    return;
                }
                believed.compareAndSet(term, null);
                if (why.reason() == Revocation.Reason.LOST) {
                    if (kind == Kind.NEVER_REVOKES_ON_LOSS) {
                        return;
                    }
                    if (kind == Kind.NEVER_REJOINS_AFTER_LOSS) {
                        // closed before the loss is told: the real elector's own thread re-enters at once, and a rule
                        // woken by this revocation could otherwise find it elected again before the close (it did,
                        // about once in many runs)
                        leftForGood.set(true);
                        self.get().close();
                        listener.onRevoked(term, why);
                        return;
                    }
                }
                listener.onRevoked(term, why);
            }
        };
        Elector real = Elector.builder(client, name)
                .options(options)
                .relinquishBackoff(backoff)
                .listener(wrapped, Runnable::run)
                .build();
        self.set(real);
        return new Elector() {
            @Override
            public String name() {
                return real.name();
            }

            @Override
            public Elector start() {
                if (kind == Kind.JOINS_ONLY_AN_EMPTY_ELECTION
                        && real.currentLeader().isPresent()) {
                    return this; // somebody leads: stand by, for ever
                }
                real.start();
                return this;
            }

            @Override
            public boolean isLeader() {
                switch (kind) {
                    case NEVER_REVOKES_ON_LOSS:
                        return sticky.get() != null;
                    case LEADS_UNTIL_THE_STORE_ANSWERS:
                        // (the real elector's answer too: onElected may come a moment after awaitLeadership returns)
                        return real.isLeader() || believed.get() != null;
                    default:
                        return real.isLeader();
                }
            }

            @Override
            public Optional<Term> term() {
                return kind == Kind.NEVER_REVOKES_ON_LOSS || kind == Kind.STALE_TERM
                        ? Optional.ofNullable(sticky.get())
                        : real.term();
            }

            @Override
            public Optional<Term> awaitLeadership(Duration wait) throws InterruptedException {
                Optional<Term> t = real.awaitLeadership(wait);
                if (kind == Kind.NEVER_REVOKES_ON_LOSS && sticky.get() != null) {
                    return Optional.of(sticky.get());
                }
                if (kind == Kind.STALE_TERM && t.isPresent()) {
                    sticky.compareAndSet(null, t.get());
                    return Optional.of(sticky.get());
                }
                return t;
            }

            @Override
            public Optional<LockInfo> currentLeader() {
                return real.currentLeader();
            }

            @Override
            public void relinquish() {
                if (kind != Kind.RELINQUISH_KEEPS_THE_LOCK) {
                    if (kind != Kind.STALE_TERM) {
                        sticky.set(null);
                    }
                    real.relinquish();
                }
            }

            @Override
            public void close() {
                if (kind != Kind.CLOSE_KEEPS_THE_LOCK) {
                    believed.set(null);
                    sticky.set(null);
                    real.close();
                }
            }
        };
    }

    /** Whether the store answers a read of the election's lock now. */
    private static boolean storeAnswers(LockClient client, String name) {
        try {
            client.inspect(name);
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }
}

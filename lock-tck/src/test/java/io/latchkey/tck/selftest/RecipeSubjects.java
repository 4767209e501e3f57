package io.latchkey.tck.selftest;

import io.latchkey.LockClient;
import io.latchkey.LockOptions;
import io.latchkey.recipes.ElectionListener;
import io.latchkey.recipes.Elector;
import io.latchkey.tck.selftest.FlawedSubjects.Subject;
import java.time.Duration;

/*
 * TCK subjects with a correct store and a broken recipe, for RecipeSelfTest. Like FlawedSubjects, they are nested
 * classes (Surefire never picks them up) enabled only inside a self-test run.
 */
final class RecipeSubjects {
    private RecipeSubjects() {}

    /** A correct store whose elector is broken in one way. */
    abstract static class WithBrokenElector extends Subject {
        private final BrokenElectors.Kind kind;

        WithBrokenElector(BrokenElectors.Kind kind) {
            super(Flaw.NONE);
            this.kind = kind;
        }

        @Override
        public Elector newElector(
                LockClient client, String name, LockOptions options, Duration backoff, ElectionListener listener) {
            return BrokenElectors.build(kind, client, name, options, backoff, listener);
        }
    }

    static final class ElectorNeverRevokesOnLoss extends WithBrokenElector {
        ElectorNeverRevokesOnLoss() {
            super(BrokenElectors.Kind.NEVER_REVOKES_ON_LOSS);
        }
    }

    static final class ElectorStaleTerm extends WithBrokenElector {
        ElectorStaleTerm() {
            super(BrokenElectors.Kind.STALE_TERM);
        }
    }

    static final class ElectorNeverRejoins extends WithBrokenElector {
        ElectorNeverRejoins() {
            super(BrokenElectors.Kind.NEVER_REJOINS_AFTER_LOSS);
        }
    }

    static final class ElectorRelinquishKeepsTheLock extends WithBrokenElector {
        ElectorRelinquishKeepsTheLock() {
            super(BrokenElectors.Kind.RELINQUISH_KEEPS_THE_LOCK);
        }
    }
}

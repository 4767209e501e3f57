package io.latchkey.tck.selftest;

import io.latchkey.LockClient;
import io.latchkey.LockOptions;
import io.latchkey.MultiLock;
import io.latchkey.recipes.ElectionListener;
import io.latchkey.recipes.Elector;
import io.latchkey.recipes.ExclusiveTasks;
import io.latchkey.recipes.ItemWorker;
import io.latchkey.recipes.TaskEnd;
import io.latchkey.recipes.WorkDistributor;
import io.latchkey.tck.selftest.FlawedSubjects.Subject;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

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
            this(kind, false);
        }

        WithBrokenElector(BrokenElectors.Kind kind, boolean servingChildJvms) {
            super(Flaw.NONE, servingChildJvms);
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

    /** A correct store whose exclusive tasks are broken by the given wrapper. */
    abstract static class WithBrokenTasks extends Subject {
        private final UnaryOperator<ExclusiveTasks> breaker;

        WithBrokenTasks(UnaryOperator<ExclusiveTasks> breaker) {
            super(Flaw.NONE);
            this.breaker = breaker;
        }

        @Override
        public ExclusiveTasks newExclusiveTasks(
                LockClient client, String prefix, @Nullable Duration retryEvery, TaskEnd whenTaskEnds) {
            return breaker.apply(super.newExclusiveTasks(client, prefix, retryEvery, whenTaskEnds));
        }
    }

    static final class TasksIgnoringLoss extends WithBrokenTasks {
        TasksIgnoringLoss() {
            super(BrokenRecipes::ignoringLoss);
        }
    }

    static final class TasksStopKeepingTheLock extends WithBrokenTasks {
        TasksStopKeepingTheLock() {
            super(BrokenRecipes::stopKeepingTheLock);
        }
    }

    static final class TasksWithoutTheSharedLock extends WithBrokenTasks {
        TasksWithoutTheSharedLock() {
            super(BrokenRecipes::runningWithoutTheSharedLock);
        }
    }

    static final class TasksForgettingWhatTheyHold extends WithBrokenTasks {
        TasksForgettingWhatTheyHold() {
            super(BrokenRecipes::forgettingWhatTheyHold);
        }
    }

    static final class TasksClosingNothing extends WithBrokenTasks {
        TasksClosingNothing() {
            super(BrokenRecipes::closingNothing);
        }
    }

    /** Exclusive tasks that always release when a task returns, whatever they were told. */
    static final class TasksIgnoringKeepHolding extends Subject {
        TasksIgnoringKeepHolding() {
            super(Flaw.NONE);
        }

        @Override
        public ExclusiveTasks newExclusiveTasks(
                LockClient client, String prefix, @Nullable Duration retryEvery, TaskEnd whenTaskEnds) {
            return super.newExclusiveTasks(client, prefix, retryEvery, TaskEnd.RELEASE);
        }
    }

    static final class ElectorCloseKeepsTheLock extends WithBrokenElector {
        ElectorCloseKeepsTheLock() {
            super(BrokenElectors.Kind.CLOSE_KEEPS_THE_LOCK);
        }
    }

    static final class MultiLockWithoutInputChecks extends WithBrokenMultiLock {
        MultiLockWithoutInputChecks() {
            super(BrokenRecipes.MultiLockFlaw.NO_INPUT_CHECKS);
        }
    }

    static final class MultiLockReleasingNothing extends WithBrokenMultiLock {
        MultiLockReleasingNothing() {
            super(BrokenRecipes.MultiLockFlaw.RELEASE_RELEASES_NOTHING);
        }
    }

    /** A correct store whose multi-lock is a broken stand-in. */
    abstract static class WithBrokenMultiLock extends Subject {
        private final BrokenRecipes.MultiLockFlaw flaw;

        WithBrokenMultiLock(BrokenRecipes.MultiLockFlaw flaw) {
            this(flaw, false);
        }

        WithBrokenMultiLock(BrokenRecipes.MultiLockFlaw flaw, boolean servingChildJvms) {
            super(Flaw.NONE, servingChildJvms);
            this.flaw = flaw;
        }

        @Override
        public MultiLock newMultiLock(LockClient client, List<String> names, LockOptions options) {
            return BrokenRecipes.multiLock(flaw, client, names, options);
        }
    }

    static final class MultiLockInArgumentOrder extends WithBrokenMultiLock {
        MultiLockInArgumentOrder() {
            super(BrokenRecipes.MultiLockFlaw.ARGUMENT_ORDER);
        }
    }

    static final class MultiLockKeepingPartsOnTimeout extends WithBrokenMultiLock {
        MultiLockKeepingPartsOnTimeout() {
            super(BrokenRecipes.MultiLockFlaw.KEEPS_PARTS_ON_TIMEOUT);
        }
    }

    static final class MultiLockStayingValid extends WithBrokenMultiLock {
        MultiLockStayingValid() {
            super(BrokenRecipes.MultiLockFlaw.STAYS_VALID_AFTER_A_LOSS);
        }
    }

    /** A distributor that ignores the cap it was given. */
    static final class DistributorIgnoringTheCap extends Subject {
        DistributorIgnoringTheCap() {
            super(Flaw.NONE);
        }

        @Override
        public WorkDistributor newDistributor(
                LockClient client, String group, List<String> items, int cap, String instanceId, ItemWorker worker) {
            return super.newDistributor(client, group, items, Integer.MAX_VALUE, instanceId, worker);
        }
    }

    /** Distributors that each lock the items in a group of their own: every instance holds every item. */
    static final class DistributorWithoutSharedLocks extends Subject {
        DistributorWithoutSharedLocks() {
            super(Flaw.NONE);
        }

        @Override
        public WorkDistributor newDistributor(
                LockClient client, String group, List<String> items, int cap, String instanceId, ItemWorker worker) {
            return super.newDistributor(client, group + "/" + instanceId, items, cap, instanceId, worker);
        }
    }

    /** A distributor that rebalances once an hour: it never takes a dead instance's items in time. */
    static final class DistributorNeverRebalancing extends Subject {
        DistributorNeverRebalancing() {
            super(Flaw.NONE);
        }

        @Override
        public WorkDistributor newDistributor(
                LockClient client, String group, List<String> items, int cap, String instanceId, ItemWorker worker) {
            return rebalancingHourly(client, group, items, cap, instanceId, worker);
        }
    }

    /** The same, with the store served to child JVMs: the instance killed with SIGKILL is one. */
    static final class DistributorNeverRebalancingAcrossJvms extends Subject {
        DistributorNeverRebalancingAcrossJvms() {
            super(Flaw.NONE, true);
        }

        @Override
        public WorkDistributor newDistributor(
                LockClient client, String group, List<String> items, int cap, String instanceId, ItemWorker worker) {
            return rebalancingHourly(client, group, items, cap, instanceId, worker);
        }
    }

    private static WorkDistributor rebalancingHourly(
            LockClient client, String group, List<String> items, int cap, String instanceId, ItemWorker worker) {
        return WorkDistributor.builder(client, group)
                .items(items)
                .cap(cap)
                .instanceId(instanceId)
                .worker(worker)
                .options(LockOptions.builder().lease(Duration.ofSeconds(1)).build())
                .rebalanceInterval(Duration.ofHours(1))
                .build();
    }

    /** Distributors that give item i to the member ranked i mod M: even and exclusive, but a join moves most items. */
    static final class DistributorByModulo extends Subject {
        DistributorByModulo() {
            super(Flaw.NONE);
        }

        @Override
        public WorkDistributor newDistributor(
                LockClient client, String group, List<String> items, int cap, String instanceId, ItemWorker worker) {
            LockOptions options =
                    LockOptions.builder().lease(tck().settings().shortLease()).build();
            return new ModuloDistributor(client, group, items, cap, instanceId, worker, options);
        }
    }

    /** An elector that believes its term until the store answers again: it leads on through an outage. */
    static final class ElectorLeadingThroughAnOutage extends WithBrokenElector {
        ElectorLeadingThroughAnOutage() {
            super(BrokenElectors.Kind.LEADS_UNTIL_THE_STORE_ANSWERS);
        }
    }

    /** An elector that stands by for good when somebody leads; the leader is a child JVM that gets SIGKILL. */
    static final class ElectorJoiningOnlyAnEmptyElection extends WithBrokenElector {
        ElectorJoiningOnlyAnEmptyElection() {
            super(BrokenElectors.Kind.JOINS_ONLY_AN_EMPTY_ELECTION, true);
        }
    }

    /** Exclusive tasks that never retry a key that was taken, whatever retry interval they were given. */
    static final class TasksNeverRetrying extends Subject {
        TasksNeverRetrying() {
            super(Flaw.NONE, true);
        }

        @Override
        public ExclusiveTasks newExclusiveTasks(
                LockClient client, String prefix, @Nullable Duration retryEvery, TaskEnd whenTaskEnds) {
            return super.newExclusiveTasks(client, prefix, null, whenTaskEnds);
        }
    }

    /** A multi-lock whose acquire(wait) makes one attempt; the holder of the set is a child JVM that gets SIGKILL. */
    static final class MultiLockNeverWaiting extends WithBrokenMultiLock {
        MultiLockNeverWaiting() {
            super(BrokenRecipes.MultiLockFlaw.NEVER_WAITS, true);
        }
    }
}

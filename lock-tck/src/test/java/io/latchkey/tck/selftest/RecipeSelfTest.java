package io.latchkey.tck.selftest;

import static io.latchkey.tck.selftest.SelfTestRuns.failureOf;
import static io.latchkey.tck.selftest.SelfTestRuns.run;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.platform.testkit.engine.Events;

/*
 * "Every rule can fail", for the recipe groups: each broken recipe in RecipeSubjects is caught by the rule written
 * for it, for the stated reason, on a correct store; the control (the real recipes on the same store) passes the
 * same rules.
 */
@DisplayName("TCK self test: the recipe rules catch deliberately broken recipes")
// minutes of broken recipes on the in-memory store: it proves the TCK, not the JDK, so CI runs it on one JDK only
@Tag("recipe-self-test")
class RecipeSelfTest {
    private static final String ONE_LEADER = "elector_oneLeaderAtATimeAndTermsRise";
    private static final String RELINQUISH = "elector_relinquishHandsOverAndStaysOut";
    private static final String LOSS = "elector_lossRevokesAndTheElectorReenters";
    private static final String ONE_RUNNER = "tasks_oneRunnerPerKeyAcrossInstances";
    private static final String TASK_LOSS = "tasks_lossCancelsTheTask";
    private static final String TASK_STOP = "tasks_stopReleasesTheLock";
    private static final String CROSSED = "multilock_noDeadlockWithCrossedOrders";
    private static final String ALL_OR_NOTHING = "multilock_allOrNothingOnTimeout";
    private static final String PART_LOSS = "multilock_lossOfAnyPartInvalidatesTheHandle";
    private static final String CONVERGE = "distribution_convergesEvenlyWithoutDoubleHolds";
    private static final String CAP = "distribution_capIsRespected";
    private static final String TAKEOVER = "distribution_takesOverACrashedInstancesItems";
    private static final String CLOSE = "elector_closeRevokesAndReleases";
    private static final String HOLDING = "tasks_holdingAndLockedEverywhereAgreeWithTheStore";
    private static final String TASKS_CLOSE = "tasks_closeStopsEverythingAndReleases";
    private static final String TASK_ENDS = "tasks_whenTheTaskEndsByItself";
    private static final String BAD_INPUT = "multilock_badInputIsRejectedAndTouchesNothing";
    private static final String RELEASE = "multilock_releaseFreesEveryPartAndTokensRise";
    private static final String OUTAGE = "elector_outageEndsLeadershipNoLaterThanValidUntil";
    private static final String CHURN = "distribution_boundedChurnOnJoinAndLeave";
    private static final String FIGURES = "distribution_figures100ItemsOver10Instances";
    private static final String KILLED_LEADER = "elector_killedLeaderProcessIsReplaced";
    private static final String KILLED_RUNNER = "tasks_killedRunnerProcessIsTakenOver";
    private static final String KILLED_HOLDER = "multilock_killedHolderProcessFreesEveryPart";
    private static final String KILLED_INSTANCE = "distribution_killedInstanceProcessItemsRunElsewhere";

    @Test
    @DisplayName("an elector that keeps leading after its lock was lost is caught by the loss rule")
    void electorThatNeverRevokesIsCaught(TestReporter reporter) {
        Events tests = run(RecipeSubjects.ElectorNeverRevokesOnLoss.class, LOSS);
        // onRevoked never comes: the rule's wait for it times out
        assertThat(failureOf(tests, LOSS, reporter)).isInstanceOf(java.util.concurrent.TimeoutException.class);
    }

    @Test
    @DisplayName("an elector that hands out a stale term is caught: two leaders at once, or tokens that do not rise")
    void electorWithStaleTermIsCaught(TestReporter reporter) {
        Events tests = run(RecipeSubjects.ElectorStaleTerm.class, ONE_LEADER, RELINQUISH);
        assertThat(failureOf(tests, ONE_LEADER, reporter))
                .isInstanceOf(AssertionError.class)
                .message()
                .containsAnyOf("two leaders at once", "term tokens did not rise");
        assertThat(failureOf(tests, RELINQUISH, reporter))
                .isInstanceOf(AssertionError.class)
                .message()
                .contains("did not rise");
    }

    @Test
    @DisplayName("an elector that leaves the election after a loss is caught by the loss rule")
    void electorThatNeverRejoinsIsCaught(TestReporter reporter) {
        Events tests = run(RecipeSubjects.ElectorNeverRejoins.class, LOSS);
        assertThat(failureOf(tests, LOSS, reporter))
                .isInstanceOf(AssertionError.class)
                .message()
                .contains("did not re-enter");
    }

    @Test
    @DisplayName("an elector whose relinquish keeps the lock is caught by the relinquish rule")
    void electorWhoseRelinquishKeepsTheLockIsCaught(TestReporter reporter) {
        Events tests = run(RecipeSubjects.ElectorRelinquishKeepsTheLock.class, RELINQUISH);
        assertThat(failureOf(tests, RELINQUISH, reporter))
                .isInstanceOf(AssertionError.class)
                .message()
                .contains("still true after relinquish");
    }

    @Test
    @DisplayName("exclusive tasks that keep running after a loss are caught by the loss rule")
    void tasksIgnoringLossAreCaught(TestReporter reporter) {
        Events tests = run(RecipeSubjects.TasksIgnoringLoss.class, TASK_LOSS);
        // the task never sees the loss, so it never ends: the rule's wait for its end times out
        assertThat(failureOf(tests, TASK_LOSS, reporter)).isInstanceOf(java.util.concurrent.TimeoutException.class);
    }

    @Test
    @DisplayName("exclusive tasks whose stop does nothing are caught by the stop rule")
    void tasksWhoseStopKeepsTheLockAreCaught(TestReporter reporter) {
        Events tests = run(RecipeSubjects.TasksStopKeepingTheLock.class, TASK_STOP);
        assertThat(failureOf(tests, TASK_STOP, reporter))
                .isInstanceOf(AssertionError.class)
                .message()
                .contains("stop returned before the task did");
    }

    @Test
    @DisplayName("exclusive tasks that run without the shared lock are caught: two runners at once")
    void tasksWithoutTheSharedLockAreCaught(TestReporter reporter) {
        Events tests = run(RecipeSubjects.TasksWithoutTheSharedLock.class, ONE_RUNNER);
        assertThat(failureOf(tests, ONE_RUNNER, reporter))
                .isInstanceOf(AssertionError.class)
                .message()
                .containsAnyOf("two runners at once", "lost updates", "tokens did not rise");
    }

    @Test
    @DisplayName("a multi-lock taking parts in argument order deadlocks under crossed orders, and is caught")
    void multiLockInArgumentOrderIsCaught(TestReporter reporter) {
        Events tests = run(RecipeSubjects.MultiLockInArgumentOrder.class, CROSSED);
        assertThat(failureOf(tests, CROSSED, reporter))
                .isInstanceOf(AssertionError.class)
                .message()
                .contains("deadlock");
    }

    @Test
    @DisplayName("a store that grants everything is caught by the crossed-orders rule: holders overlap")
    void crossedOrdersCatchAStoreThatGrantsEverything(TestReporter reporter) {
        Events tests = run(FlawedSubjects.GrantsEverything.class, CROSSED);
        assertThat(failureOf(tests, CROSSED, reporter))
                .isInstanceOf(AssertionError.class)
                .message()
                .containsAnyOf("overlap on", "lost updates on");
    }

    @Test
    @DisplayName("a multi-lock keeping its parts after a timeout is caught by the all-or-nothing rule")
    void multiLockKeepingPartsIsCaught(TestReporter reporter) {
        Events tests = run(RecipeSubjects.MultiLockKeepingPartsOnTimeout.class, ALL_OR_NOTHING);
        assertThat(failureOf(tests, ALL_OR_NOTHING, reporter))
                .isInstanceOf(AssertionError.class)
                .message()
                .contains("left a part held");
    }

    @Test
    @DisplayName("a multi-lock whose handle stays valid after a part is lost is caught")
    void multiLockStayingValidIsCaught(TestReporter reporter) {
        Events tests = run(RecipeSubjects.MultiLockStayingValid.class, PART_LOSS);
        assertThat(failureOf(tests, PART_LOSS, reporter))
                .isInstanceOf(AssertionError.class)
                .message()
                .contains("stayed valid");
    }

    @Test
    @DisplayName("a distributor ignoring its cap is caught by the cap rule")
    void distributorIgnoringTheCapIsCaught(TestReporter reporter) {
        Events tests = run(RecipeSubjects.DistributorIgnoringTheCap.class, CAP);
        assertThat(failureOf(tests, CAP, reporter))
                .isInstanceOf(AssertionError.class)
                .message()
                .contains("no even spread");
    }

    @Test
    @DisplayName("distributors without shared item locks are caught: items held twice, no even spread")
    void distributorWithoutSharedLocksIsCaught(TestReporter reporter) {
        Events tests = run(RecipeSubjects.DistributorWithoutSharedLocks.class, CONVERGE);
        assertThat(failureOf(tests, CONVERGE, reporter))
                .isInstanceOf(AssertionError.class)
                .message()
                .containsAnyOf("no even spread", "held twice");
    }

    @Test
    @DisplayName("a distributor that does not rebalance is caught by the takeover rule")
    void distributorNeverRebalancingIsCaught(TestReporter reporter) {
        Events tests = run(RecipeSubjects.DistributorNeverRebalancing.class, TAKEOVER);
        assertThat(failureOf(tests, TAKEOVER, reporter))
                .isInstanceOf(AssertionError.class)
                .message()
                .contains("no even spread");
    }

    @Test
    @DisplayName("an elector whose close keeps the lock is caught by the close rule")
    void electorWhoseCloseKeepsTheLockIsCaught(TestReporter reporter) {
        Events tests = run(RecipeSubjects.ElectorCloseKeepsTheLock.class, CLOSE);
        // onRevoked(CLOSED) never comes: the rule's wait for it times out
        assertThat(failureOf(tests, CLOSE, reporter)).isInstanceOf(java.util.concurrent.TimeoutException.class);
    }

    @Test
    @DisplayName("exclusive tasks whose holding() forgets, whose close() does nothing, or that ignore KEEP_HOLDING"
            + " are caught")
    void tasksWithBrokenBookkeepingAreCaught(TestReporter reporter) {
        assertThat(failureOf(run(RecipeSubjects.TasksForgettingWhatTheyHold.class, HOLDING), HOLDING, reporter))
                .isInstanceOf(AssertionError.class)
                .message()
                .contains("but was: <[]>");
        assertThat(failureOf(run(RecipeSubjects.TasksClosingNothing.class, TASKS_CLOSE), TASKS_CLOSE, reporter))
                .isInstanceOf(AssertionError.class)
                .message()
                .contains("after close()");
        assertThat(failureOf(run(RecipeSubjects.TasksIgnoringKeepHolding.class, TASK_ENDS), TASK_ENDS, reporter))
                .isInstanceOf(org.awaitility.core.ConditionTimeoutException.class);
    }

    @Test
    @DisplayName("multi-locks without input checks, or whose release releases nothing, are caught")
    void multiLocksWithBrokenInputOrReleaseAreCaught(TestReporter reporter) {
        assertThat(failureOf(run(RecipeSubjects.MultiLockWithoutInputChecks.class, BAD_INPUT), BAD_INPUT, reporter))
                .isInstanceOf(AssertionError.class)
                .message()
                .contains("IllegalArgumentException");
        assertThat(failureOf(run(RecipeSubjects.MultiLockReleasingNothing.class, RELEASE), RELEASE, reporter))
                .isInstanceOf(AssertionError.class)
                .message()
                .containsAnyOf("not free at once", "stayed valid after release()");
    }

    @Test
    @DisplayName("an elector that believes its term until the store answers again is caught by the outage rule")
    void electorLeadingThroughAnOutageIsCaught(TestReporter reporter) {
        Events tests = run(RecipeSubjects.ElectorLeadingThroughAnOutage.class, OUTAGE);
        assertThat(failureOf(tests, OUTAGE, reporter))
                .isInstanceOf(AssertionError.class)
                .message()
                .contains("still leading");
    }

    @Test
    @DisplayName("distributors that assign by index modulo the member count are caught by the churn rule")
    void distributorByModuloIsCaught(TestReporter reporter) {
        Events tests = run(RecipeSubjects.DistributorByModulo.class, CHURN);
        assertThat(failureOf(tests, CHURN, reporter))
                .isInstanceOf(AssertionError.class)
                .message()
                .contains("items moved when a 4th instance joined");
    }

    @Test
    @DisplayName("distributors without shared item locks are caught by the 100-item figures rule, when it runs")
    void figuresRuleCatchesDistributorsWithoutSharedLocks(TestReporter reporter) {
        Events tests = withFiguresOn(() -> run(RecipeSubjects.DistributorWithoutSharedLocks.class, FIGURES));
        assertThat(failureOf(tests, FIGURES, reporter))
                .isInstanceOf(AssertionError.class)
                .message()
                .containsAnyOf("no even spread", "held twice");
    }

    @Test
    @DisplayName("(child JVMs) an elector that stands by when somebody leads is caught: the SIGKILL'd leader is not"
            + " replaced")
    void electorJoiningOnlyAnEmptyElectionIsCaught(TestReporter reporter) {
        Events tests = run(RecipeSubjects.ElectorJoiningOnlyAnEmptyElection.class, KILLED_LEADER);
        assertThat(failureOf(tests, KILLED_LEADER, reporter))
                .isInstanceOf(AssertionError.class)
                .message()
                .contains("no new leader within");
    }

    @Test
    @DisplayName("(child JVMs) exclusive tasks that never retry are caught: the SIGKILL'd runner's key is not taken"
            + " over")
    void tasksNeverRetryingAreCaught(TestReporter reporter) {
        Events tests = run(RecipeSubjects.TasksNeverRetrying.class, KILLED_RUNNER);
        // the survivor's task never starts: the rule's wait for it times out
        assertThat(failureOf(tests, KILLED_RUNNER, reporter)).isInstanceOf(java.util.concurrent.TimeoutException.class);
    }

    @Test
    @DisplayName("(child JVMs) a multi-lock that never waits is caught: it does not get the SIGKILL'd holder's set")
    void multiLockNeverWaitingIsCaught(TestReporter reporter) {
        Events tests = run(RecipeSubjects.MultiLockNeverWaiting.class, KILLED_HOLDER);
        assertThat(failureOf(tests, KILLED_HOLDER, reporter)).isInstanceOf(io.latchkey.LockTimeoutException.class);
    }

    @Test
    @DisplayName("(child JVMs) a distributor that does not rebalance is caught: it never takes the items the child"
            + " JVM gives up")
    void distributorNeverRebalancingAcrossJvmsIsCaught(TestReporter reporter) {
        Events tests = run(RecipeSubjects.DistributorNeverRebalancingAcrossJvms.class, KILLED_INSTANCE);
        // its only round runs before the child gives anything up, so it is caught before the kill
        assertThat(failureOf(tests, KILLED_INSTANCE, reporter))
                .isInstanceOf(AssertionError.class)
                .message()
                .contains("no even split of the 8 items")
                .contains("the survivor holds []");
    }

    @ParameterizedTest(name = "control: the real recipes pass {0}")
    @ValueSource(
            strings = {
                ONE_LEADER,
                RELINQUISH,
                LOSS,
                ONE_RUNNER,
                TASK_LOSS,
                TASK_STOP,
                CROSSED,
                ALL_OR_NOTHING,
                PART_LOSS,
                CONVERGE,
                CAP,
                TAKEOVER,
                CLOSE,
                HOLDING,
                TASKS_CLOSE,
                TASK_ENDS,
                BAD_INPUT,
                RELEASE,
                OUTAGE,
                CHURN
            })
    @DisplayName("control: the real recipes on the same store pass every targeted rule")
    void controlPassesTheTargetedRule(String rule) {
        assertPasses(run(FlawedSubjects.NoFlaw.class, rule), rule);
    }

    @ParameterizedTest(name = "control: the real recipes pass {0} with child JVMs on the served store")
    @ValueSource(strings = {KILLED_LEADER, KILLED_RUNNER, KILLED_HOLDER, KILLED_INSTANCE})
    @DisplayName("control: the real recipes pass every SIGKILL rule, the store served to the child JVMs")
    void controlPassesTheChildJvmRules(String rule) {
        assertPasses(run(FlawedSubjects.NoFlawServingChildJvms.class, rule), rule);
    }

    @Test
    @DisplayName("control: the real recipes pass the 100-item figures rule")
    void controlPassesTheFiguresRule() {
        assertPasses(withFiguresOn(() -> run(FlawedSubjects.NoFlaw.class, FIGURES)), FIGURES);
    }

    private static void assertPasses(Events tests, String rule) {
        List<String> failures =
                tests.failed().stream().map(SelfTestRuns::describe).toList();
        assertThat(failures).as("failures of the control").isEmpty();
        assertThat(tests.succeeded().count())
                .as("rule %s passed on the control", rule)
                .isEqualTo(1);
    }

    /** Runs with the figures rule switched on (it reads a system property), restoring the property after. */
    static Events withFiguresOn(java.util.function.Supplier<Events> run) {
        String key = io.latchkey.tck.DistributionRules.FIGURES_PROPERTY;
        String before = System.getProperty(key);
        System.setProperty(key, "true");
        try {
            return run.get();
        } finally {
            if (before == null) {
                System.clearProperty(key);
            } else {
                System.setProperty(key, before);
            }
        }
    }
}

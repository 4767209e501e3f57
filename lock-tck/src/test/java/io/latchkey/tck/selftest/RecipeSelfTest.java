package io.latchkey.tck.selftest;

import static io.latchkey.tck.selftest.SelfTestRuns.failureOf;
import static io.latchkey.tck.selftest.SelfTestRuns.run;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.DisplayName;
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
class RecipeSelfTest {
    private static final String ONE_LEADER = "elector_oneLeaderAtATimeAndTermsRise";
    private static final String RELINQUISH = "elector_relinquishHandsOverAndStaysOut";
    private static final String LOSS = "elector_lossRevokesAndTheElectorReenters";

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

    @ParameterizedTest(name = "control: the real recipes pass {0}")
    @ValueSource(strings = {ONE_LEADER, RELINQUISH, LOSS})
    @DisplayName("control: the real recipes on the same store pass every targeted rule")
    void controlPassesTheTargetedRule(String rule) {
        Events tests = run(FlawedSubjects.NoFlaw.class, rule);
        List<String> failures =
                tests.failed().stream().map(SelfTestRuns::describe).toList();
        assertThat(failures).as("failures of the control").isEmpty();
        assertThat(tests.succeeded().count())
                .as("rule %s passed on the control", rule)
                .isEqualTo(1);
    }
}

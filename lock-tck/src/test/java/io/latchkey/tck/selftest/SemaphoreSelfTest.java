package io.latchkey.tck.selftest;

import static io.latchkey.tck.selftest.SelfTestRuns.failureOf;
import static io.latchkey.tck.selftest.SelfTestRuns.run;
import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.tck.SemaphoreRules;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;
import org.junit.platform.testkit.engine.Events;

/*
 * The semaphore rules can fail: each SemaphoreFlaw (over-grant by one, a permit leak, no return after death, a
 * shared token, a store that grants everything) fails the rule written for it, for the stated reason, and the
 * control (the in-memory store's correct semaphores behind the same decorator) passes every rule.
 */
@DisplayName("TCK self test: the semaphore rules catch deliberately broken semaphores")
// proves the TCK, not the JDK: CI runs it on one JDK only
@org.junit.jupiter.api.Tag("self-test")
class SemaphoreSelfTest {
    private static final String NEVER_OVER = "semaphore_neverGrantsMoreThanItsPermits";
    private static final String TOKENS = "semaphore_tokensRiseAcrossTheSemaphore";
    private static final String COUNTS = "semaphore_releaseReturnsPermitsAndAvailableCountsThem";
    private static final String WAITER = "semaphore_aWaiterGetsPermitsWhenReleased";
    private static final String DEAD = "semaphore_deadHoldersPermitsReturnAfterItsLease";
    private static final String LOSS = "semaphore_lossIsReported";
    private static final String IDENTITY = "semaphore_anotherPermitCountIsRefused";
    private static final String BAD_INPUT = "semaphore_badInputIsRejected";
    private static final String REFUSED = "semaphore_refusedPolitelyWithoutTheCapability";

    @Test
    @DisplayName("control: correct semaphores pass every semaphore rule (the no-capability rule is skipped)")
    void controlPassesEveryRule() {
        List<String> rules = allRules();
        Events tests = run(SemaphoreSubjects.NoFlaw.class, rules.toArray(String[]::new));
        assertThat(tests.failed().stream().map(SelfTestRuns::describe).toList())
                .as("failures of the control")
                .isEmpty();
        assertThat(tests.succeeded().count()).isEqualTo(rules.size() - 1);
        assertThat(tests.aborted().stream().map(SelfTestRuns::ruleOf).toList()).containsExactly(REFUSED);
    }

    @Test
    @DisplayName("OVER_GRANT_BY_ONE is caught by #" + NEVER_OVER + " and #" + COUNTS)
    void overGrantByOneIsCaught(TestReporter reporter) {
        Events tests = run(SemaphoreSubjects.OverGrantByOne.class, NEVER_OVER, COUNTS);
        assertThat(failureOf(tests, NEVER_OVER, reporter)).hasMessageContaining("more permits out than 4");
        assertThat(failureOf(tests, COUNTS, reporter)).hasMessageContaining("4 permits granted while only 3");
    }

    @Test
    @DisplayName("PERMIT_LEAK is caught by #" + COUNTS)
    void permitLeakIsCaught(TestReporter reporter) {
        Events tests = run(SemaphoreSubjects.PermitLeak.class, COUNTS);
        assertThat(failureOf(tests, COUNTS, reporter)).hasMessageContaining("after 2 were released");
    }

    @Test
    @DisplayName("NO_RETURN_AFTER_DEATH is caught by #" + DEAD)
    void noReturnAfterDeathIsCaught(TestReporter reporter) {
        Events tests = run(SemaphoreSubjects.NoReturnAfterDeath.class, DEAD);
        assertThat(failureOf(tests, DEAD, reporter)).hasMessageContaining("did not come back within");
    }

    @Test
    @DisplayName("SHARED_TOKEN is caught by #" + TOKENS + " and #" + NEVER_OVER)
    void sharedTokenIsCaught(TestReporter reporter) {
        Events tests = run(SemaphoreSubjects.SharedToken.class, TOKENS, NEVER_OVER);
        assertThat(failureOf(tests, TOKENS, reporter)).hasMessageContaining("tokens did not rise");
        assertThat(failureOf(tests, NEVER_OVER, reporter)).hasMessageContaining("two grants shared a token");
    }

    /** Rules that pass on a store granting everything, each because it checks only the core's side. */
    private static final Set<String> PASS_ON_ANY_STORE = Set.of(
            // bad counts and options are rejected by the core before the store is asked
            BAD_INPUT,
            // an unrenewed grant's loss is the core's watchdog running out its own validity
            LOSS,
            // a store that counts everything as free still hands out rising tokens from its counter
            TOKENS);

    @Test
    @DisplayName("a store that grants everything fails every semaphore rule that asks the store")
    void grantsEverythingFailsTheStoreRules(TestReporter reporter) {
        List<String> rules = allRules();
        Events tests = run(SemaphoreSubjects.GrantsEverything.class, rules.toArray(String[]::new));
        Set<String> passed =
                tests.succeeded().stream().map(SelfTestRuns::ruleOf).collect(Collectors.toCollection(TreeSet::new));
        tests.failed().stream().forEach(e -> reporter.publishEntry(SelfTestRuns.ruleOf(e), SelfTestRuns.describe(e)));
        assertThat(passed)
                .as("semaphore rules passing on a store granting everything")
                .isEqualTo(PASS_ON_ANY_STORE);
        assertThat(failureOf(tests, IDENTITY, reporter)).hasMessageContaining("IllegalArgumentException");
        assertThat(failureOf(tests, WAITER, reporter)).isNotNull();
    }

    private static List<String> allRules() {
        return Arrays.stream(SemaphoreRules.class.getDeclaredMethods())
                .filter(m -> m.isAnnotationPresent(Test.class))
                .map(Method::getName)
                .sorted()
                .toList();
    }
}

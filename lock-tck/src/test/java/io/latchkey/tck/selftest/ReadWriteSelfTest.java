package io.latchkey.tck.selftest;

import static io.latchkey.tck.selftest.SelfTestRuns.failureOf;
import static io.latchkey.tck.selftest.SelfTestRuns.run;
import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.tck.ReadWriteRules;
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
 * The read-write rules can fail: each ReadWriteFlaw (a reader beside a writer, no writer preference, a leaked
 * writer intent, a downgrade with a gap, a store that grants everything) fails the rule written for it, for the stated reason, and the
 * control (the in-memory store's correct read-write locks behind the same decorator) passes every rule.
 */
@DisplayName("TCK self test: the read-write rules catch deliberately broken read-write locks")
// proves the TCK, not the JDK: CI runs it on one JDK only
@org.junit.jupiter.api.Tag("self-test")
class ReadWriteSelfTest {
    private static final String SHARE = "rw_readersShareAndExcludeWriters";
    private static final String REGISTER = "rw_exclusionUnderConcurrency";
    private static final String STARVE = "rw_writerIsNotStarvedByReaders";
    private static final String GIVES_UP = "rw_aWriterThatGivesUpLetsReadersIn";
    private static final String TOKENS = "rw_tokensRiseAcrossBothSides";
    private static final String UPGRADE = "rw_upgradeIsRefused";
    private static final String CRASH = "rw_crashedWritersLockFrees";
    private static final String LOSS = "rw_lossIsReported";
    private static final String REFUSED = "rw_refusedPolitelyWithoutTheCapability";
    private static final String DOWNGRADE = "rw_downgradeLeavesNoGap";
    private static final String DOWNGRADE_INPUT = "rw_downgradeNeedsAHeldWriteGrantOfThisLock";

    @Test
    @DisplayName("control: correct read-write locks pass every read-write rule (the no-capability rule is skipped)")
    void controlPassesEveryRule() {
        List<String> rules = allRules();
        Events tests = run(ReadWriteSubjects.NoFlaw.class, rules.toArray(String[]::new));
        assertThat(tests.failed().stream().map(SelfTestRuns::describe).toList())
                .as("failures of the control")
                .isEmpty();
        assertThat(tests.succeeded().count()).isEqualTo(rules.size() - 1);
        assertThat(tests.aborted().stream().map(SelfTestRuns::ruleOf).toList()).containsExactly(REFUSED);
    }

    @Test
    @DisplayName("READER_BESIDE_WRITER is caught by #" + SHARE + " and #" + REGISTER)
    void readerBesideWriterIsCaught(TestReporter reporter) {
        Events tests = run(ReadWriteSubjects.ReaderBesideWriter.class, SHARE, REGISTER);
        assertThat(failureOf(tests, SHARE, reporter)).hasMessageContaining("a reader was admitted while a writer held");
        assertThat(failureOf(tests, REGISTER, reporter)).hasMessageContaining("exclusion broken");
    }

    @Test
    @DisplayName("NO_WRITER_PREFERENCE is caught by #" + STARVE)
    void noWriterPreferenceIsCaught(TestReporter reporter) {
        Events tests = run(ReadWriteSubjects.NoWriterPreference.class, STARVE);
        assertThat(failureOf(tests, STARVE, reporter)).hasMessageContaining("never got the lock");
    }

    @Test
    @DisplayName("INTENT_LEAK is caught by #" + GIVES_UP + " and #" + SHARE)
    void intentLeakIsCaught(TestReporter reporter) {
        Events tests = run(ReadWriteSubjects.IntentLeak.class, GIVES_UP, SHARE);
        assertThat(failureOf(tests, GIVES_UP, reporter)).hasMessageContaining("had given up");
        assertThat(failureOf(tests, SHARE, reporter)).hasMessageContaining("a released lock refused a reader");
    }

    @Test
    @DisplayName("DOWNGRADE_WITH_GAP is caught by #" + DOWNGRADE)
    void downgradeWithAGapIsCaught(TestReporter reporter) {
        Events tests = run(ReadWriteSubjects.DowngradeWithGap.class, DOWNGRADE);
        assertThat(failureOf(tests, DOWNGRADE, reporter)).hasMessageContaining("there was a gap");
    }

    /** Rules that pass on a store granting everything, each because it checks only the core's side. */
    private static final Set<String> PASS_ON_ANY_STORE = Set.of(
            // the core refuses the upgrade before the store is asked
            UPGRADE,
            // an unrenewed grant's loss is the core's watchdog running out its own validity
            LOSS,
            // a store that grants everything still hands out rising tokens from its one counter
            TOKENS,
            // the core refuses bad handles before the store is asked
            DOWNGRADE_INPUT);

    @Test
    @DisplayName("a store that grants everything fails every read-write rule that depends on refusing")
    void grantsEverythingFailsTheStoreRules(TestReporter reporter) {
        List<String> rules = allRules();
        Events tests = run(ReadWriteSubjects.GrantsEverything.class, rules.toArray(String[]::new));
        Set<String> passed =
                tests.succeeded().stream().map(SelfTestRuns::ruleOf).collect(Collectors.toCollection(TreeSet::new));
        tests.failed().stream().forEach(e -> reporter.publishEntry(SelfTestRuns.ruleOf(e), SelfTestRuns.describe(e)));
        assertThat(passed)
                .as("read-write rules passing on a store granting everything")
                .isEqualTo(PASS_ON_ANY_STORE);
        assertThat(failureOf(tests, CRASH, reporter)).hasMessageContaining("a reader was admitted beside the writer");
        assertThat(failureOf(tests, STARVE, reporter)).hasMessageContaining("exclusion broken");
    }

    private static List<String> allRules() {
        return Arrays.stream(ReadWriteRules.class.getDeclaredMethods())
                .filter(m -> m.isAnnotationPresent(Test.class))
                .map(Method::getName)
                .sorted()
                .toList();
    }
}

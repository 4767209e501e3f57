package io.latchkey.tck.selftest;

import static io.latchkey.tck.selftest.SelfTestRuns.run;
import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.tck.DistributionRules;
import io.latchkey.tck.ElectorRules;
import io.latchkey.tck.ExclusiveTaskRules;
import io.latchkey.tck.MultiLockRules;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;
import org.junit.platform.testkit.engine.Events;

/*
 * The baseline every new rule is checked against: a store that stores nothing and grants everything. Every recipe
 * rule that depends on the store must fail on it; the few that check only the recipe's own side are listed here,
 * each with the reason it passes.
 */
@DisplayName("TCK self test: a store that grants everything fails the recipe rules")
// minutes of broken recipes on the in-memory store: it proves the TCK, not the JDK, so CI runs it on one JDK only
@Tag("recipe-self-test")
class GrantEverythingSelfTest {
    /** Rules that hold on any store, because they check what the recipe does before or without the store. */
    private static final Set<String> PASS_ON_ANY_STORE = Set.of(
            // the input is rejected before the store is asked
            "multilock_badInputIsRejectedAndTouchesNothing");

    @Test
    @DisplayName("every recipe rule that depends on the store fails on a store that grants everything")
    void everyStoreDependentRecipeRuleFails(TestReporter reporter) {
        List<String> rules = Stream.of(
                        ElectorRules.class, ExclusiveTaskRules.class, MultiLockRules.class, DistributionRules.class)
                .flatMap(c -> Arrays.stream(c.getDeclaredMethods()))
                .filter(m -> m.isAnnotationPresent(Test.class))
                .map(Method::getName)
                .sorted()
                .toList();
        Events tests = RecipeSelfTest.withFiguresOn(
                () -> run(FlawedSubjects.GrantsEverything.class, rules.toArray(String[]::new)));
        Set<String> passed =
                tests.succeeded().stream().map(SelfTestRuns::ruleOf).collect(Collectors.toCollection(TreeSet::new));
        tests.failed().stream().forEach(e -> reporter.publishEntry(SelfTestRuns.ruleOf(e), SelfTestRuns.describe(e)));
        reporter.publishEntry(
                "grants-everything", (rules.size() - passed.size()) + " of " + rules.size() + " recipe rules fail");
        assertThat(passed)
                .as("recipe rules that pass on a store granting everything")
                .isEqualTo(PASS_ON_ANY_STORE);
    }
}

package io.latchkey.tck.selftest;

import static io.latchkey.tck.selftest.SelfTestRuns.run;
import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.tck.CapabilityRules;
import io.latchkey.tck.ClockFaultRules;
import io.latchkey.tck.HandOverRules;
import io.latchkey.tck.HistoryRules;
import io.latchkey.tck.NetworkFaultRules;
import io.latchkey.tck.ProcessFaultRules;
import io.latchkey.tck.ExclusionRules;
import io.latchkey.tck.FencingRules;
import io.latchkey.tck.IdempotencyRules;
import io.latchkey.tck.InspectionRules;
import io.latchkey.tck.NamespaceRules;
import io.latchkey.tck.LeaseRules;
import io.latchkey.tck.LossRules;
import io.latchkey.tck.OwnershipRules;
import io.latchkey.tck.ValidationRules;
import io.latchkey.tck.WaitingRules;
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
 * A backend that does nothing useful must fail nearly everything (TCK v2: at least 90 % of the lock rules that apply
 * to it). The subject stores nothing and grants everything (Flaw.GRANTS_EVERYTHING): every tryAcquire is granted,
 * every renew and release succeeds, inspect and list show nothing. Rules that do not apply to it (capabilities it
 * does not claim) are aborted and not counted. The few rules it passes are listed, each with why: they check what the
 * core does on its own, before or without the store.
 */
@DisplayName("TCK self test: a backend that stores nothing and grants everything fails at least 90 % of the lock rules")
@Tag("self-test")
class NoOpBackendSelfTest {
    /** The lock rules that hold on any store, each because it checks the core alone. */
    static final Set<String> PASS_ON_ANY_STORE = Set.of(
            // LockOptions rejects a bad duration before any client or store is involved
            "validation_badDurationsAreRejected");

    @Test
    @DisplayName("a store that grants everything fails at least 90 % of the lock rules that apply to it")
    void grantsEverythingFailsNinetyPercentOfTheLockRules(TestReporter reporter) {
        List<String> rules = Stream.of(
                        ExclusionRules.class,
                        FencingRules.class,
                        LeaseRules.class,
                        OwnershipRules.class,
                        HandOverRules.class,
                        LossRules.class,
                        WaitingRules.class,
                        IdempotencyRules.class,
                        InspectionRules.class,
                        NamespaceRules.class,
                        ValidationRules.class,
                        CapabilityRules.class,
                        HistoryRules.class,
                        ProcessFaultRules.class,
                        ClockFaultRules.class,
                        NetworkFaultRules.class)
                .flatMap(c -> Arrays.stream(c.getDeclaredMethods()))
                .filter(m -> m.isAnnotationPresent(Test.class))
                .map(Method::getName)
                .sorted()
                .toList();
        // concurrently: every test instance has a store of its own, and a rule that waits for what never comes
        // fails after its own bound, so 40 rules in a row would take half a minute
        Events tests = run(FlawedSubjects.GrantsEverything.class, true, rules.toArray(String[]::new));
        Set<String> passed =
                tests.succeeded().stream().map(SelfTestRuns::ruleOf).collect(Collectors.toCollection(TreeSet::new));
        Set<String> notApplicable =
                tests.aborted().stream().map(SelfTestRuns::ruleOf).collect(Collectors.toCollection(TreeSet::new));
        long applicable = (long) rules.size() - notApplicable.size();
        long failed = tests.failed().count();
        String summary = "FIGURE grants-everything fails " + failed + " of " + applicable + " applicable lock rules ("
                + (100 * failed / applicable) + " %); passes " + passed + "; not applicable " + notApplicable;
        reporter.publishEntry("grants-everything", summary);
        System.out.println(summary);
        assertThat(passed).as("lock rules a store granting everything passes").isEqualTo(PASS_ON_ANY_STORE);
        assertThat(failed * 100).as(summary).isGreaterThanOrEqualTo(applicable * 90);
    }
}

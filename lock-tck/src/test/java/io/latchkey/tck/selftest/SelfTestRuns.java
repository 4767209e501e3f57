package io.latchkey.tck.selftest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

import io.latchkey.tck.selftest.FlawedSubjects.Subject;
import java.util.Arrays;
import org.junit.jupiter.api.TestReporter;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.MethodSelector;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;
import org.junit.platform.testkit.engine.Events;

/** How the self-tests run chosen TCK rules on one subject and read why a rule failed. */
final class SelfTestRuns {
    private SelfTestRuns() {}

    private static volatile Flaw flawUnderTest;

    /** The flaw {@link FlawedSubjects.Catalogued} is built with: the one the running catalogue entry set. */
    static Flaw flawUnderTest() {
        Flaw f = flawUnderTest;
        if (f == null) {
            throw new IllegalStateException("FlawedSubjects.Catalogued runs only through SelfTestRuns.run(Flaw, ...)");
        }
        return f;
    }

    /** Runs the given rules on a {@link FlawedStore} with {@code flaw} (the self-tests run one at a time). */
    static Events run(Flaw flaw, String... rules) {
        flawUnderTest = flaw;
        try {
            return run(FlawedSubjects.Catalogued.class, rules);
        } finally {
            flawUnderTest = null;
        }
    }

    /** How long the rule ran before it finished, from its started and finished events. */
    static java.time.Duration durationOf(Events tests, String rule) {
        java.time.Instant started = tests.started().stream()
                .filter(e -> rule.equals(ruleOf(e)))
                .findFirst()
                .orElseThrow()
                .getTimestamp();
        java.time.Instant finished = tests.finished().stream()
                .filter(e -> rule.equals(ruleOf(e)))
                .findFirst()
                .orElseThrow()
                .getTimestamp();
        return java.time.Duration.between(started, finished);
    }

    /** Runs the given rules of the TCK on one subject and returns the test events. */
    static Events run(Class<? extends Subject> subject, String... rules) {
        return run(subject, false, rules);
    }

    /**
     * As {@link #run(Class, String...)}, with the rules run concurrently (8 at a time) when {@code parallel}: for a
     * subject whose rules all fail and whose every test instance has a store of its own, so that nothing is shared.
     */
    static Events run(Class<? extends Subject> subject, boolean parallel, String... rules) {
        MethodSelector[] selectors =
                Arrays.stream(rules).map(r -> selectMethod(subject, r)).toArray(MethodSelector[]::new);
        EngineTestKit.Builder kit = EngineTestKit.engine("junit-jupiter")
                .configurationParameter(FlawedSubjects.ENABLED_PARAMETER, "true")
                .selectors(selectors);
        if (parallel) {
            kit.configurationParameter("junit.jupiter.execution.parallel.enabled", "true")
                    .configurationParameter("junit.jupiter.execution.parallel.mode.default", "concurrent")
                    .configurationParameter("junit.jupiter.execution.parallel.config.strategy", "fixed")
                    .configurationParameter("junit.jupiter.execution.parallel.config.fixed.parallelism", "8");
        }
        Events tests = kit.execute().testEvents();
        assertThat(tests.started().stream().map(SelfTestRuns::ruleOf).toList())
                .as("TCK rules started on %s (none skipped, none missing)", subject.getSimpleName())
                .containsExactlyInAnyOrder(rules);
        return tests;
    }

    /** Asserts that the rule failed (not aborted, not passed) and returns the failure. */
    static Throwable failureOf(Events tests, String rule, TestReporter reporter) {
        Event finished = tests.finished().stream()
                .filter(e -> rule.equals(ruleOf(e)))
                .findFirst()
                .orElseThrow(() -> new AssertionError("rule " + rule + " did not finish"));
        TestExecutionResult result = finished.getRequiredPayload(TestExecutionResult.class);
        assertThat(result.getStatus())
                .as("outcome of TCK rule %s on the flawed backend", rule)
                .isEqualTo(TestExecutionResult.Status.FAILED);
        Throwable why = result.getThrowable().orElseThrow();
        reporter.publishEntry(rule, String.valueOf(why));
        return why;
    }

    static String ruleOf(Event e) {
        return e.getTestDescriptor()
                .getSource()
                .filter(MethodSource.class::isInstance)
                .map(s -> ((MethodSource) s).getMethodName())
                .orElse(e.getTestDescriptor().getDisplayName());
    }

    static String describe(Event e) {
        return ruleOf(e) + ": "
                + e.getPayload(TestExecutionResult.class)
                        .flatMap(TestExecutionResult::getThrowable)
                        .map(String::valueOf)
                        .orElse("?");
    }
}

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
import org.opentest4j.AssertionFailedError;

/*
 * "The TCK must be able to fail" (docs/design.md §7): runs TCK rules against deliberately broken backends and
 * checks that each flaw is caught by the rule written for it, for the right reason.
 *
 * Each test launches the Jupiter engine through the JUnit Platform TestKit on one subject from
 * FlawedSubjects (a LockBackendTck subclass on a FlawedStore with one Flaw), selecting only the targeted
 * rule methods: the whole TCK per flaw would take far too long. The rules are default methods of the rule
 * interfaces; selectMethod(subjectClass, name) finds them through the concrete subclass, and every run
 * asserts that the selected rules really started, so a selector that resolves to nothing cannot pass.
 *
 * The control runs the same rules on the same store with Flaw.NONE and expects every one to pass: each
 * failure above is then due to its flaw, not to the scaffold.
 */
@DisplayName("TCK self test: the TCK catches deliberately broken backends")
// proves the TCK, not the JDK: CI runs it on one JDK only
@org.junit.jupiter.api.Tag("self-test")
class TckSelfTest {
    private static final String EXCLUSION = "exclusion_noOverlapAndNoLostUpdateUnderConcurrency";
    private static final String FENCING_ACROSS_RELEASES = "fencing_tokensIncreaseAcrossClientsAndReleases";
    private static final String FENCING_AFTER_EXPIRY = "fencing_tokenIncreasesAfterExpiry";
    private static final String OWNERSHIP = "ownership_staleReleaseAndRenewDoNotTouchNewOwner";
    private static final String LEASE = "lease_crashedHoldersGrantFreesWithinLeasePlusSlack";
    private static final String LOSS = "loss_forcedReleaseIsReportedToTheHolder";
    private static final String VALIDATION = "validation_hostileValidNamesWorkAndStayDistinct";

    @Test
    @DisplayName("NO_EXCLUSION_UNDER_RACE is caught by ExclusionRules#" + EXCLUSION)
    void tckCatchesNoExclusionUnderRace(TestReporter reporter) {
        Events tests = run(FlawedSubjects.NoExclusionUnderRace.class, EXCLUSION);

        Throwable why = failureOf(tests, EXCLUSION, reporter);
        assertThat(why)
                .isInstanceOf(AssertionFailedError.class)
                .message()
                .containsAnyOf(
                        "found their valid grant replaced",
                        "holders overlapped",
                        "lost updates",
                        "lock history has violations");
    }

    @Test
    @DisplayName("TOKEN_NOT_INCREASING is caught by FencingRules#" + FENCING_ACROSS_RELEASES + " and #"
            + FENCING_AFTER_EXPIRY)
    void tckCatchesTokenNotIncreasing(TestReporter reporter) {
        Events tests = run(FlawedSubjects.TokenNotIncreasing.class, FENCING_ACROSS_RELEASES, FENCING_AFTER_EXPIRY);

        assertThat(failureOf(tests, FENCING_ACROSS_RELEASES, reporter))
                .isInstanceOf(AssertionFailedError.class)
                .message()
                .contains("got token 1 after token 1");
        assertThat(failureOf(tests, FENCING_AFTER_EXPIRY, reporter))
                .isInstanceOf(AssertionFailedError.class)
                .message()
                .contains("token 1 after expired token 1");
    }

    @Test
    @DisplayName("RELEASE_DELETES_OTHER_OWNERS_GRANT is caught by OwnershipRules#" + OWNERSHIP)
    void tckCatchesReleaseDeletingOtherOwnersGrant(TestReporter reporter) {
        Events tests = run(FlawedSubjects.ReleaseDeletesOtherOwnersGrant.class, OWNERSHIP);

        assertThat(failureOf(tests, OWNERSHIP, reporter))
                .isInstanceOf(AssertionFailedError.class)
                .message()
                .contains("release() of a stale grant returned true");
    }

    @Test
    @DisplayName("LEASE_NEVER_EXPIRES is caught by LeaseRules#" + LEASE)
    void tckCatchesLeaseNeverExpiring(TestReporter reporter) {
        Events tests = run(FlawedSubjects.LeaseNeverExpires.class, LEASE);

        // the waiter never gets the crashed holder's lock (the TCK gives up after lease + slack + 1 s)
        assertThat(failureOf(tests, LEASE, reporter))
                .isInstanceOf(AssertionFailedError.class)
                .message()
                .contains("the crashed holder's grant")
                .contains("LockBackend.tryAcquire kept answering busy");
    }

    @Test
    @DisplayName("LOSS_NEVER_REPORTED is caught by LossRules#" + LOSS)
    void tckCatchesLossNeverReported(TestReporter reporter) {
        Events tests = run(FlawedSubjects.LossNeverReported.class, LOSS);

        // the forced release succeeds, but the holder's lost() never completes
        assertThat(failureOf(tests, LOSS, reporter))
                .isInstanceOf(AssertionError.class)
                .message()
                .contains("was not told of its loss")
                .contains("force-released");
    }

    @Test
    @DisplayName("BAD_NAME_CORRUPTS_ANOTHER_LOCK is caught by ValidationRules#" + VALIDATION)
    void tckCatchesBadNameCorruptingAnotherLock(TestReporter reporter) {
        Events tests = run(FlawedSubjects.BadNameCorruptsAnotherLock.class, VALIDATION);

        // "A" maps to the same store key as the already held "a": inspect() shows a's grant, reported at once
        assertThat(failureOf(tests, VALIDATION, reporter))
                .isInstanceOf(AssertionError.class)
                .message()
                .contains("valid names \"A\" and \"a\" map to the same lock");
    }

    @ParameterizedTest(name = "control: Flaw.NONE passes {0}")
    @ValueSource(
            strings = {EXCLUSION, FENCING_ACROSS_RELEASES, FENCING_AFTER_EXPIRY, OWNERSHIP, LEASE, LOSS, VALIDATION})
    @DisplayName("control: the same store without a flaw passes every targeted rule")
    void controlWithoutFlawPassesTheTargetedRule(String rule) {
        Events tests = run(FlawedSubjects.NoFlaw.class, rule);

        List<String> failures =
                tests.failed().stream().map(SelfTestRuns::describe).toList();
        assertThat(failures).as("failures of the unflawed control").isEmpty();
        assertThat(tests.succeeded().count())
                .as("rule %s passed on the control", rule)
                .isEqualTo(1);
    }
}

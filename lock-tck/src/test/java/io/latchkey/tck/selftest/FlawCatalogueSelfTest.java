package io.latchkey.tck.selftest;

import static io.latchkey.tck.selftest.SelfTestRuns.durationOf;
import static io.latchkey.tck.selftest.SelfTestRuns.failureOf;
import static io.latchkey.tck.selftest.SelfTestRuns.run;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.platform.testkit.engine.Events;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestReporter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/*
 * The catalogue of flawed lock backends (TCK v2): for each Flaw, the rules written to catch it, what their failure
 * must say, and the bound the rule states. Each entry runs only its rules on a FlawedStore with that one flaw and
 * checks that every one of them fails, for that reason, within twice the rule's bound: a broken backend must fail
 * fast, with a message that says what to fix. The controls (the same store without a flaw, with and without a wait
 * in the store) pass every rule of the catalogue, so each failure is the flaw's.
 *
 * TckSelfTest holds the first flaws (v1) with the same shape; GrantEverythingSelfTest and NoOpBackendSelfTest the
 * store that grants everything.
 */
@DisplayName("TCK self test: the catalogue of flawed lock backends, each caught fast by the rules meant for it")
@Tag("self-test")
class FlawCatalogueSelfTest {
    /** The settings every subject runs with (FlawedSubjects.SETTINGS): lease 1 s, slack 2 s, wake-up 2 s. */
    private static final Duration AT_ONCE = Duration.ofSeconds(1);

    private static final Duration LEASE_PLUS_SLACK = Duration.ofSeconds(3);
    private static final Duration WAKE_UP = Duration.ofSeconds(2);
    /** The slack of FlawedSubjects.SETTINGS. */
    private static final Duration SLACK = Duration.ofSeconds(2);
    /** A child JVM's start and first acquisition, part of the time of the rules that start one. */
    private static final Duration CHILD_JVM = Duration.ofSeconds(3);

    /** One flaw, the rules meant to catch it, a phrase each failure must contain, and the bound the rules state. */
    record Entry(Flaw flaw, List<String> rules, String says, Duration bound) {
        Entry(Flaw flaw, String rule, String says, Duration bound) {
            this(flaw, List.of(rule), says, bound);
        }

        @Override
        public String toString() {
            return flaw + " -> " + String.join(", ", rules);
        }
    }

    static Stream<Entry> catalogue() {
        return Stream.of(
                new Entry(
                        Flaw.RELEASE_IGNORES_TOKEN,
                        "ownership_staleGrantOfTheSameOwnerDoesNotTouchItsNewerGrant",
                        "release must match the token",
                        LEASE_PLUS_SLACK),
                new Entry(
                        Flaw.HAND_OVER_KEEPS_TOKEN,
                        "handOver_endsTheHeldGrantAndGrantsOnlyTheNextOwner",
                        "a fenced resource cannot tell the two holders apart",
                        AT_ONCE),
                new Entry(
                        Flaw.HAND_OVER_OF_A_GRANT_NOT_HELD,
                        "handOver_ofAGrantNoLongerHeldChangesNothing",
                        "out of another owner's lock",
                        AT_ONCE),
                new Entry(
                        Flaw.RENEW_REVIVES_EXPIRED,
                        "lease_renewDoesNotReviveAnEndedGrant",
                        "LockBackend.renew revived",
                        LEASE_PLUS_SLACK),
                new Entry(
                        Flaw.LEASE_FLOORED_TO_SECONDS,
                        "lease_grantExcludesOthersForItsWholeValidity",
                        "before the validity LockBackend.tryAcquire reported",
                        Duration.ofMillis(1600)),
                new Entry(
                        Flaw.VALID_UNTIL_FROM_REPLY,
                        "lease_reportedValidityCountsFromTheRequestStart",
                        "count it from before the request was sent",
                        AT_ONCE),
                new Entry(
                        Flaw.INSPECT_SHOWS_EXPIRED,
                        "inspect_crashedHoldersGrantIsNoLongerShown",
                        "LockBackend.inspect still shows",
                        LEASE_PLUS_SLACK),
                new Entry(
                        Flaw.LIST_SHOWS_EXPIRED,
                        "inspect_crashedHoldersGrantIsNoLongerShown",
                        "LockBackend.list still shows",
                        LEASE_PLUS_SLACK),
                new Entry(
                        Flaw.LIST_PREFIX_AS_PATTERN,
                        "listing_prefixIsLiteralNotAPattern",
                        "treated the prefix as a pattern",
                        AT_ONCE),
                new Entry(
                        Flaw.LIST_IGNORES_PREFIX,
                        List.of("listing_listShowsHeldLocksUnderPrefix", "listing_prefixIsLiteralNotAPattern"),
                        "list(",
                        AT_ONCE),
                new Entry(
                        Flaw.INSPECT_SHOWS_NOTHING,
                        "inspect_showsTheHolder",
                        "inspect() does not show a held lock",
                        AT_ONCE),
                new Entry(
                        Flaw.NATIVE_WAIT_IGNORES_UNFAIR,
                        "nativeWait_releaseWakesWaiterWithoutPolling",
                        "(fairness NONE, poll interval 60 s) was not woken",
                        WAKE_UP),
                new Entry(
                        Flaw.FORCE_RELEASE_RESETS_FENCING,
                        "fencing_tokenRisesAfterForcedRelease",
                        "must keep the name's fencing counter",
                        AT_ONCE),
                new Entry(
                        Flaw.FORCE_RELEASE_WAKES_NOBODY,
                        "nativeWait_forcedReleaseWakesAWaiter",
                        "of a forced release",
                        WAKE_UP),
                new Entry(
                        Flaw.FORCE_RELEASE_REMOVES_NOTHING,
                        "fencing_tokenRisesAfterForcedRelease",
                        "was not removed",
                        AT_ONCE),
                new Entry(
                        Flaw.FORCE_RELEASE_ALWAYS_TRUE,
                        "fencing_tokenRisesAfterForcedRelease",
                        "no one ever held returned true",
                        AT_ONCE),
                new Entry(
                        Flaw.FORCED_LOSS_REPORTED_AS_EXPIRED,
                        "loss_forcedReleaseIsReportedToTheHolder",
                        "RELEASED_BY_ADMIN",
                        AT_ONCE),
                new Entry(
                        Flaw.IDEMPOTENT_ONLY_IN_TRYACQUIRE,
                        "idempotency_retryThroughTheStoreWaitRecognisesItsGrant",
                        "the wait inside the store",
                        WAKE_UP),
                new Entry(
                        Flaw.TOKEN_RESET_AFTER_EXPIRY,
                        "fencing_tokenIncreasesAfterExpiry",
                        "after expired token",
                        LEASE_PLUS_SLACK),
                new Entry(
                        Flaw.TOKEN_RESET_AFTER_RELEASE,
                        "fencing_tokensIncreaseAcrossClientsAndReleases",
                        "got token 1 after token",
                        AT_ONCE),
                new Entry(
                        Flaw.SAME_OWNER_GETS_NEW_TOKEN,
                        "idempotency_retryWithSameOwnerRecognisesItsGrant",
                        "the retry made a second grant",
                        AT_ONCE),
                new Entry(
                        Flaw.SAME_OWNER_IS_BUSY,
                        "idempotency_retryWithSameOwnerRecognisesItsGrant",
                        "a retry with the same owner id was refused",
                        AT_ONCE),
                new Entry(
                        Flaw.RENEW_DOES_NOT_EXTEND,
                        "lease_manualRenewExtendsTheGrant",
                        "another client acquired after the original lease",
                        LEASE_PLUS_SLACK),
                new Entry(
                        Flaw.NAME_TRUNCATED,
                        "validation_hostileValidNamesWorkAndStayDistinct",
                        "map to the same lock",
                        AT_ONCE),
                new Entry(
                        Flaw.BATCH_RENEWS_ONLY_THE_FIRST,
                        "lease_autoRenewalKeepsLockPastItsLease",
                        "the store did not extend it",
                        Duration.ofSeconds(4)), // the rule watches three leases of 1 s before it looks
                new Entry(
                        Flaw.NAMESPACE_CONCATENATED,
                        "namespace_twoNamespacesNeverMeet",
                        "busy here: the namespaces share keys",
                        AT_ONCE),
                // the process and clock rules: a child JVM holds the lock (its start, 1-3 s here, is in the time)
                new Entry(
                        Flaw.LEASE_NEVER_EXPIRES,
                        List.of(
                                "process_killedHolderFreesTheLockWithinItsLeasePlusSlack",
                                "process_pausedHolderSeesItsLossBeforeItWritesAgain"),
                        "LockBackend.tryAcquire kept answering busy",
                        LEASE_PLUS_SLACK.plus(CHILD_JVM)),
                new Entry(
                        Flaw.RENEW_SHORTENS_THE_LEASE,
                        "process_pausedHolderSeesItsLossBeforeItWritesAgain",
                        "before the paused holder's last reported validity ended",
                        LEASE_PLUS_SLACK.plus(CHILD_JVM)),
                // the network rules: a client reaches the served store through a fault proxy
                new Entry(
                        Flaw.LEASE_NEVER_EXPIRES,
                        "network_blackHoledHolderIsToldBeforeAnotherIsGranted",
                        "LockBackend.tryAcquire kept answering busy",
                        LEASE_PLUS_SLACK),
                new Entry(
                        Flaw.RENEW_SHORTENS_THE_LEASE,
                        "network_blackHoledHolderIsToldBeforeAnotherIsGranted",
                        "before the silent holder's validity ended",
                        LEASE_PLUS_SLACK),
                new Entry(
                        Flaw.LEASE_SET_BY_A_SECOND_REQUEST,
                        "network_lostReplyIsRecoveredOrExpiresWithoutADoubleGrant",
                        "neither went to its owner's retry nor ended with its lease",
                        LEASE_PLUS_SLACK.plus(SLACK)),
                new Entry(
                        Flaw.NO_FAILOVER_BETWEEN_ENDPOINTS,
                        "network_minorityOfNodesCutOffKeepsTheQuorumWorking",
                        "nodes cut off could not acquire a free lock",
                        LEASE_PLUS_SLACK),
                new Entry(
                        Flaw.RENEW_DOES_NOT_EXTEND,
                        "network_addedLatencyKeepsARenewedLockHeldAndExclusive",
                        "was lost, or granted to another client",
                        LEASE_PLUS_SLACK),
                new Entry(
                        Flaw.EXPIRY_FROM_CLIENT_WALL_CLOCK,
                        "clock_wallClockStepsOfAnHourEitherWayDoNotMoveTheLease",
                        "did not keep its renewed lock",
                        LEASE_PLUS_SLACK.plus(CHILD_JVM)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("catalogue")
    @DisplayName("each flaw fails the rules meant for it, for the stated reason, within twice their bound")
    void flawIsCaughtFastForTheStatedReason(Entry entry, TestReporter reporter) {
        Events tests = run(entry.flaw(), entry.rules().toArray(String[]::new));
        for (String rule : entry.rules()) {
            assertThat(failureOf(tests, rule, reporter))
                    .as("why %s failed on %s", rule, entry.flaw())
                    .isInstanceOf(AssertionError.class)
                    .message()
                    .contains(entry.says());
            Duration took = durationOf(tests, rule);
            String figure = "FIGURE " + entry.flaw() + " caught by " + rule + " after " + took.toMillis() + " ms (bound "
                    + entry.bound().toMillis() + " ms)";
            reporter.publishEntry(rule, figure);
            System.out.println(figure); // in the surefire output, whatever the reporter config
            assertThat(took)
                    .as("time for %s to fail on %s (twice its bound of %s)", rule, entry.flaw(), entry.bound())
                    .isLessThanOrEqualTo(entry.bound().multipliedBy(2));
        }
    }

    @ParameterizedTest(name = "control: {0}")
    @EnumSource(value = Flaw.class, names = {"NONE", "NONE_WAITING_IN_THE_STORE"})
    @DisplayName("the same store without a flaw passes every rule of the catalogue")
    void controlPassesEveryRuleOfTheCatalogue(Flaw control) {
        String[] rules = catalogue()
                .flatMap(e -> e.rules().stream())
                .collect(java.util.stream.Collectors.toCollection(TreeSet::new))
                .toArray(String[]::new);
        Events tests = run(control, rules);
        List<String> failures = tests.failed().stream().map(SelfTestRuns::describe).toList();
        assertThat(failures).as("failures of the unflawed control %s", control).isEmpty();
        Set<String> skipped = new TreeSet<>(tests.aborted().stream().map(SelfTestRuns::ruleOf).toList());
        assertThat(skipped)
                .as("rules the control %s skipped (only NATIVE_WAIT rules, on the store without it)", control)
                .isSubsetOf(control == Flaw.NONE
                        ? Set.of("nativeWait_releaseWakesWaiterWithoutPolling", "nativeWait_forcedReleaseWakesAWaiter")
                        : Set.of());
        assertThat(tests.succeeded().count() + skipped.size()).isEqualTo(rules.length);
    }

    @org.junit.jupiter.api.Test
    @DisplayName("the store without a flaw, reached on three endpoints through fault proxies, passes every network"
            + " rule")
    void controlPassesTheNetworkRules() {
        String[] rules = {
            "network_blackHoledHolderIsToldBeforeAnotherIsGranted",
            "network_lostReplyIsRecoveredOrExpiresWithoutADoubleGrant",
            "network_addedLatencyKeepsARenewedLockHeldAndExclusive",
            "network_minorityOfNodesCutOffKeepsTheQuorumWorking"
        };
        Events tests = run(Flaw.NONE, rules);
        assertThat(tests.failed().stream().map(SelfTestRuns::describe).toList())
                .as("failures of the unflawed control")
                .isEmpty();
        assertThat(tests.aborted().stream().map(SelfTestRuns::ruleOf).toList()).isEmpty();
        assertThat(tests.succeeded().count()).isEqualTo(4);
    }

    @org.junit.jupiter.api.Test
    @DisplayName("the catalogue holds at least 20 flaws, every Flaw but the controls, v1's and GRANTS_EVERYTHING")
    void everyNewFlawIsInTheCatalogue() {
        Set<Flaw> listed = new TreeSet<>(catalogue().map(Entry::flaw).toList());
        Set<Flaw> expected = new TreeSet<>(Arrays.asList(Flaw.values()));
        expected.removeAll(Set.of(
                Flaw.NONE,
                Flaw.NONE_WAITING_IN_THE_STORE,
                Flaw.GRANTS_EVERYTHING,
                Flaw.NO_EXCLUSION_UNDER_RACE, // v1's flaws: TckSelfTest
                Flaw.TOKEN_NOT_INCREASING,
                Flaw.RELEASE_DELETES_OTHER_OWNERS_GRANT, // LEASE_NEVER_EXPIRES is also here, for the process rules
                Flaw.LOSS_NEVER_REPORTED,
                Flaw.BAD_NAME_CORRUPTS_ANOTHER_LOCK));
        assertThat(listed).isEqualTo(expected);
        assertThat(listed).hasSizeGreaterThanOrEqualTo(20);
    }
}

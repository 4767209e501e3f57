package io.latchkey.tck.selftest;

import io.latchkey.spi.LockBackend;
import io.latchkey.tck.FaultProxies;
import io.latchkey.tck.LockBackendTck;
import io.latchkey.tck.ProcessBackend;
import io.latchkey.tck.TckFaults;
import io.latchkey.tck.TckSettings;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/*
 * The TCK subjects that TckSelfTest runs: one concrete LockBackendTck per Flaw, each test instance on a fresh
 * FlawedStore (JUnit makes one instance per test method, so no state leaks between rules).
 *
 * Most of them are meant to fail, so nothing but TckSelfTest may run them:
 * - they are static nested classes of a holder whose name does not look like a test, and Surefire excludes
 *   class names containing '$' by default, so `mvn test` never picks them up;
 * - they are also disabled unless the launcher sets the configuration parameter ENABLED_PARAMETER, which
 *   only TckSelfTest's EngineTestKit runs do, so an IDE's "run all tests" reports them as skipped.
 */
final class FlawedSubjects {
    /** Configuration parameter that enables the subjects; set by TckSelfTest only. */
    static final String ENABLED_PARAMETER = "latchkey.tck.selftest.enableSubjects";

    /**
     * One settings object for every subject, so the control runs exactly what the flawed subjects run.
     * One client per exclusion thread: a client sends only one contender per name to the store (its local
     * single-flight gate), so with the default 4 clients only 4 threads ever race in the store. With 16, the
     * racy store makes about 2000 double grants per run instead of about 600, and the TCK's short critical
     * section sees about 60 of them overlap instead of about 20 (20 runs each; the fewest with 16 clients: 25).
     */
    static final TckSettings SETTINGS =
            TckSettings.defaults().toBuilder().exclusionClients(16).build();

    private FlawedSubjects() {}

    /** A TCK subclass on a FlawedStore with the given flaw. */
    @ExtendWith(OnlyInsideSelfTest.class)
    abstract static class Subject extends LockBackendTck {
        private final Flaw flaw;
        private final FlawedStore store;
        private final @Nullable StoreServer server;
        /** The served store's other two endpoints (the same store), for a client with three endpoints. */
        private final java.util.List<StoreServer> moreEndpoints;

        Subject(Flaw flaw) {
            this(flaw, false);
        }

        /**
         * With {@code servingChildJvms}, the store is also served on loopback, for the rules that start child JVMs and
         * for the network rules (whose proxied client reaches it through a fault proxy).
         */
        Subject(Flaw flaw, boolean servingChildJvms) {
            this.flaw = flaw;
            this.store = new FlawedStore(flaw);
            this.server = servingChildJvms ? new StoreServer(store) : null;
            this.moreEndpoints =
                    servingChildJvms ? java.util.List.of(new StoreServer(store), new StoreServer(store)) : java.util.List.of();
        }

        @Override
        protected Optional<ProcessBackend> processBackend() {
            return Optional.ofNullable(server)
                    .map(s -> new ProcessBackend(
                            s.uri(),
                            flaw == Flaw.EXPIRY_FROM_CLIENT_WALL_CLOCK
                                    ? java.util.Map.of(RemoteStoreProvider.WALL_CLOCK_EXPIRY, "true")
                                    : java.util.Map.of()));
        }

        /**
         * A client of the served store's three endpoints, each through the test's fault proxy, for the network rules:
         * it fails over between them (unless NO_FAILOVER_BETWEEN_ENDPOINTS), so a minority cut applies too.
         */
        @Override
        protected Optional<LockBackend> newBackendThrough(FaultProxies proxies) {
            if (server == null) {
                return Optional.empty();
            }
            java.util.List<RemoteStoreBackend> endpoints = new java.util.ArrayList<>();
            for (StoreServer s : java.util.stream.Stream.concat(java.util.stream.Stream.of(server), moreEndpoints.stream())
                    .toList()) {
                endpoints.add(new RemoteStoreBackend(
                        "127.0.0.1",
                        proxies.route("127.0.0.1", s.port()),
                        false,
                        flaw == Flaw.LEASE_SET_BY_A_SECOND_REQUEST));
            }
            return Optional.of(new FailoverStoreBackend(endpoints, flaw != Flaw.NO_FAILOVER_BETWEEN_ENDPOINTS));
        }

        @Override
        protected TckFaults faults() {
            return new TckFaults() {
                @Override
                public AutoCloseable outage() {
                    return store.outage();
                }
            };
        }

        @AfterEach
        void stopServingChildJvms() {
            moreEndpoints.forEach(StoreServer::close);
            if (server != null) {
                server.close();
            }
        }

        @Override
        protected LockBackend newBackend() {
            return store.newBackend();
        }

        @Override
        protected Optional<LockBackend> newBackendInNamespace(String namespace) {
            return Optional.of(
                    new NamespacedBackend(store.newBackend(), namespace, flaw == Flaw.NAMESPACE_CONCATENATED));
        }

        @Override
        protected TckSettings settings() {
            return SETTINGS;
        }
    }

    /** The control: the same store without a flaw. */
    static final class NoFlaw extends Subject {
        NoFlaw() {
            super(Flaw.NONE);
        }
    }

    /** The control for the rules that start child JVMs: the same store, also served to them on loopback. */
    static final class NoFlawServingChildJvms extends Subject {
        NoFlawServingChildJvms() {
            super(Flaw.NONE, true);
        }
    }

    static final class NoExclusionUnderRace extends Subject {
        NoExclusionUnderRace() {
            super(Flaw.NO_EXCLUSION_UNDER_RACE);
        }
    }

    static final class TokenNotIncreasing extends Subject {
        TokenNotIncreasing() {
            super(Flaw.TOKEN_NOT_INCREASING);
        }
    }

    static final class ReleaseDeletesOtherOwnersGrant extends Subject {
        ReleaseDeletesOtherOwnersGrant() {
            super(Flaw.RELEASE_DELETES_OTHER_OWNERS_GRANT);
        }
    }

    static final class LeaseNeverExpires extends Subject {
        LeaseNeverExpires() {
            super(Flaw.LEASE_NEVER_EXPIRES);
        }
    }

    static final class LossNeverReported extends Subject {
        LossNeverReported() {
            super(Flaw.LOSS_NEVER_REPORTED);
        }
    }

    static final class BadNameCorruptsAnotherLock extends Subject {
        BadNameCorruptsAnotherLock() {
            super(Flaw.BAD_NAME_CORRUPTS_ANOTHER_LOCK);
        }
    }

    /** Stores nothing, grants everything; also served to child JVMs, so that every recipe rule runs on it. */
    static final class GrantsEverything extends Subject {
        GrantsEverything() {
            super(Flaw.GRANTS_EVERYTHING, true);
        }
    }

    /**
     * The subject of the flaw catalogue: its flaw is the one {@link SelfTestRuns#run(Flaw, String...)} launches. Also
     * served to child JVMs, for the process and clock rules.
     */
    static final class Catalogued extends Subject {
        Catalogued() {
            super(SelfTestRuns.flawUnderTest(), true);
        }
    }

    /** Enables a subject only when TckSelfTest launched it. */
    static final class OnlyInsideSelfTest implements ExecutionCondition {
        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            boolean enabled = context.getConfigurationParameter(ENABLED_PARAMETER, Boolean::parseBoolean)
                    .orElse(false);
            return enabled
                    ? ConditionEvaluationResult.enabled("launched by TckSelfTest")
                    : ConditionEvaluationResult.disabled("a deliberately flawed TCK subject; only TckSelfTest runs it");
        }
    }
}

package io.latchkey.tck;

import io.latchkey.spi.LockBackend;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * The Latchkey TCK: every guarantee of docs/design.md §4, proven against a real store. A backend author extends
 * this class and implements one factory method:
 *
 * <pre>{@code
 * class MyBackendTckTest extends LockBackendTck {
 *     @Override protected LockBackend newBackend() { return MyBackend.connect(server.uri()); }
 * }
 * }</pre>
 *
 * Each call of {@link #newBackend()} must return a new backend instance (one client, as if in a separate
 * process) connected to the same store. Optional overrides: {@link #settings()} for timing, and
 * {@link #faults()} for the fault hooks (outage, session kill, restart) that some rules need; rules whose
 * hook or capability is missing are reported as skipped, with the reason.
 *
 * <p>The rule groups are the interfaces this class implements; each test's name says which rule it proves.
 */
@Timeout(180)
public abstract class LockBackendTck
        implements ExclusionRules,
                FencingRules,
                LeaseRules,
                OwnershipRules,
                HandOverRules,
                LossRules,
                WaitingRules,
                IdempotencyRules,
                InspectionRules,
                NamespaceRules,
                ValidationRules,
                CapabilityRules,
                ElectorRules,
                ExclusiveTaskRules,
                MultiLockRules,
                DistributionRules,
                SemaphoreRules,
                ReadWriteRules,
                HistoryRules,
                ProcessFaultRules,
                NetworkFaultRules,
                ClockFaultRules {

    private TckContext context;

    /**
     * A new backend (one client) connected to the store under test.
     *
     * @return a new backend; the TCK closes it
     */
    protected abstract LockBackend newBackend();

    /**
     * Timing and sizes; override to suit a slow store or a coarse lease granularity.
     *
     * @return the settings, {@link TckSettings#defaults()} unless overridden
     */
    protected TckSettings settings() {
        return TckSettings.defaults();
    }

    /**
     * Fault hooks; none by default.
     *
     * @return the fault hooks
     */
    protected TckFaults faults() {
        return TckFaults.NONE;
    }

    /**
     * How a child JVM connects to the same store (URI and settings), for the rules that run recipe instances in
     * separate JVMs and kill one with SIGKILL. Empty by default: those rules are then skipped, with the reason.
     *
     * @return how a child JVM reaches the store, or empty to skip the rules that need one
     */
    protected Optional<ProcessBackend> processBackend() {
        return Optional.empty();
    }

    /**
     * A new backend (one client) on the same store whose every connection goes through the TCK's fault proxies: for
     * each store endpoint, connect to {@code 127.0.0.1:proxies.route(host, port)} instead. Empty by default: the network
     * fault rules are then skipped, with the reason.
     *
     * @param proxies the test's proxies
     * @return the proxied backend, or empty to skip the network fault rules
     */
    protected Optional<LockBackend> newBackendThrough(FaultProxies proxies) {
        return Optional.empty();
    }

    /**
     * A new backend (one client) on the same store whose {@code namespace} setting is {@code namespace}: a text of
     * letters, digits, {@code '.'}, {@code '_'} and {@code '-'}, at most 64 characters. Empty by default: the namespace
     * rule is then skipped, with the reason.
     *
     * @param namespace the namespace
     * @return the backend, or empty to skip the namespace rule
     */
    protected Optional<LockBackend> newBackendInNamespace(String namespace) {
        return Optional.empty();
    }

    @BeforeEach
    final void openTckContext(TestInfo info) {
        String test = info.getTestMethod().map(m -> m.getName()).orElse("test");
        TckNotes.ruleStarted(getClass().getName(), test);
        context = new TckContext(
                this::newBackend,
                settings(),
                faults(),
                processBackend(),
                this::newBackendThrough,
                this::newBackendInNamespace,
                test);
    }

    @AfterEach
    final void closeTckContext() {
        if (context != null) {
            context.close();
            context = null;
        }
    }

    @Override
    public final TckContext tck() {
        if (context == null) {
            throw new IllegalStateException("the TCK context exists only while a test runs");
        }
        return context;
    }
}

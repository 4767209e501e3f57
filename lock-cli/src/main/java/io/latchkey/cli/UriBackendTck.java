package io.latchkey.cli;

import io.latchkey.Latchkey;
import io.latchkey.spi.LockBackend;
import io.latchkey.tck.LockBackendTck;
import io.latchkey.tck.TckSettings;
import java.util.Map;

/**
 * The TCK bound to whatever backend a URI names, for {@code latchkey verify}. JUnit instantiates this class
 * itself, so the target is handed over through a static field set by {@link VerifyCommand} before the
 * launcher runs (one verification per JVM). Every {@link #newBackend()} is a new client on the same store,
 * as the TCK requires. No fault hooks are supplied: the rules that need one report "skipped".
 */
public class UriBackendTck extends LockBackendTck {

    /** What to verify: the URI, backend settings, the class loader that sees the provider, and TCK timing. */
    record Target(String uri, Map<String, String> settings, ClassLoader loader, TckSettings tck) {}

    private static volatile Target target;

    static void target(Target t) {
        target = t;
    }

    static LockBackend connect(Target t) {
        return Latchkey.backend(t.uri(), t.settings(), t.loader());
    }

    private static Target current() {
        Target t = target;
        if (t == null) {
            throw new IllegalStateException("UriBackendTck runs only through 'latchkey verify --backend URI'");
        }
        return t;
    }

    @Override
    protected LockBackend newBackend() {
        return connect(current());
    }

    /** The same URI with the setting every Latchkey scheme accepts, {@code namespace} (replacing any given). */
    @Override
    protected java.util.Optional<LockBackend> newBackendInNamespace(String namespace) {
        Target t = current();
        Map<String, String> settings = new java.util.HashMap<>(t.settings());
        settings.put("namespace", namespace);
        return java.util.Optional.of(Latchkey.backend(t.uri(), settings, t.loader()));
    }

    @Override
    protected TckSettings settings() {
        return current().tck();
    }
}

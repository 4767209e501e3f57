package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.mem.MemoryStore;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** forceRelease is an administrative action: one WARN line says which lock, on which store, by whom, from whom. */
class ForceReleaseLogTest {

    @Test
    @DisplayName("a forced release is logged at WARN with the lock, the store, the caller and the holder it removed")
    void forcedReleaseIsLoggedWithWhoAndWhom() {
        MemoryStore store = MemoryStore.named("force-release-log-" + System.nanoTime());
        try (LockClient holder = Latchkey.client(store.newBackend());
                LockClient admin = Latchkey.client(store.newBackend())) {
            LockHandle h = holder.lock("billing/run").tryAcquire().orElseThrow();
            String err = capturingStderr(() -> assertThat(admin.forceRelease("billing/run")).isTrue());
            assertThat(err)
                    .contains("WARN")
                    .contains("Lock 'billing/run' on " + admin.backend() + " was force-released by client ")
                    .contains("it was held by " + h.owner() + ", token " + h.fencingToken());
            String nothing = capturingStderr(() -> assertThat(admin.forceRelease("billing/run")).isFalse());
            assertThat(nothing).doesNotContain("force-released"); // nothing removed, nothing to report
        }
    }

    /** What slf4j-simple (which writes to the current System.err) printed while {@code r} ran. */
    private static String capturingStderr(Runnable r) {
        PrintStream original = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setErr(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            r.run();
        } finally {
            System.setErr(original);
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}

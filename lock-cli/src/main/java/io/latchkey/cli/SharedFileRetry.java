package io.latchkey.cli;

import io.latchkey.BackendUnavailableException;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Retries a store operation that failed with {@link BackendUnavailableException} on the shared H2 file of
 * the embedded default, for a bounded time. Why: in H2's automatic mixed mode the process that opened the
 * file serves it to the others; when that process exits, the others' connections re-open the file and race
 * to become the new server, and for a moment some of them get "Database may be already in use" or "Lock
 * file recently modified". A moment later the same call succeeds. For every other backend the operation
 * runs once: an unavailable server is reported at once (exit 69), not hidden behind retries.
 *
 * <p>Stateless; the calling thread sleeps between attempts (jittered, so that processes started by the same
 * cron tick do not collide again).
 */
final class SharedFileRetry {
    /** How long an operation on the shared H2 file is retried. */
    static final Duration WINDOW = Duration.ofSeconds(15);

    private static final Logger log = LoggerFactory.getLogger(SharedFileRetry.class);

    private SharedFileRetry() {}

    static <T> T call(String uri, String what, Supplier<T> operation) {
        if (!EmbeddedBackend.isSharedH2File(uri)) {
            return operation.get();
        }
        long deadline = System.nanoTime() + WINDOW.toNanos();
        for (; ; ) {
            try {
                return operation.get();
            } catch (BackendUnavailableException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw e;
                }
                log.debug(
                        "{} on the shared H2 file failed while another process opened or handed it over; retrying: {}",
                        what,
                        e.getMessage());
                try {
                    Thread.sleep(50 + ThreadLocalRandom.current().nextInt(250));
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }
}

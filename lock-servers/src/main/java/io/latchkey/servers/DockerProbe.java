package io.latchkey.servers;

import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers whether Testcontainers can reach a Docker engine. A {@code docker} CLI on {@code PATH} proves
 * nothing, so this asks Testcontainers itself.
 *
 * <p>Design: Testcontainers is an optional dependency, so its classes are touched only inside
 * {@link #probeNow()}, and a missing jar ({@link LinkageError}) means "no Docker". Probing can take a
 * while, so the answer is computed once per JVM; a lock (not {@code synchronized}, since the probe does
 * I/O) makes concurrent first callers wait for the one probe.
 */
public final class DockerProbe {

    private static final Logger LOG = LoggerFactory.getLogger(DockerProbe.class);
    private static final ReentrantLock LOCK = new ReentrantLock();
    private static volatile Status cached;

    private DockerProbe() {}

    /**
     * Whether Docker is usable, with the reason when it is not.
     *
     * @param available {@code true} if Testcontainers found a working Docker engine
     * @param detail why it is (not) available, for skip messages
     */
    public record Status(boolean available, String detail) {

        /**
         * Checks the fields.
         *
         * @param available whether Docker is usable
         * @param detail a non-blank explanation
         */
        public Status {
            if (detail == null || detail.isBlank()) {
                throw new IllegalArgumentException("detail must be a non-blank explanation, was '" + detail + "'");
            }
        }
    }

    /**
     * The (cached) answer for this JVM.
     *
     * @return the status
     */
    public static Status check() {
        Status status = cached;
        if (status != null) {
            return status;
        }
        LOCK.lock();
        try {
            if (cached == null) {
                cached = probeNow();
                LOG.info("Docker for Testcontainers: {}", cached.detail());
            }
            return cached;
        } finally {
            LOCK.unlock();
        }
    }

    /**
     * Asks Testcontainers now, without the cache.
     *
     * @return the status
     */
    static Status probeNow() {
        try {
            boolean available =
                    org.testcontainers.DockerClientFactory.instance().isDockerAvailable();
            return available
                    ? new Status(true, "Testcontainers found a Docker engine")
                    : new Status(
                            false,
                            "no Docker engine is reachable (Testcontainers found no working "
                                    + "Docker environment; a docker CLI alone is not enough)");
        } catch (LinkageError e) {
            return new Status(false, "Testcontainers is not on the classpath (" + e + ")");
        } catch (RuntimeException e) {
            return new Status(false, "Testcontainers could not check for Docker: " + e);
        }
    }
}

package io.latchkey.etcd;

import io.etcd.jetcd.common.exception.ErrorCode;
import io.etcd.jetcd.common.exception.EtcdException;
import io.latchkey.BackendUnavailableException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/*
 * Turns jetcd's asynchronous answers into the blocking, bounded calls the SPI wants. Every wait is bounded
 * by the request timeout and is not cut short by interruption (the interrupt is kept and restored): a store
 * call that was sent must be seen through, or we could not know whether it created a key. Only the open-ended
 * wait for a predecessor (PredecessorWait) reacts to interruption. Failures become
 * BackendUnavailableException naming the lock and the backend; "lease not found" becomes LeaseGone so the
 * caller can start a new lease. Stateless apart from its settings, thread-safe.
 */
final class EtcdCalls {
    private final String backend;
    private final long timeoutNanos;

    EtcdCalls(String backend, Duration timeout) {
        this.backend = backend;
        this.timeoutNanos = timeout.toNanos();
    }

    String backend() {
        return backend;
    }

    long timeoutNanos() {
        return timeoutNanos;
    }

    /** Waits for the answer; {@code what} and {@code lockName} (may be null) go into the error message. */
    <T> T await(CompletableFuture<T> future, String what, String lockName) {
        long deadline = System.nanoTime() + timeoutNanos;
        boolean interrupted = false;
        try {
            for (;;) {
                try {
                    return future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (TimeoutException e) {
                    future.cancel(true);
                    throw new BackendUnavailableException("etcd did not answer " + what + describe(lockName) + " on "
                            + backend + " within " + Duration.ofNanos(timeoutNanos) + " (setting requestTimeout)",
                            lockName, backend, e);
                } catch (ExecutionException e) {
                    throw failure(e.getCause(), what, lockName);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    RuntimeException failure(Throwable t, String what, String lockName) {
        Throwable cause = t;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (isLeaseNotFound(cause)) {
            return new LeaseGone("etcd says the lease is gone (expired or revoked) while " + what + describe(lockName)
                    + " on " + backend, lockName, backend, cause);
        }
        return new BackendUnavailableException("etcd request failed while " + what + describe(lockName) + " on " + backend
                + ": " + cause, lockName, backend, cause);
    }

    static boolean isLeaseNotFound(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof EtcdException e && e.getErrorCode() == ErrorCode.NOT_FOUND
                    && String.valueOf(e.getMessage()).contains("lease not found")) {
                return true;
            }
            if (String.valueOf(c.getMessage()).contains("requested lease not found")) {
                return true;
            }
        }
        return false;
    }

    private static String describe(String lockName) {
        return lockName == null ? "" : " for lock '" + lockName + "'";
    }

    /** The lease a request used no longer exists on the server. */
    static final class LeaseGone extends BackendUnavailableException {
        private static final long serialVersionUID = 1L;

        LeaseGone(String message, String lockName, String backend, Throwable cause) {
            super(message, lockName, backend, cause);
        }
    }
}

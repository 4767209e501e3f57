package io.latchkey.etcd;

import io.etcd.jetcd.common.exception.ErrorCode;
import io.etcd.jetcd.common.exception.EtcdException;
import io.latchkey.BackendUnavailableException;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/*
 * Turns jetcd's asynchronous answers into the blocking, bounded calls the SPI wants. Every wait is bounded
 * by the request timeout and is not cut short by interruption (the interrupt is kept and restored): a store
 * call that was sent must be seen through, or we could not know whether it created a key. Only the open-ended
 * wait for a predecessor (PredecessorWait) reacts to interruption. Failures become
 * BackendUnavailableException naming the lock and the backend, saying in words what a configuration error
 * (TLS, credentials, permissions) is; "lease not found" becomes LeaseGone so the caller can start a new lease. Stateless apart from its settings, thread-safe.
 */
final class EtcdCalls {
    private static final Pattern SSL_FAILURE = Pattern.compile("javax\\.net\\.ssl\\.SSL\\w*Exception: ([^\\n]{1,300})");

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
        return await(future, what, lockName, timeoutNanos);
    }

    /** As {@link #await(CompletableFuture, String, String)}, waiting at most {@code waitNanos}. */
    <T> T await(CompletableFuture<T> future, String what, String lockName, long waitNanos) {
        long deadline = System.nanoTime() + waitNanos;
        boolean interrupted = false;
        try {
            for (; ; ) {
                try {
                    return future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (TimeoutException e) {
                    future.cancel(true);
                    throw new BackendUnavailableException(
                            "etcd did not answer " + what + describe(lockName) + " on "
                                    + backend + " within "
                                    + io.latchkey.spi.StoreErrors.format(Duration.ofNanos(waitNanos))
                                    + (waitNanos == timeoutNanos ? " (setting requestTimeout)" : ""),
                            lockName,
                            backend,
                            e);
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
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof BackendUnavailableException already) {
            return already; // made by this class for an earlier step (e.g. the lease grant this call waited for)
        }
        if (isLeaseNotFound(cause)) {
            return new LeaseGone(
                    "etcd says the lease is gone (expired or revoked) while " + what + describe(lockName) + " on "
                            + backend,
                    lockName,
                    backend,
                    cause);
        }
        String explanation = explain(cause);
        return new BackendUnavailableException(
                "etcd request failed while " + what + describe(lockName) + " on " + backend + ": "
                        + (explanation == null ? "" : explanation + "; ") + firstLine(cause),
                lockName,
                backend,
                cause);
    }

    /**
     * Says in words what a configuration error is, from the failure's cause chain (gRPC reports them as
     * UNAUTHENTICATED, PERMISSION_DENIED, or as a deadline whose last connection attempt failed), or null.
     * etcd's and gRPC's texts never contain the password.
     */
    static String explain(Throwable failure) {
        StringBuilder all = new StringBuilder();
        for (Throwable c = failure; c != null && all.length() < 100_000; c = c.getCause()) {
            all.append(c).append('\n');
        }
        String text = all.toString();
        String lower = text.toLowerCase(Locale.ROOT);
        if (lower.contains("authentication failed") || lower.contains("invalid user id or password")) {
            return "etcd refused the user name or password (settings user and password, or the URI's user info)";
        }
        if (lower.contains("permission denied")) {
            return "etcd denied this user access (its role needs readwrite on the namespace's key prefix: etcdctl role"
                    + " grant-permission ROLE readwrite --prefix=true 'NAMESPACE/')";
        }
        Matcher ssl = SSL_FAILURE.matcher(text);
        if (ssl.find()) {
            String detail = ssl.group(1).trim();
            String lowerDetail = detail.toLowerCase(Locale.ROOT);
            String hint = lowerDetail.contains("pkix") || lowerDetail.contains("trust")
                    ? "the server's certificate is not signed by a CA this client trusts (setting tlsCa)"
                    : lowerDetail.contains("bad_certificate") || lowerDetail.contains("certificate_required")
                            ? "the server wants a client certificate it trusts (settings tlsCert and tlsKey)"
                            : "check settings tls, tlsCa, tlsCert and tlsKey against the server's TLS set-up";
            return "the TLS handshake with etcd failed: " + hint + " [" + detail + "]";
        }
        if (lower.contains("not an ssl/tls record")
                || lower.contains("first record does not look like a tls handshake")) {
            return "etcd does not speak TLS on this port (remove setting tls, or use the member's https port)";
        }
        return null;
    }

    /** The first line of a failure, at most 300 characters: gRPC statuses can embed whole stack traces. */
    private static String firstLine(Throwable t) {
        String s = String.valueOf(t);
        int nl = s.indexOf('\n');
        if (nl >= 0) {
            s = s.substring(0, nl) + " ...";
        }
        return s.length() > 300 ? s.substring(0, 300) + " ..." : s;
    }

    static boolean isLeaseNotFound(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof EtcdException e
                    && e.getErrorCode() == ErrorCode.NOT_FOUND
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

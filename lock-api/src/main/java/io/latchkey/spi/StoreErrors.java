package io.latchkey.spi;

import io.latchkey.BackendUnavailableException;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The one-line errors every backend gives when it cannot use its store, written once so that every scheme
 * reads the same and a user can search for the first line:
 * <ul>
 *   <li>{@code cannot reach redis://host:6379 within 5s: connection refused}</li>
 *   <li>{@code authentication failed at redis://host:6379: WRONGPASS invalid username-password pair}</li>
 *   <li>{@code the server at host:6379 did not answer as Redis (redis://host:6379): Unknown reply: <}</li>
 * </ul>
 * Every target is passed through {@link Redaction#redact(String)}, and every reason through
 * {@link Redaction#scrub}, so no password reaches the message. Messages are one line: line breaks in a
 * third party's reason are folded into spaces.
 */
public final class StoreErrors {
    /** The setting every scheme accepts for the time allowed to reach the store. */
    public static final String CONNECT_TIMEOUT = "connectTimeout";
    /** Its default: a store that cannot be reached is reported within five seconds. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
    /** {@link #tlsProblem}'s words for a certificate no trusted CA signed. */
    public static final String UNTRUSTED_CERTIFICATE = "the server's certificate is not trusted";

    private StoreErrors() {}

    /**
     * {@code cannot reach <target> within <timeout>: <reason>}; lock name may be {@code null}.
     *
     * @param target the store, e.g. {@code redis://host:6379} (redacted again here)
     * @param timeout the connect timeout that ran out
     * @param reason what failed, on one line
     * @param lockName the lock's name, or {@code null}
     * @param cause the client library's error, or {@code null}
     * @return the exception
     */
    public static BackendUnavailableException cannotReach(
            String target, Duration timeout, String reason, String lockName, Throwable cause) {
        String shown = Redaction.redact(target);
        return new BackendUnavailableException(
                "cannot reach " + shown + " within " + format(timeout) + ": " + oneLine(Redaction.redact(reason)),
                lockName,
                shown,
                cause);
    }

    /**
     * {@code authentication failed at <target>: <reason>}; lock name may be {@code null}.
     *
     * @param target the store (redacted again here)
     * @param reason the server's answer
     * @param lockName the lock's name, or {@code null}
     * @param cause the client library's error, or {@code null}
     * @return the exception
     */
    public static BackendUnavailableException authenticationFailed(
            String target, String reason, String lockName, Throwable cause) {
        String shown = Redaction.redact(target);
        return new BackendUnavailableException(
                "authentication failed at " + shown + ": " + oneLine(Redaction.redact(reason)), lockName, shown, cause);
    }

    /**
     * {@code the server at <host:port> did not answer as <product> (<target>): <reason>}.
     *
     * @param hostPort the server that answered
     * @param product what was expected there, e.g. {@code Redis}
     * @param target the store (redacted again here)
     * @param reason what it answered
     * @param lockName the lock's name, or {@code null}
     * @param cause the client library's error, or {@code null}
     * @return the exception
     */
    public static BackendUnavailableException notThatServer(
            String hostPort, String product, String target, String reason, String lockName, Throwable cause) {
        String shown = Redaction.redact(target);
        return new BackendUnavailableException(
                "the server at " + hostPort + " did not answer as " + product + " (" + shown + "): "
                        + oneLine(Redaction.redact(reason)),
                lockName,
                shown,
                cause);
    }

    /**
     * A duration the way people write it ({@link DurationText#format}): {@code 250ms}, {@code 5s}, {@code 1m30s}.
     *
     * @param d the duration
     * @return its text
     */
    public static String format(Duration d) {
        return DurationText.format(d);
    }

    /**
     * A reason on one line: line breaks and runs of white space become one space; blank becomes "no reason given".
     *
     * @param reason the reason, possibly on several lines
     * @return the reason on one line
     */
    public static String oneLine(String reason) {
        if (reason == null || reason.isBlank()) {
            return "no reason given";
        }
        return reason.strip().replaceAll("\\s*[\\r\\n]+\\s*", " ");
    }

    /**
     * What went wrong with TLS, in the words every backend uses, from a failure's chain of causes and their messages:
     * {@code the server's certificate is not trusted}, {@code the server's certificate does not name the host},
     * {@code the server's certificate has expired or is not yet valid}, {@code the handshake failed}; null when the
     * failure shows nothing of TLS. Each backend adds which of its settings to check.
     *
     * @param failure the failure
     * @return the problem, or null
     */
    public static @Nullable String tlsProblem(Throwable failure) {
        boolean tls = false;
        StringBuilder all = new StringBuilder();
        for (Throwable t = failure; t != null && all.length() < 20_000; t = t.getCause() == t ? null : t.getCause()) {
            tls |= t instanceof javax.net.ssl.SSLException
                    || t instanceof java.security.cert.CertificateException
                    || t instanceof java.security.cert.CertPathValidatorException
                    || t instanceof java.security.cert.CertPathBuilderException;
            all.append(' ').append(t.getMessage());
        }
        String lower = all.toString().toLowerCase(java.util.Locale.ROOT);
        if (lower.contains("pkix") || lower.contains("trust anchor") || lower.contains("valid certification path")) {
            return UNTRUSTED_CERTIFICATE;
        }
        if (!tls) {
            return null;
        }
        if (lower.contains("expired") || lower.contains("not yet valid") || lower.contains("validity check")) {
            return "the server's certificate has expired or is not yet valid";
        }
        if (lower.contains("subject alternative name") || lower.contains("no name matching")) {
            return "the server's certificate does not name the host";
        }
        return "the handshake failed";
    }
}

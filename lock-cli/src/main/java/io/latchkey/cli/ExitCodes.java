package io.latchkey.cli;

/**
 * The exit statuses of {@code latchkey}, chosen from BSD's sysexits.h where one fits so that scripts and
 * cron wrappers can tell "another run holds the lock" from "the store is down" from "the job failed".
 * {@code exec} otherwise exits with its command's own status (128 + signal number when a signal ended it).
 *
 * <p>Stateless constants; no concurrency.
 */
public final class ExitCodes {
    /** Success. */
    public static final int OK = 0;
    /** {@code inspect}: the lock is not held; {@code release}: there was nothing to release; {@code verify}: a rule failed. */
    public static final int NEGATIVE = 1;
    /** EX_USAGE: bad option, duration, URI, scheme or name. Nothing was acquired. */
    public static final int USAGE = 64;
    /** EX_UNAVAILABLE: the backend could not be reached, or cannot do what was asked (no listing). */
    public static final int BACKEND_UNAVAILABLE = 69;
    /** EX_SOFTWARE: an internal error (a bug); the message says what failed. */
    public static final int INTERNAL = 70;
    /** EX_TEMPFAIL: {@code exec} did not acquire the lock within the wait (default of {@code -E}). */
    public static final int NOT_ACQUIRED = 75;
    /**
     * {@code exec}: the lock was lost while the command ran (forced release, renewal failed, lease expired)
     * and the command was stopped. Outside sysexits' 64–78 so that it means nothing else.
     */
    public static final int LOCK_LOST = 79;
    /** The command could not be executed (permission denied), as shells report it. */
    public static final int CANNOT_EXECUTE = 126;
    /** The command was not found, as shells report it. */
    public static final int COMMAND_NOT_FOUND = 127;
    /** Base of "ended by signal N" statuses: 128 + N. */
    public static final int SIGNAL_BASE = 128;

    private ExitCodes() {}
}

package io.latchkey.cli;

/**
 * The store {@code latchkey} uses when neither {@code --backend} nor {@code LATCHKEY_BACKEND} names one: the
 * H2 database file {@code ~/.latchkey/locks.mv.db} (lock-jdbc, lease mode), shared by every process of the
 * user on this machine through a small local H2 server ({@link EmbeddedServer}).
 *
 * <p>Also recognises H2 URIs in automatic mixed mode ({@code AUTO_SERVER=TRUE}) that a user passes
 * explicitly, whose hand-over between processes {@link SharedFileRetry} smooths over. Constants and a pure
 * function only; no concurrency.
 */
public final class EmbeddedBackend {
    /** How the embedded default is shown in help and messages. */
    public static final String DESCRIPTION = "embedded H2 file ~/.latchkey/locks";
    /** The environment variable that replaces the embedded default. */
    public static final String ENV = "LATCHKEY_BACKEND";

    private EmbeddedBackend() {}

    /**
     * True for an H2 file database in automatic mixed mode. Opening one races when several processes start
     * at the same instant (cron fires them all at :00): H2's file-lock protocol then fails one of them
     * with "Lock file recently modified" or "Database may be already in use", and trying again a moment
     * later succeeds, through the winner's server. {@link BackendOptions#connect()} retries those.
     */
    static boolean isSharedH2File(String uri) {
        String u = uri.toLowerCase(java.util.Locale.ROOT);
        return u.startsWith("jdbc:h2:")
                && !u.startsWith("jdbc:h2:mem:")
                && !u.startsWith("jdbc:h2:tcp:")
                && !u.startsWith("jdbc:h2:ssl:")
                && u.contains("auto_server=true");
    }
}

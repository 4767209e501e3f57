package io.latchkey.cli;

import io.latchkey.tck.ValidationRules;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Sizes the connection pool {@code verify} gives each TCK client of a JDBC backend in session mode. Session
 * mode pins one pooled connection per held lock (and one per waiting acquisition), and the TCK's validation
 * rule holds every hostile valid name at once on one client (60 names today), so lock-jdbc's default pool of
 * 10 would run dry and fail that rule after HikariCP's connection timeout, a failure of the verification and
 * not of the store. Unless the user chose {@code poolSize}, each client gets the rule's peak plus
 * {@link #MARGIN} (for the connection that inspects and renews meanwhile), and {@code verify} says so.
 * Lease mode holds no connection while a lock is held, so its pool stays as configured. Stateless.
 */
final class SessionPool {
    /** Connections beyond the held locks: inspections, renewals and a waiting acquisition. */
    static final int MARGIN = 10;

    static final String SETTING = "poolSize";

    private SessionPool() {}

    /** The most locks the TCK holds at once on one client. */
    static int peakHeldLocks() {
        return ValidationRules.hostileValidNames().size();
    }

    /** The settings to verify with; prints one line when it sized the pool. */
    static Map<String, String> sized(String uri, Map<String, String> settings, PrintWriter out) {
        boolean jdbc = uri.regionMatches(true, 0, "jdbc:", 0, 5);
        boolean session =
                "session".equals(String.valueOf(settings.get("mode")).trim().toLowerCase(Locale.ROOT));
        if (!jdbc || !session || settings.containsKey(SETTING)) {
            return settings;
        }
        int size = peakHeldLocks() + MARGIN;
        Map<String, String> sized = new LinkedHashMap<>(settings);
        sized.put(SETTING, Integer.toString(size));
        out.println("verify: session mode holds one connection per held lock and the TCK holds up to " + peakHeldLocks()
                + " locks on one client, so each TCK client uses " + SETTING + "=" + size
                + " (the server needs about " + (2 * size) + " connections; choose another size with -s " + SETTING
                + "=N)");
        out.flush();
        return Map.copyOf(sized);
    }
}

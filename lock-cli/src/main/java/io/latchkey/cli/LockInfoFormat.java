package io.latchkey.cli;

import io.latchkey.LockInfo;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How {@code list}, {@code inspect} and {@code release} show locks: an aligned table for people, JSON
 * (one object per lock, ISO-8601 instants) for scripts. Stateless and thread-safe.
 */
final class LockInfoFormat {
    private LockInfoFormat() {}

    static Map<String, Object> json(LockInfo info) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", info.name());
        m.put("held", true);
        m.put("owner", info.owner());
        m.put("fencingToken", info.fencingToken());
        m.put("acquiredAt", info.acquiredAt().map(Instant::toString).orElse(null));
        m.put("expiresAt", info.expiresAt().map(Instant::toString).orElse(null));
        return m;
    }

    static Map<String, Object> notHeld(String name) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", name);
        m.put("held", false);
        return m;
    }

    /** One lock, as "field: value" lines. */
    static String details(LockInfo info, Instant now) {
        return "name:     " + info.name() + "\n"
                + "owner:    " + info.owner() + "\n"
                + "token:    " + info.fencingToken() + "\n"
                + "acquired: " + info.acquiredAt().map(Instant::toString).orElse("(not recorded by this backend)")
                + "\n"
                + "expires:  " + expiry(info.expiresAt(), now);
    }

    /** Locks as an aligned table with a header. */
    static String table(List<LockInfo> infos, Instant now) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"NAME", "OWNER", "TOKEN", "EXPIRES"});
        for (LockInfo i : infos) {
            rows.add(new String[] {i.name(), i.owner(), Long.toString(i.fencingToken()), expiry(i.expiresAt(), now)});
        }
        return Tables.render(rows);
    }

    static String expiry(Optional<Instant> expiresAt, Instant now) {
        if (expiresAt.isEmpty()) {
            return "with its session (no lease)";
        }
        Instant at = expiresAt.get();
        Duration left = Duration.between(now, at);
        String relative = left.isNegative() ? "expired " + human(left.negated()) + " ago" : "in " + human(left);
        return at + " (" + relative + ")";
    }

    static String human(Duration d) {
        long ms = d.toMillis();
        if (ms < 1000) {
            return ms + "ms";
        }
        long s = d.toSeconds();
        if (s < 120) {
            return s + "s";
        }
        if (s < 7200) {
            return (s / 60) + "m" + (s % 60) + "s";
        }
        return (s / 3600) + "h" + (s % 3600 / 60) + "m";
    }
}

package io.latchkey.micrometer;

import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/*
 * The cardinality guard of the lock-name tag: the first `max` distinct names get their own tag value, every later
 * name shares OTHER. Admission is a reservation on an atomic counter, so concurrent first uses never admit more
 * than `max` names; a name seen again is a set lookup.
 */
final class LockNameTags {
    /** The tag value of every name past the limit. */
    static final String OTHER = "_other";
    /** The largest limit the builder accepts. */
    static final int MOST = 10_000;

    private final int max;
    private final Set<String> admitted = ConcurrentHashMap.newKeySet();
    private final AtomicInteger reserved = new AtomicInteger();

    LockNameTags(int max) {
        this.max = max;
    }

    boolean enabled() {
        return max > 0;
    }

    /** The tag value for {@code name}: the name itself while the limit allows, else OTHER. */
    String tagFor(String name) {
        if (admitted.contains(name)) {
            return name;
        }
        if (reserved.getAndIncrement() < max) {
            admitted.add(name);
            return name;
        }
        reserved.decrementAndGet(); // keep the counter bounded under a flood of new names
        return OTHER;
    }

    static String lowerCase(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
    }
}

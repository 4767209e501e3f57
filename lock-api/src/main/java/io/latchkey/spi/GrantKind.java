package io.latchkey.spi;

/**
 * What a request asks the store for: an exclusive lock (every lock before issue 15), a read or write side of a
 * read-write lock, or permits of a semaphore. Each primitive is its own namespace in the store: an exclusive lock,
 * a read-write lock and a semaphore may share a name without meeting. A backend sees a kind other than
 * {@link #EXCLUSIVE} only if it claims the matching capability ({@code READ_WRITE}, {@code SEMAPHORE}).
 *
 * @param type    which primitive and side
 * @param permits for {@link Type#PERMITS}: how many permits this grant takes (1..limit); else 1
 * @param limit   for {@link Type#PERMITS}: the semaphore's permit count, part of its identity; else 1
 */
public record GrantKind(Type type, int permits, int limit) {
    /** The largest permit count a semaphore may have. */
    public static final int MAX_PERMITS = 10_000;

    /** A plain lock. */
    public static final GrantKind EXCLUSIVE = new GrantKind(Type.EXCLUSIVE, 1, 1);
    /** The read side of a read-write lock. */
    public static final GrantKind READ = new GrantKind(Type.READ, 1, 1);
    /** The write side of a read-write lock. */
    public static final GrantKind WRITE = new GrantKind(Type.WRITE, 1, 1);

    /** The kinds of grant. */
    public enum Type {
        /** A plain lock. */
        EXCLUSIVE,
        /** The shared side of a read-write lock. */
        READ,
        /** The exclusive side of a read-write lock. */
        WRITE,
        /** Permits of a semaphore. */
        PERMITS
    }

    /**
     * Checks the permit counts.
     *
     * @param type which primitive and side
     * @param permits for {@code PERMITS}: 1 to {@code limit}; else 1
     * @param limit for {@code PERMITS}: 1 to {@link #MAX_PERMITS}; else 1
     * @throws IllegalArgumentException if a count is out of range
     */
    public GrantKind {
        if (type == null) {
            throw new IllegalArgumentException("grant kind type must not be null");
        }
        if (type == Type.PERMITS) {
            if (limit < 1 || limit > MAX_PERMITS) {
                throw new IllegalArgumentException("a semaphore has 1.." + MAX_PERMITS + " permits, was " + limit);
            }
            if (permits < 1 || permits > limit) {
                throw new IllegalArgumentException(
                        "permits to acquire must be 1.." + limit + " (the semaphore's permit count), was " + permits);
            }
        } else if (permits != 1 || limit != 1) {
            throw new IllegalArgumentException(type + " takes no permit count, was " + permits + " of " + limit);
        }
    }

    /**
     * {@code n} permits of a semaphore with {@code limit} permits.
     *
     * @param n the permits to take, 1 to {@code limit}
     * @param limit the semaphore's permit count
     * @return the kind
     */
    public static GrantKind permits(int n, int limit) {
        return new GrantKind(Type.PERMITS, n, limit);
    }

    /**
     * True for the kinds several owners may hold at once (reads, permits).
     *
     * @return whether the kind is shared
     */
    public boolean shared() {
        return type == Type.READ || type == Type.PERMITS;
    }

    @Override
    public String toString() {
        return type == Type.PERMITS
                ? permits + " of " + limit + " permits"
                : type.name().toLowerCase(java.util.Locale.ROOT);
    }
}

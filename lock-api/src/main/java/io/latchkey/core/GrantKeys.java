package io.latchkey.core;

import io.latchkey.spi.GrantKind;

/*
 * The client's key for a grant: the key of its local gate, which also registers the grant held under it.
 *
 * An exclusive lock's key is its name: one holder per name per client, so the name's gate is the single-flight
 * queue and re-entry finds the grant by name. A write lock has one key per name too. Read grants and permits may
 * be held by several acquisitions of one client at once, so each has its own key (name and owner id, or name and
 * thread for a reentrant read): no local gate holds them back. A control character starts every non-exclusive key, and a valid name has none, so no key of one kind
 * can equal a key of another.
 */
final class GrantKeys {
    private GrantKeys() {}

    /**
     * @param reentrantThread the acquiring thread when the options are PER_THREAD (its re-entries find the grant
     *                        by this key), else null
     */
    static String of(String name, GrantKind kind, String owner, Thread reentrantThread) {
        return switch (kind.type()) {
            case EXCLUSIVE -> name;
            case WRITE -> "\u0001W" + name;
            case READ ->
                reentrantThread != null
                        ? "\u0001R" + name + "\u0000t" + reentrantThread.getId()
                        : "\u0001R" + name + '\u0000' + owner;
            case PERMITS -> permits(name, owner);
        };
    }

    /** The key of a permit grant: a backend's loss report names only (name, owner), so it is found by this. */
    static String permits(String name, String owner) {
        return "\u0001P" + name + '\u0000' + owner;
    }

    /** How messages name what was asked for: "lock 'x'", "read lock 'x'" or "2 of 5 permits of semaphore 'x'". */
    static String describe(String name, GrantKind kind) {
        return switch (kind.type()) {
            case PERMITS -> kind.permits() + " of " + kind.limit() + " permits of semaphore " + LockNames.quote(name);
            case READ -> "read lock " + LockNames.quote(name);
            case WRITE -> "write lock " + LockNames.quote(name);
            case EXCLUSIVE -> "lock " + LockNames.quote(name);
        };
    }
}

package io.latchkey.core;

import io.latchkey.spi.GrantKind;

/*
 * The client's key for a grant, in its registry of held grants (`active`) and its local gates.
 *
 * An exclusive lock's key is its name: one holder per name per client, so the name's gate is the single-flight
 * queue and re-entry finds the grant by name. Permits of a semaphore may be held by several acquisitions of one
 * client at once, so each has its own key (name and owner id): no local gate holds them back and no re-entry
 * applies. A control character starts every non-exclusive key, and a valid name has none, so no key of one kind
 * can equal a key of another.
 */
final class GrantKeys {
    private GrantKeys() {}

    static String of(String name, GrantKind kind, String owner) {
        return switch (kind.type()) {
            case EXCLUSIVE -> name;
            case PERMITS -> permits(name, owner);
            case READ, WRITE ->
                throw new IllegalArgumentException(
                        "read-write locks are not offered yet (" + kind + " for '" + name + "')");
        };
    }

    /** The key of a permit grant: a backend's loss report names only (name, owner), so it is found by this. */
    static String permits(String name, String owner) {
        return "\u0001P" + name + '\u0000' + owner;
    }

    /** How messages name what was asked for: "lock 'x'" or "2 of 5 permits of semaphore 'x'". */
    static String describe(String name, GrantKind kind) {
        return kind.type() == GrantKind.Type.PERMITS
                ? kind.permits() + " of " + kind.limit() + " permits of semaphore " + LockNames.quote(name)
                : "lock " + LockNames.quote(name);
    }
}

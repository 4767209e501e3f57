package io.latchkey.tck.selftest;

/**
 * The one deliberate defect a {@link FlawedStore} has. Apart from it, the store behaves as a correct backend
 * must, so a TCK rule that fails against it fails because of this defect and nothing else.
 */
enum Flaw {
    /** No defect: the control that shows the scaffold itself passes the targeted rules. */
    NONE,
    /**
     * tryAcquire checks "free?", pauses, then writes the new owner without re-checking: two contenders that
     * both saw the lock free both get a grant (§4.1 exclusion).
     */
    NO_EXCLUSION_UNDER_RACE,
    /** Every grant carries the same fencing token (§4.2 fencing). */
    TOKEN_NOT_INCREASING,
    /**
     * release and renew act on whatever grant the name has, ignoring owner and token: a stale holder removes
     * or extends the next owner's grant (§4.4 ownership).
     */
    RELEASE_DELETES_OTHER_OWNERS_GRANT,
    /** The lease is ignored: a grant lasts until it is released, so a crashed holder's lock never frees (§4.3 lease). */
    LEASE_NEVER_EXPIRES,
    /**
     * renew answers "renewed" even when the store no longer holds the grant, and forceRelease does not tell
     * the holder: the holder never learns of its loss (§4.5 loss).
     */
    LOSS_NEVER_REPORTED,
    /**
     * The store key is the lower-cased name, a lossy encoding: "a" and "A" are one lock (§4.8 bad input never
     * corrupts state).
     */
    BAD_NAME_CORRUPTS_ANOTHER_LOCK,
    /**
     * Stores nothing and grants everything: every tryAcquire is granted (tokens from one rising counter), every
     * renew and release succeeds, inspect and list show nothing, forceRelease finds nothing. The baseline every rule
     * that depends on the store must fail.
     */
    GRANTS_EVERYTHING
}

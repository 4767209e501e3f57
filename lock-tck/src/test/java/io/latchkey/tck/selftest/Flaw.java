package io.latchkey.tck.selftest;

/**
 * The one deliberate defect a {@link FlawedStore} has. Apart from it, the store behaves as a correct backend
 * must, so a TCK rule that fails against it fails because of this defect and nothing else.
 */
enum Flaw {
    /** No defect: the control that shows the scaffold itself passes the targeted rules. */
    NONE,
    /**
     * No defect, with the store's notification and a wait inside the store: the control of the flaws below that
     * need them (the client claims NATIVE_WAIT, and its acquire waits in the store).
     */
    NONE_WAITING_IN_THE_STORE(true),
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
    GRANTS_EVERYTHING,
    /** release and renew match the owner but not the token: an owner's stale grant releases its newer grant. */
    RELEASE_IGNORES_TOKEN,
    /** renew extends a grant that expired if no one took the lock since: a dead holder comes back. */
    RENEW_REVIVES_EXPIRED,
    /** The store keeps a grant for its lease rounded down to whole seconds (at least 1 s), shorter than reported. */
    LEASE_FLOORED_TO_SECONDS,
    /** Validity is counted from the reply's arrival (here 30 ms after the store decided), not the request's start. */
    VALID_UNTIL_FROM_REPLY,
    /** inspect shows a grant whose lease ran out. */
    INSPECT_SHOWS_EXPIRED,
    /** list shows grants whose lease ran out. */
    LIST_SHOWS_EXPIRED,
    /** list treats its prefix as a pattern: SQL LIKE's {@code _ %} and a glob's {@code * ? [..]} match anything. */
    LIST_PREFIX_AS_PATTERN,
    /** list ignores its prefix and shows every held lock. */
    LIST_IGNORES_PREFIX,
    /** inspect never shows anything. */
    INSPECT_SHOWS_NOTHING,
    /** The store's notification reaches only waiters that asked for fairness: one with Fairness.NONE sleeps on. */
    NATIVE_WAIT_IGNORES_UNFAIR(true),
    /** forceRelease deletes the name's record, fencing counter included: the next grant starts again at 1. */
    FORCE_RELEASE_RESETS_FENCING,
    /** forceRelease removes the grant but does not notify: waiters in the store sleep on. */
    FORCE_RELEASE_WAKES_NOBODY(true),
    /** forceRelease tells the holder and returns true, and leaves the grant in the store. */
    FORCE_RELEASE_REMOVES_NOTHING,
    /** forceRelease of a lock that no one holds returns true. */
    FORCE_RELEASE_ALWAYS_TRUE,
    /** A forced release is reported to its holder as EXPIRED. */
    FORCED_LOSS_REPORTED_AS_EXPIRED,
    /**
     * The wait inside the store (LockBackend.acquire) does not recognise the owner's own grant: a retried acquisition
     * whose first reply was lost waits for itself and gives up busy. tryAcquire is correct.
     */
    IDEMPOTENT_ONLY_IN_TRYACQUIRE(true),
    /** The fencing counter lives in the grant's record and starts again when a grant expired. */
    TOKEN_RESET_AFTER_EXPIRY,
    /** The fencing counter lives in the grant's record and is deleted with it on release. */
    TOKEN_RESET_AFTER_RELEASE,
    /** A retry with the same owner id is granted again, with a new token (two grants for one acquisition). */
    SAME_OWNER_GETS_NEW_TOKEN,
    /** A retry with the same owner id is answered busy: a grant whose reply was lost leaks until it expires. */
    SAME_OWNER_IS_BUSY,
    /** renew answers "renewed" and leaves the store's expiry where it was. */
    RENEW_DOES_NOT_EXTEND,
    /** The store key is the name cut to 200 characters: long names that differ at the end are one lock. */
    NAME_TRUNCATED,
    /**
     * A namespace is joined to the name with no separator: namespace "n" with name "nx" is namespace "nn" with name
     * "x", so two applications share locks.
     */
    NAMESPACE_CONCATENATED,
    /**
     * renew answers "renewed" for the full lease and keeps the grant for half of it: a holder paused after a renewal
     * still believes it holds the lock when the store gives it to another (the process rules' safe window).
     */
    RENEW_SHORTENS_THE_LEASE,
    /**
     * Acquire in two requests, as Redis's SETNX then EXPIRE: the store's grant has no expiry until the client's second
     * request gives it its lease, and the same owner's retry is busy (SETNX knows no owner). A grant whose reply was
     * lost never gets its lease: the lock stays taken by nobody, for ever (the lost-reply rule).
     */
    LEASE_SET_BY_A_SECOND_REQUEST,
    /**
     * A client of a store with several interchangeable endpoints (the served store on three) sends everything to the
     * first endpoint and never fails over: losing that one node stops it, though a majority answers (the minority-cut
     * rule).
     */
    NO_FAILOVER_BETWEEN_ENDPOINTS,
    /**
     * A remote client sends the expiry as a time on its own wall clock (as an SQL backend that writes
     * {@code expires_at = now_on_the_client + lease} would), and the store compares it with its own: a client whose
     * wall clock is an hour ahead holds for an hour, one an hour behind holds for nothing (the clock rules). Only the
     * child JVMs' RemoteStoreBackend has it; the test's own clients share the store's clock.
     */
    EXPIRY_FROM_CLIENT_WALL_CLOCK,
    /**
     * The client renews in batches (renewalBatchSize 64) and its renewAll extends only the first grant of a batch,
     * answering "renewed" for every one: the others expire in the store while their holders believe they hold them.
     */
    BATCH_RENEWS_ONLY_THE_FIRST,
    /** handOver gives the next owner the held grant's token: two successive holders carry the same token. */
    HAND_OVER_KEEPS_TOKEN,
    /**
     * handOver checks neither owner nor token: a holder whose grant ended hands over the lock of whoever holds the name
     * now, to its own next owner.
     */
    HAND_OVER_OF_A_GRANT_NOT_HELD;

    private final boolean waitsInTheStore;

    Flaw() {
        this(false);
    }

    Flaw(boolean waitsInTheStore) {
        this.waitsInTheStore = waitsInTheStore;
    }

    /** Whether the store notifies waiters (its clients claim NATIVE_WAIT) and its acquire waits in the store. */
    boolean waitsInTheStore() {
        return waitsInTheStore;
    }
}

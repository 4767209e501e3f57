package io.latchkey;

/**
 * How strongly the caller wants first-come, first-served order among waiters.
 *
 * <p>Inside one {@link LockClient}, waiters for one name are always queued in FIFO order. Across clients,
 * order depends on the backend: only backends with {@link Capability#FAIR} keep it.
 */
public enum Fairness {
    /** Order across clients does not matter; the backend may use its cheapest protocol. */
    NONE,
    /** Use the backend's fair protocol when it has one (the default). */
    PREFERRED,
    /**
     * Fair order is required: {@link LockClient#lock(String, LockOptions)} rejects the options with an
     * {@link IllegalArgumentException} when the backend lacks {@link Capability#FAIR}.
     */
    REQUIRED
}

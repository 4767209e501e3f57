package io.latchkey.recipes;

import io.latchkey.Durations;
import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockInfo;
import io.latchkey.LockOptions;
import io.latchkey.Reentrancy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * Leader election for one name: of all the electors started for that name on one store, at most one is leader at
 * a time, as judged by the store. Built on the name's {@link io.latchkey.DistributedLock}, so it works on every
 * backend; the leader is whoever holds the lock, and each {@link Term} is one grant with its fencing token.
 *
 * <pre>{@code
 * try (LockClient client = Latchkey.connect("redis://localhost:6379");
 *      Elector elector = Elector.builder(client, "billing/leader")
 *              .listener(new ElectionListener() {
 *                  public void onElected(Term term) { scheduler.resume(term.fencingToken()); }
 *                  public void onRevoked(Term term, Revocation why) { scheduler.pause(); }
 *              }, executor)
 *              .build()
 *              .start()) {
 *     ...
 * }
 * }</pre>
 *
 * <ul>
 *   <li>A leader learns that it lost no later than the moment another instance could win: {@link #isLeader()}
 *       turns false by the term's {@link Term#validUntil()} even when no answer from the store ever comes, and
 *       {@code onRevoked} follows on the listener's executor.</li>
 *   <li>When a leader dies, another elector wins once the lock frees: within the lease (lease stores) or the
 *       session timeout (session stores), plus the store's wake-up.</li>
 *   <li>After a revocation the elector re-enters the election by itself, unless it was closed.</li>
 * </ul>
 */
public interface Elector extends AutoCloseable {

    /**
     * A builder for an elector on {@code name} (checked as a lock name) through {@code client}.
     *
     * @param client the client whose lock carries the election
     * @param name the election's name, used as the lock's name
     * @return a new builder
     */
    static Builder builder(LockClient client, String name) {
        return new Builder(client, name);
    }

    /**
     * The election's name.
     *
     * @return the election's name, which is its lock's name
     */
    String name();

    /**
     * Joins the election on a thread of its own and returns at once.
     *
     * @return this elector
     * @throws IllegalStateException if it was already started or closed
     */
    Elector start();

    /**
     * True while this instance leads: its current term is not revoked and its grant is still valid.
     *
     * @return whether this instance leads now
     */
    boolean isLeader();

    /**
     * The current term, while this instance leads.
     *
     * @return the current term, or empty when this instance does not lead
     */
    Optional<Term> term();

    /**
     * Waits up to {@code wait} for this instance to lead.
     *
     *
     * @param wait how long to wait: zero or positive
     * @return the term, or empty if the wait ran out (or the elector was closed)
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    Optional<Term> awaitLeadership(Duration wait) throws InterruptedException;

    /**
     * Who leads now, as the store says: the holder's owner id (whose first part is the leading client's
     * {@value io.latchkey.Latchkey#OWNER_SETTING} setting, or its host and process id) and fencing token. Empty when
     * nobody leads. One read from the store.
     *
     * @return the leader as the store records it, or empty
     */
    Optional<LockInfo> currentLeader();

    /**
     * Steps down and stays out of the election for the {@linkplain Builder#relinquishBackoff(Duration) back-off},
     * then re-enters by itself. If this instance leads, the term is revoked with
     * {@link Revocation.Reason#RELINQUISHED} and released before this returns, so another elector can win at once.
     * If it does not lead, it just stays out for the back-off.
     */
    void relinquish();

    /** Leaves the election: revokes a current term ({@link Revocation.Reason#CLOSED}) and releases it. Idempotent. */
    @Override
    void close();

    /** Builder for an {@link Elector}; not thread-safe. Each setter checks its argument at once. */
    final class Builder {
        private final LockClient client;
        private final String name;
        private LockOptions options = LockOptions.defaults();
        private @Nullable Duration relinquishBackoff;
        private final List<Registered> listeners = new ArrayList<>();

        record Registered(ElectionListener listener, Executor executor) {}

        private Builder(LockClient client, String name) {
            if (client == null) {
                throw new IllegalArgumentException("client must not be null");
            }
            this.client = client;
            this.name = Latchkey.checkLockName(name);
        }

        /**
         * The election lock's options (default {@link LockOptions#defaults()}: 30 s lease, renewed every 10 s).
         * The lease bounds how long a dead leader blocks the election. Auto-renewal must be on (a term lasts
         * while it is renewed) and reentrancy {@link Reentrancy#NONE}.
         *
         * @param options the election lock's options
         * @return this builder
         */
        public Builder options(LockOptions options) {
            if (options == null) {
                throw new IllegalArgumentException("options must not be null");
            }
            if (!options.autoRenew()) {
                throw new IllegalArgumentException(
                        "an elector renews its term while it leads: options must have autoRenew on, was off");
            }
            if (options.reentrancy() != Reentrancy.NONE) {
                throw new IllegalArgumentException(
                        "an elector holds one grant per term: options must have reentrancy NONE, was "
                                + options.reentrancy());
            }
            this.options = options;
            return this;
        }

        /**
         * How long {@link #relinquish()} keeps this instance out of the election: positive; default the lease.
         *
         * @param backoff how long a relinquished instance stays out, positive
         * @return this builder
         */
        public Builder relinquishBackoff(Duration backoff) {
            this.relinquishBackoff = Durations.requireLease(backoff, "relinquishBackoff");
            return this;
        }

        /**
         * Adds a listener, called on {@code executor} one call at a time in order.
         *
         * @param listener the listener
         * @param executor where its calls run
         * @return this builder
         */
        public Builder listener(ElectionListener listener, Executor executor) {
            if (listener == null || executor == null) {
                throw new IllegalArgumentException(
                        "listener and executor must not be null; for the calling thread use Runnable::run");
            }
            listeners.add(new Registered(listener, executor));
            return this;
        }

        /**
         * The elector, not yet started.
         *
         * @return the elector; {@link Elector#start()} joins the election
         */
        public Elector build() {
            return new LockElector(
                    client,
                    client.lock(name, options),
                    relinquishBackoff == null ? options.lease() : relinquishBackoff,
                    List.copyOf(listeners));
        }
    }
}

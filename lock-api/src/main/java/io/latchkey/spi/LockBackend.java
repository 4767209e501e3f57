package io.latchkey.spi;

import io.latchkey.Capability;
import io.latchkey.LockInfo;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Store primitives for one lock store. The core does everything else (waiting loop, local queue,
 * renewal, loss detection, reentrancy, validation, events), so a backend stays small.
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li>Thread-safe: the core calls it from many threads at once, never for the same name concurrently
 *       from one client except {@link #release} racing a renewal.</li>
 *   <li>Names reaching the backend are valid (1–255 UTF-8 bytes, no control characters); the backend must
 *       encode every one of them without escape or collision.</li>
 *   <li>{@link #tryAcquire} grants only if no other owner holds a valid grant; a grant it finds already held
 *       by the request's owner is returned as granted with the same token (idempotent retries).</li>
 *   <li>Fencing tokens never go back for a name, also across release and expiry.</li>
 *   <li>{@link #renew} and {@link #release} act only if the store still holds this very grant (owner and
 *       token); they never touch a later grant.</li>
 *   <li>A request's {@link AcquireRequest#kind()} is other than {@link GrantKind#EXCLUSIVE} only if the backend
 *       claims the matching capability. {@code permits(n, limit)} is granted iff the permits of the name's valid
 *       grants plus {@code n} fit in {@code limit}; each grant has its own owner, lease and token (one counter per
 *       semaphore), and the first acquisition stores {@code limit}: a request with another limit is an
 *       {@link IllegalArgumentException} naming both counts, and changes nothing. Semaphores are a namespace apart
 *       from locks.</li>
 *   <li>{@code READ} is granted iff no other owner holds a valid {@code WRITE} grant of the name and no writer waits
 *       (writer preference); {@code WRITE} iff no other owner holds a valid grant of either side. A {@code WRITE}
 *       attempt that finds the lock busy records that a writer waits, for at most the request's lease, until it is
 *       granted or {@link #withdraw withdrawn}. Both sides share one fencing counter per name, and read-write locks
 *       are a namespace apart from locks and semaphores.</li>
 *   <li>I/O failures surface as {@link io.latchkey.BackendUnavailableException} naming the lock and
 *       {@link #description()}; a password never appears in a message.</li>
 * </ul>
 *
 * <h2>Cases the TCK enforces</h2>
 * <ul>
 *   <li><b>Validity.</b> A grant's {@link Grant#validUntilNanos()} (and a renewal's) is counted in
 *       {@link #timeSource()} from before the request that proved it was sent, never from the reply's arrival, and
 *       the store keeps the grant at least that long (a lease the store can only hold in whole seconds is rounded
 *       up in the store, or the reported validity is cut to what the store holds). After a wait inside the store
 *       ({@link #acquire(AcquireRequest, Duration)}), it counts from before the request whose reply said
 *       "granted" (the last round trip of the wait), not from the start of the wait. The core takes the earlier of
 *       this and its own request start + lease - drift (1 % + 2 ms); for a store wait, the core's bound counts from
 *       the call's return.</li>
 *   <li><b>Same-owner retry.</b> A request whose owner already holds a valid grant of the name is answered with
 *       that grant, same token, by {@link #tryAcquire} and by {@link #acquire(AcquireRequest, Duration)} alike:
 *       the core retries with the same owner after a failure whose outcome it could not see. Once that grant has
 *       ended, the same owner is given a new grant with a greater token, and the ended grant's release and renew
 *       change nothing (they match owner <em>and</em> token).</li>
 *   <li><b>Busy while queued.</b> {@link #tryAcquire} answers busy when the name is held by another owner, also
 *       if this client has a waiter queued in the store for it ({@link #acquire(AcquireRequest, Duration)} on
 *       another thread): a queue position is not a grant. Only a backend that keeps a queue may grant out of it,
 *       and then in the queue's order.</li>
 *   <li><b>awaitChange and acquire.</b> The core waits in one of two ways: a backend that overrides
 *       {@link #acquire(AcquireRequest, Duration)} waits inside it (and is called with the time left);
 *       otherwise the core loops {@code tryAcquire} and, between attempts, {@link #awaitChange(AcquireRequest,
 *       Duration)}. A backend that claims {@link io.latchkey.Capability#NATIVE_WAIT} must wake both kinds of wait
 *       on a release, a forced release and an expiry it can see, whatever {@link AcquireRequest#fairness()} the
 *       waiter asked for; returning early without a change is allowed (the core simply tries again).</li>
 *   <li><b>Expired grants.</b> The core releases a grant itself when its holder's validity runs out or a renewal
 *       fails for good ({@link io.latchkey.LockLoss.Reason#EXPIRED}, {@code RENEWAL_FAILED}), in the background; a
 *       backend must not rely on it (a crashed client releases nothing). A grant whose validity has already
 *       ended when the call that made it returns (the backend retried a lost reply for longer than the lease, the
 *       store stalled) is released by the core at once, and the acquisition goes on as after a busy answer. An ended
 *       grant is not shown by
 *       {@link #inspect} or {@link #list}, {@link #renew} never revives it, and a later grant's token is greater,
 *       also when the grant ended by expiry alone or by {@link #forceRelease}.</li>
 *   <li><b>Listing.</b> {@link #list}'s prefix is literal: every character, {@code _ % * ? [ ] \} included, matches
 *       itself only.</li>
 *   <li><b>forceRelease.</b> Returns false, changing nothing, when no valid grant exists; otherwise the lock is free
 *       when it returns, the fencing counter is kept, the holder is told
 *       ({@link io.latchkey.LockLoss.Reason#RELEASED_BY_ADMIN}) and, with NATIVE_WAIT, waiters are woken.</li>
 * </ul>
 */
public interface LockBackend extends AutoCloseable {

    /**
     * The store's URI or a similar description, without any password.
     *
     * @return the description used in messages, safe to log
     */
    String description();

    /**
     * What the backend offers beyond the core contract; the TCK tests each claim.
     *
     * @return the capabilities this backend claims
     */
    Set<Capability> capabilities();

    /**
     * The clock for this backend's grants; the system clock unless the store is virtual.
     *
     * @return the time source of validity computations
     */
    default TimeSource timeSource() {
        return TimeSource.system();
    }

    /**
     * Called once by the core before any other call, with where to report losses the store detects itself.
     *
     * @param sink where the backend reports grants the store ended (a session expiry, a lost lease)
     */
    default void bind(GrantLossSink sink) {}

    /**
     * One attempt, without waiting in the store.
     *
     * @param request the name, owner id, lease and kind of the grant asked for
     * @return the grant, or {@link Busy} naming the holder when it can tell
     */
    AcquireResult tryAcquire(AcquireRequest request);

    /**
     * An attempt that may wait inside the store (a native queue, a blocking database lock) for up to
     * {@code maxWait}; returns {@link Busy} if still not granted then. The default is one
     * {@link #tryAcquire} and the core's loop does the waiting. Must honour interruption and leave nothing
     * held or queued when it returns busy or throws.
     *
     * @param request the name, owner id, lease and kind of the grant asked for
     * @param maxWait the longest wait inside the store
     * @return the grant, or {@link Busy} when still not granted
     * @throws InterruptedException if the thread is interrupted; nothing is then held or queued
     */
    default AcquireResult acquire(AcquireRequest request, Duration maxWait) throws InterruptedException {
        return tryAcquire(request);
    }

    /**
     * Pauses a waiter until the store reports a change to {@code name} (a release) or {@code timeout} passes.
     * The default sleeps the whole timeout: backends that can be notified override it and claim
     * {@link Capability#NATIVE_WAIT}. One release should wake one waiter per client.
     *
     *
     * @param name the lock's name
     * @param timeout the longest pause
     * @return true if woken by a notification, false on timeout
     * @throws InterruptedException if the thread is interrupted while paused
     */
    default boolean awaitChange(String name, Duration timeout) throws InterruptedException {
        TimeUnit.NANOSECONDS.sleep(timeout.toNanos());
        return false;
    }

    /**
     * As {@link #awaitChange(String, Duration)} for the primitive the request is for; the default waits on the
     * name. A backend that claims {@link io.latchkey.Capability#SEMAPHORE} overrides it to wake on the semaphore's
     * releases.
     *
     * @param request the acquisition that found the primitive busy
     * @param timeout the longest pause
     * @return true if woken by a notification, false on timeout
     * @throws InterruptedException if the thread is interrupted while paused
     */
    default boolean awaitChange(AcquireRequest request, Duration timeout) throws InterruptedException {
        return awaitChange(request.name(), timeout);
    }

    /**
     * The permits of semaphore {@code name} that no valid grant holds. Backends that claim
     * {@link io.latchkey.Capability#SEMAPHORE} override it.
     *
     *
     * @param limit the permit count the caller opened the semaphore with
     * @param name the semaphore's name
     * @return the free permits, 0 to {@code limit}
     * @throws IllegalArgumentException if the store knows {@code name} with another permit count
     */
    default int availablePermits(String name, int limit) {
        throw new UnsupportedOperationException(
                "semaphores are not supported by " + description() + " (capability SEMAPHORE not claimed)");
    }

    /**
     * Why this backend does not offer {@code capability}, if it has a reason worth telling the user (for example
     * Redlock and semaphores); {@code null} for the core's generic refusal.
     *
     * @param capability a capability this backend does not claim
     * @return the reason, or {@code null}
     */
    default @Nullable String refusal(Capability capability) {
        return null;
    }

    /**
     * The core calls this when an acquisition that the store answered "busy" gives up (timeout, interruption,
     * failure), with the request it was making: a backend that recorded something for the waiter (a writer's
     * intent) removes it now rather than at its expiry. The default does nothing.
     *
     * @param request the request of the acquisition that gave up
     */
    default void withdraw(AcquireRequest request) {}

    /**
     * Turns the held {@code write} grant into a read grant for {@code read} (kind {@link GrantKind#READ}, a new
     * owner id) in one store step: no other writer can take the lock in between, and the write grant ends with
     * it (the core does not release it). The read grant's token is not lower than the write grant's (a queue store
     * keeps the writer's place and token), and every later grant's token must be greater. Returns null, changing nothing, if the store no longer holds {@code write}.
     * Backends that claim {@code READ_WRITE} implement it; the default refuses.
     *
     * @param write the held write grant
     * @param read the read request (same name, kind {@code READ}, new owner id)
     * @return the read grant, or {@code null} if the store no longer holds {@code write}
     */
    default @Nullable Grant downgrade(Grant write, AcquireRequest read) {
        throw new UnsupportedOperationException("downgrading a write lock is not supported by " + description());
    }

    /**
     * Extends this grant's lease if the store still holds it.
     *
     * @param grant the grant to renew
     * @param lease the new lease, counted from before the request
     * @return the new validity, or that the store no longer holds the grant
     */
    RenewResult renew(Grant grant, Duration lease);

    /**
     * How many exclusive grants {@link #renewAll} renews in one round trip. 1 (the default): the store has no batch,
     * and the core renews each grant on its own with {@link #renew}. A backend that returns more receives the
     * background renewals of its exclusive grants that fall due together (at most this many per call), so that a
     * client holding thousands of locks costs the store a few round trips per renewal interval, not one per lock.
     *
     * @return the largest batch, at least 1
     */
    default int renewalBatchSize() {
        return 1;
    }

    /**
     * Renews several exclusive grants ({@link GrantKind.Type#EXCLUSIVE}) in as few round trips as the store allows:
     * for each grant, what {@link #renew} would answer, each validity counted from before the batch's request. Called
     * only by a core that read a {@link #renewalBatchSize()} above 1, with at most that many grants.
     *
     * @param grants the grants, of distinct owners
     * @param leases the lease to ask for each grant, in the same order
     * @return one result per grant, in the same order; null for a grant whose renewal the store could not decide
     *         (on Redlock, too few nodes answered for it): an outage for that grant alone, retried as after a failed
     *         {@link #renew}
     * @throws RuntimeException when the store could not be asked ({@link io.latchkey.BackendUnavailableException}):
     *         then no grant of the batch is known to be renewed, and the core retries each as after a failed
     *         {@link #renew}
     */
    default List<@Nullable RenewResult> renewAll(List<Grant> grants, List<Duration> leases) {
        List<@Nullable RenewResult> out = new java.util.ArrayList<>(grants.size());
        for (int i = 0; i < grants.size(); i++) {
            out.add(renew(grants.get(i), leases.get(i)));
        }
        return out;
    }

    /**
     * Removes this grant if the store still holds it; true if it did.
     *
     * @param grant the grant to release
     * @return true if the store held the grant and removed it
     */
    boolean release(Grant grant);

    /**
     * Ends {@code held} as {@link #release} does and, where the store can make both changes in one step, grants
     * {@code next} in that same step. The core calls it instead of {@code release} when another thread of this client
     * waits for the name, so that a hand-off inside one client costs one round trip rather than a release and then a
     * new attempt. The default releases only, and the waiting thread contends as usual.
     *
     * <p>{@code next} is for the same name, kind {@link GrantKind#EXCLUSIVE}, with a new owner id of this client. A
     * store that keeps a queue of waiters never hands over while any waiter is queued in it, whatever
     * {@code next.fairness()} says: it then releases (waking the head of its queue, as a release does) and returns
     * {@link HandOver#released}, so that a hand-off inside one client never passes over another client. The new
     * grant's token is greater than {@code held}'s, its validity is counted as a {@code tryAcquire}'s is (from before
     * the request), and {@code held} ends with the step: its release and renew change nothing afterwards. When the
     * store no longer holds {@code held} (released, expired, taken by another owner), it grants nothing, does what
     * {@code release} would (nothing, or clearing an expired record), and answers {@code HandOver.released(false)}.
     * A call that throws may have lost only its reply: the core then abandons {@code next}'s owner id as it abandons
     * an unanswered acquisition ({@code tryAcquire} with that owner, and the release of what it returns).
     *
     * @param held the grant to end
     * @param next the request of this client's next owner
     * @return whether {@code held} was held, and the grant made for {@code next} if the store made one
     */
    default HandOver handOver(Grant held, AcquireRequest next) {
        return HandOver.released(release(held));
    }

    /**
     * What the store holds for {@code name}.
     *
     * @param name the lock's name
     * @return the holder as the store reports it, or empty when free
     */
    Optional<LockInfo> inspect(String name);

    /**
     * Every held lock whose name starts with {@code prefix}; backends with {@link Capability#LISTING} override it.
     *
     * @param prefix the start of the names to list; {@code ""} for all
     * @return one entry per held lock
     */
    default List<LockInfo> list(String prefix) {
        throw new UnsupportedOperationException(
                "listing locks is not supported by " + description() + " (capability LISTING not claimed)");
    }

    /**
     * Removes the current grant of {@code name}, whoever holds it; true if there was one.
     *
     * @param name the lock's name
     * @return true if a grant was removed
     */
    default boolean forceRelease(String name) {
        throw new UnsupportedOperationException("forced release is not supported by " + description());
    }

    /** Frees the backend's resources (not those the application passed in). */
    @Override
    void close();
}

package io.latchkey.tck;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockInfo;
import io.latchkey.LockLoss;
import io.latchkey.LockOptions;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/*
 * Network faults between one client and the store, made by the TCK's fault proxy (io.latchkey.tck.faults.FaultProxy)
 * on every connection of a proxied client (LockBackendTck.newBackendThrough); the other clients reach the store
 * directly, as the rest of a fleet would. A lost reply is the case that matters most: the store made the grant and
 * the client never heard, so only the same-owner retry (or the lease) can end it without a double grant.
 */
/** Network faults between one proxied client and the store: silence, a lost reply, latency, a minority cut. */
public interface NetworkFaultRules extends TckRules {

    /**
     * Rule fault network: a holder whose store goes silent (a black hole: no reply, no reset) is told of its loss before
     * another client is granted the lock.
     */
    @Test
    @Tag("network-fault")
    @DisplayName("fault network: a holder cut off by a black hole is told of its loss before another client is granted"
            + " the lock")
    default void network_blackHoledHolderIsToldBeforeAnotherIsGranted() {
        Tck.assumeFaultRules(tck());
        LockClient proxied = tck().newProxiedClient();
        LockClient other = tck().newClient();
        String name = tck().name("black-hole");
        Duration lease = tck().settings().shortLease();
        LockHandle h = Tck.mustAcquire(proxied.lock(name, Tck.renewing(tck())));
        Tck.mustBeBusy(other.lock(name), "the proxied client held it");
        // a holder has usually renewed before its network fails: the renewal's validity is the one to check
        java.time.Instant granted = h.validUntil();
        Tck.await(lease.plus(tck().settings().slack()))
                .until(() -> h.validUntil().isAfter(granted.plus(lease.dividedBy(10))));
        tck().proxies().blackHole();
        try {
            holderBehindABlackHole(h, other, name, lease);
        } finally {
            tck().proxies().heal(); // also when the rule failed: the clients then close through a working network
        }
    }

    private void holderBehindABlackHole(LockHandle h, LockClient other, String name, Duration lease) {
        long silentAt = System.nanoTime();
        Duration bound = ProcessFaultBounds.freedWithin(tck(), lease);
        if (tck().settings().pausedHolderKeepsItsLock()) {
            LockLoss loss =
                    Tck.awaitLoss(h, bound, "its store went silent (black hole) and no renewal could arrive");
            long toldAt = System.nanoTime();
            // the grant lives as long as the holder's connection, which the store sees open: nobody else may have
            // it while the black hole lasts; healing closes the connection, and that frees the lock
            Tck.staysTrue(
                    tck().settings().slack(),
                    () -> other.lock(name).tryAcquire().map(g -> {
                                g.close();
                                return false;
                            })
                            .orElse(true),
                    "another client was granted a lock whose holder's connection the store still saw open"
                            + " (pausedHolderKeepsItsLock is declared)");
            tck().proxies().heal();
            long healedAt = System.nanoTime();
            LockHandle next = ProcessFaultBounds.awaitFreed(
                    other, name, lease.plus(tck().settings().slack()), "a holder whose connection was healed and closed");
            long grantedAt = System.nanoTime();
            next.close();
            Tck.figure(
                    "FIGURE fault network black hole on {}: holder told ({}) {} ms after the store went silent; the"
                            + " lock stayed its own while its connection lived, another granted {} ms after the heal"
                            + " closed it (lease {} ms)",
                    other.backend(),
                    loss.reason(),
                    Tck.millis(toldAt - silentAt),
                    Tck.millis(grantedAt - healedAt),
                    lease.toMillis());
            return;
        }
        // another client asks while the holder waits for its loss; the instant it has its grant, the holder's last
        // validity must have ended (the core keeps that validity after a loss, so it is read once the loss is known)
        java.util.concurrent.atomic.AtomicLong grantedAtNanos = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicReference<java.time.Instant> grantedAtWall =
                new java.util.concurrent.atomic.AtomicReference<>();
        CompletableFuture<LockHandle> grantedWhileWaitingForLoss = CompletableFuture.supplyAsync(() -> {
            LockHandle g = ProcessFaultBounds.awaitFreed(other, name, bound, "a holder behind a black hole");
            grantedAtNanos.set(System.nanoTime());
            grantedAtWall.set(java.time.Instant.now());
            return g;
        });
        try {
            LockLoss loss = Tck.awaitLoss(h, bound, "its store went silent (black hole) and no renewal could arrive");
            long toldAt = System.nanoTime();
            Tck.rethrowFailureOf(grantedWhileWaitingForLoss, bound.plus(tck().settings().slack()));
            long grantedAt = grantedAtNanos.get();
            java.time.Instant holderValidUntil = h.validUntil();
            Tck.figure(
                    "FIGURE fault network black hole on {}: holder told ({}) {} ms after the store went silent, another"
                            + " granted {} ms after (lease {} ms)",
                    other.backend(),
                    loss.reason(),
                    Tck.millis(toldAt - silentAt),
                    Tck.millis(grantedAt - silentAt),
                    lease.toMillis());
            assertFalse(
                    holderValidUntil.isAfter(grantedAtWall.get().plusMillis(1)),
                    () -> "another client was granted the lock "
                            + java.time.Duration.between(grantedAtWall.get(), holderValidUntil).toMillis()
                            + " ms before the silent holder's validity ended: the holder's validity outlived the"
                            + " store's grant (check the validity LockBackend.renew reports)");
        } finally {
            grantedWhileWaitingForLoss.thenAccept(LockHandle::close);
        }
    }

    /**
     * Rule fault network: a grant whose reply was lost is recovered by the same owner's retry, or ends with its lease;
     * never two holders.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("network-fault")
    @DisplayName("fault network: a grant whose reply was lost is recovered by the same owner's retry or ends with its"
            + " lease, never two holders")
    default void network_lostReplyIsRecoveredOrExpiresWithoutADoubleGrant() throws Exception {
        Tck.assumeFaultRules(tck());
        LockClient proxied = tck().newProxiedClient();
        LockClient other = tck().newClient();
        String name = tck().name("lost-reply");
        Duration lease = tck().settings().shortLease();
        Duration slack = tck().settings().slack();
        warmUp(proxied, name);
        // the orphan must be recovered or end within this after the heal, which follows the grant within milliseconds
        Duration ends = lease.plus(slack).plus(ProcessFaultBounds.sessionAllowance(tck()));
        Duration wait = ends.plus(slack);
        tck().proxies().loseReplies();
        long sentAt = System.nanoTime();
        CompletableFuture<Optional<LockHandle>> acquisition = CompletableFuture.supplyAsync(() -> {
            try {
                return proxied.lock(name, Tck.fastRetry(Tck.expiring(tck()))).tryAcquire(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        });
        // the store made the grant; its reply is lost on the way back
        LockInfo orphan = Tck.await(Duration.ofSeconds(10))
                .until(() -> other.inspect(name), Optional::isPresent)
                .orElseThrow();
        tck().proxies().heal();
        long healedAt = System.nanoTime();
        Tck.rethrowFailureOf(acquisition, wait.plus(slack));
        Optional<LockHandle> got = acquisition.join();
        long gotAt = System.nanoTime();
        assertTrue(
                got.isPresent(),
                () -> "the acquisition whose first reply was lost did not get the lock within " + wait.toMillis()
                        + " ms, though the store was reachable again " + Tck.millis(healedAt - sentAt) + " ms after it"
                        + " was sent; the orphan grant (" + orphan.owner() + ", token " + orphan.fencingToken()
                        + ") neither went to its owner's retry nor ended with its lease (check LockBackend.tryAcquire:"
                        + " recognise the same owner's retry, and give a grant its lease in the request that makes it)");
        LockHandle h = got.get();
        boolean recovered = h.fencingToken() == orphan.fencingToken();
        Tck.figure(
                "FIGURE fault network lost reply on {}: {} {} ms after the reply was lost (lease {} ms)",
                other.backend(),
                recovered
                        ? "recovered by the same owner's retry"
                        : "granted anew after the orphan grant ended (its lease, or its connection closed by the heal)",
                Tck.millis(gotAt - sentAt),
                lease.toMillis());
        // never two holders: while the recovered handle is valid nobody else gets the lock. (Its lease counts from the
        // first request, not the retry, so a retry that took most of the lease, as a ZooKeeper client's reconnect
        // can, returns a handle that expires soon after, and then another may take the lock.)
        Optional<LockHandle> stolen = other.lock(name).tryAcquire();
        boolean stillValid = h.isValid();
        stolen.ifPresent(LockHandle::release);
        assertTrue(
                stolen.isEmpty() || !stillValid,
                () -> "another client acquired '" + name + "' while the acquisition whose reply was lost still held it"
                        + " (valid until " + h.validUntil() + "; check LockBackend.tryAcquire's same-owner retry and"
                        + " the validity it reports)");
        if (!recovered) {
            assertTrue(
                    h.fencingToken() > orphan.fencingToken(),
                    "the grant after the orphan did not carry a higher token");
            assertTrue(
                    gotAt - healedAt <= ends.toNanos(),
                    () -> "the orphan grant whose reply was lost ended only " + Tck.millis(gotAt - healedAt) + " ms"
                            + " after the network healed; its lease (or session) + slack allows " + ends.toMillis()
                            + " ms (check LockBackend.tryAcquire: an unanswered grant must expire like any other)");
        }
        h.close();
    }

    /**
     * Rule fault network: with every request and reply delayed (a round trip of a twentieth of the lease), a renewed
     * lock stays held and exclusive for several leases. (That its validity counts from before the request is the
     * core's clamp, proved by the lease rules.)
     */
    @Test
    @Tag("network-fault")
    @DisplayName("fault network: a slow store (latency on every request and reply) keeps a renewed lock held and"
            + " exclusive")
    default void network_addedLatencyKeepsARenewedLockHeldAndExclusive() {
        Tck.assumeFaultRules(tck());
        LockClient proxied = tck().newProxiedClient();
        LockClient other = tck().newClient();
        String name = tck().name("latency");
        Duration lease = tck().settings().shortLease();
        Duration oneWay = lease.dividedBy(40);
        warmUp(proxied, name);
        tck().proxies().latency(oneWay);
        long sent = System.nanoTime();
        LockHandle h = proxied.lock(name, Tck.renewing(tck()))
                .tryAcquire()
                .orElseThrow(() -> new AssertionError("a free lock was refused through " + oneWay.toMillis()
                        + " ms of latency each way (check LockBackend.tryAcquire)"));
        long grantedAt = System.nanoTime();
        Tck.staysTrue(
                lease.multipliedBy(3),
                () -> {
                    Optional<LockHandle> stolen = other.lock(name).tryAcquire();
                    stolen.ifPresent(LockHandle::close);
                    return stolen.isEmpty() && h.isValid();
                },
                "a renewed lock behind " + oneWay.toMillis() + " ms of latency each way was lost, or granted to"
                        + " another client (check LockBackend.renew: its validity, and that it succeeds while slow)");
        assertFalse(h.lost().toCompletableFuture().isDone(), "the slow holder was told of a loss");
        h.close();
        Tck.mustAcquire(other.lock(name), tck().settings().slack()).close();
        Tck.figure(
                "FIGURE fault network latency on {}: {} ms each way, granted in {} ms, held through {} leases (lease"
                        + " {} ms)",
                other.backend(),
                oneWay.toMillis(),
                Tck.millis(grantedAt - sent),
                3,
                lease.toMillis());
    }

    /**
     * Rule fault network: on a quorum store (three endpoints or more, and {@link TckSettings#minorityCut()}), with a minority of its endpoints cut off from
     * one client, that client still acquires, keeps and releases the lock, and nobody else holds it meanwhile.
     */
    @Test
    @Tag("network-fault")
    @DisplayName("fault network: with a minority of a quorum store's nodes cut off, a client still acquires, keeps"
            + " and releases the lock, exclusively")
    default void network_minorityOfNodesCutOffKeepsTheQuorumWorking() {
        Tck.assumeFaultRules(tck());
        org.junit.jupiter.api.Assumptions.assumeTrue(
                tck().settings().minorityCut(),
                "this store's endpoints are not interchangeable members of one quorum (TckSettings.minorityCut)");
        LockClient proxied = tck().newProxiedClient();
        java.util.List<io.latchkey.tck.faults.FaultProxy> nodes = tck().proxies().all();
        org.junit.jupiter.api.Assumptions.assumeTrue(
                nodes.size() >= 3, () -> "a minority cut needs a store of three endpoints or more; this client has "
                        + nodes.size());
        LockClient other = tck().newClient();
        String name = tck().name("minority");
        Duration lease = tck().settings().shortLease();
        int minority = (nodes.size() - 1) / 2;
        nodes.subList(0, minority).forEach(io.latchkey.tck.faults.FaultProxy::cut);
        long cutAt = System.nanoTime();
        java.util.function.Supplier<String> couldNot = () -> "a client with " + minority + " of " + nodes.size()
                + " nodes cut off could not acquire a free lock, though a majority answered (check LockBackend.tryAcquire"
                + "'s quorum, and that the client fails over to the endpoints that answer; a store whose endpoints are"
                + " not one quorum's members sets TckSettings.minorityCut(false))";
        LockHandle h;
        try {
            h = Tck.mustAcquire(
                    proxied.lock(name, Tck.renewing(tck())), lease.plus(tck().settings().slack()), couldNot);
        } catch (io.latchkey.BackendUnavailableException e) {
            throw new AssertionError(couldNot.get() + ": " + e.getMessage(), e);
        }
        long grantedAt = System.nanoTime();
        Tck.staysTrue(
                lease.multipliedBy(3),
                () -> {
                    Optional<LockHandle> stolen = other.lock(name).tryAcquire();
                    stolen.ifPresent(LockHandle::close);
                    return stolen.isEmpty() && h.isValid();
                },
                "with " + minority + " of " + nodes.size() + " nodes cut off, the holder lost its renewed lock or"
                        + " another client was granted it (check LockBackend.renew's quorum)");
        h.close();
        Tck.mustAcquire(
                        other.lock(name),
                        tck().settings().slack(),
                        () -> "the holder's release through the majority did not free the lock (check"
                                + " LockBackend.release)")
                .close();
        tck().proxies().heal();
        Tck.figure(
                "FIGURE fault network minority cut on {}: {} of {} nodes cut, granted in {} ms, held through {} leases,"
                        + " released (lease {} ms)",
                other.backend(),
                minority,
                nodes.size(),
                Tck.millis(grantedAt - cutAt),
                3,
                lease.toMillis());
    }

    /**
     * One acquisition and release of {@code name} through the proxy before the fault: the client's connections are
     * open and whatever the store keeps for a name (a ZooKeeper parent node) exists, so the fault meets the grant's
     * own request.
     */
    private static void warmUp(LockClient proxied, String name) {
        proxied.lock(name)
                .tryAcquire()
                .orElseThrow(() -> new AssertionError("the proxied client could not take the free lock '" + name
                        + "' before any fault (check newBackendThrough)"))
                .close();
    }
}

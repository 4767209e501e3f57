package io.latchkey.tck;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockInfo;
import io.latchkey.LockLoss;
import io.latchkey.LockOptions;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/*
 * Network faults between one client and the store, made by the TCK's fault proxy (io.latchkey.tck.faults.FaultProxy)
 * on every connection of a proxied client (LockBackendTck.newBackendThrough); the other clients reach the store
 * directly, as the rest of a fleet would. A lost reply is the case that matters most: the store made the grant and
 * the client never heard, so only the same-owner retry (or the lease) can end it without a double grant.
 */
/** Network faults: a silent store and a lost reply, between one proxied client and the store. */
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
        tck().proxies().blackHole();
        long silentAt = System.nanoTime();
        Duration bound = ProcessFaultBounds.freedWithin(tck(), lease);
        LockLoss loss = Tck.awaitLoss(h, bound, "its store went silent (black hole) and no renewal could arrive");
        long toldAt = System.nanoTime();
        LockHandle next = ProcessFaultBounds.awaitFreed(other, name, bound, "a holder behind a black hole");
        long grantedAt = System.nanoTime();
        tck().proxies().heal();
        next.close();
        Tck.figure(
                "FIGURE fault network black hole on {}: holder told ({}) {} ms after the store went silent, another"
                        + " granted {} ms after (lease {} ms)",
                other.backend(),
                loss.reason(),
                Tck.millis(toldAt - silentAt),
                Tck.millis(grantedAt - silentAt),
                lease.toMillis());
        assertTrue(
                toldAt - grantedAt <= 0,
                () -> "another client was granted the lock " + Tck.millis(toldAt - grantedAt) + " ms before the silent"
                        + " holder was told of its loss: the holder's validity outlived the store's grant (check the"
                        + " validity LockBackend.renew reports)");
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
        tck().proxies().loseReplies();
        long sentAt = System.nanoTime();
        CompletableFuture<Optional<LockHandle>> acquisition = CompletableFuture.supplyAsync(() -> {
            try {
                return proxied.lock(name, Tck.fastRetry(Tck.expiring(tck())))
                        .tryAcquire(Duration.ofSeconds(30));
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
        Optional<LockHandle> got = acquisition.get(30 + slack.toSeconds(), TimeUnit.SECONDS);
        long gotAt = System.nanoTime();
        assertTrue(
                got.isPresent(),
                "the acquisition whose first reply was lost never got the lock, though the store was reachable again"
                        + " after " + Tck.millis(healedAt - sentAt) + " ms");
        LockHandle h = got.get();
        boolean recovered = h.fencingToken() == orphan.fencingToken();
        Tck.figure(
                "FIGURE fault network lost reply on {}: {} {} ms after the reply was lost (lease {} ms)",
                other.backend(),
                recovered ? "recovered by the same owner's retry" : "granted anew after the orphan expired",
                Tck.millis(gotAt - sentAt),
                lease.toMillis());
        Tck.mustBeBusy(other.lock(name), "the acquisition whose reply was lost holds it now");
        if (!recovered) {
            assertTrue(
                    h.fencingToken() > orphan.fencingToken(),
                    "the grant after the orphan did not carry a higher token");
            assertTrue(
                    gotAt - sentAt <= lease.plus(slack).plusSeconds(30).toNanos(),
                    "the orphan grant whose reply was lost did not end with its lease");
        }
        h.close();
    }
}

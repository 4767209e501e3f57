package io.latchkey.tck;

import org.junit.jupiter.api.Assumptions;

import java.util.Optional;

import java.time.Duration;

import io.latchkey.LockOptions;

import static org.junit.jupiter.api.Assertions.assertFalse;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** §4.2 Fencing: every grant's token is strictly greater than every earlier grant's token for the name. */
public interface FencingRules extends TckRules {

    /** Rule §4.2 fencing: tokens strictly increase across clients and releases. */
    @Test
    @Tag("fencing")
    @DisplayName("§4.2 fencing: tokens strictly increase across clients and releases")
    default void fencing_tokensIncreaseAcrossClientsAndReleases() {
        List<LockClient> clients = List.of(tck().newClient(), tck().newClient(), tck().newClient());
        String name = tck().name("fenced");
        long previous = Long.MIN_VALUE;
        for (int i = 0; i < 30; i++) {
            try (LockHandle h = Tck.mustAcquire(clients.get(i % 3).lock(name))) {
                if (i == 0) { // the store holds what it granted: else "tokens rise" would hold for a mere counter
                    Tck.mustBeBusy(clients.get(1).lock(name), "the first grant was held");
                }
                long token = h.fencingToken();
                final long before = previous;
                final int n = i;
                assertTrue(token > before, () -> "grant #" + n + " got token " + token + " after token " + before);
                previous = token;
            }
        }
    }

    /**
     * Rule §4.2 fencing: a grant after an expired one gets a greater token. The holder crashes, so nothing releases the
     * grant: it ends by expiry alone (or by its session's end), as a dead process's would, and a store whose counter
     * lives in the expiring record starts again.
     */
    @Test
    @Tag("fencing")
    @DisplayName("§4.2 fencing: a grant after an expired one (its holder crashed) gets a greater token")
    default void fencing_tokenIncreasesAfterExpiry() {
        LockClient a = tck().newClient();
        LockClient b = tck().newClient();
        String name = tck().name("expiring");
        LockHandle first = Tck.mustAcquire(a.lock(name, Tck.expiring(tck())));
        Tck.mustBeBusy(b.lock(name), "the first grant was valid");
        tck().crash(a);
        Duration bound = tck().settings().shortLease().plus(tck().settings().slack());
        try (LockHandle second = Tck.mustAcquire(b.lock(name, Tck.fastRetry(LockOptions.defaults())), bound)) {
            assertTrue(
                    second.fencingToken() > first.fencingToken(),
                    () -> "token " + second.fencingToken() + " after expired token " + first.fencingToken()
                            + ": the fencing counter must outlive an expired grant (LockBackend.tryAcquire)");
        }
    }

    /**
     * Rule §4.2 fencing: a grant after a forced release gets a greater token, the forced release frees the lock at
     * once, and forceRelease of a free lock reports that it removed nothing.
     */
    @Test
    @Tag("fencing")
    @DisplayName("§4.2 fencing: a forced release frees the lock at once and the next grant's token is greater")
    default void fencing_tokenRisesAfterForcedRelease() {
        LockClient holder = tck().newClient();
        LockClient admin = tck().newClient();
        String name = tck().name("forced-fence");
        String never = tck().name("never-held");
        LockHandle h = Tck.mustAcquire(holder.lock(
                name, LockOptions.builder().lease(Duration.ofSeconds(30)).build()));
        boolean removedNothing;
        try {
            removedNothing = admin.forceRelease(never);
        } catch (UnsupportedOperationException e) {
            Assumptions.abort("backend does not support forceRelease: " + e.getMessage());
            return;
        }
        assertFalse(removedNothing, "LockBackend.forceRelease of a lock no one ever held returned true");
        Tck.forceRelease(admin, name);
        Optional<LockHandle> next = admin.lock(name).tryAcquire();
        assertTrue(
                next.isPresent(),
                () -> "LockBackend.forceRelease returned true, and '" + name + "' is still busy: the grant (token "
                        + h.fencingToken() + ") was not removed");
        try (LockHandle n = next.get()) {
            assertTrue(
                    n.fencingToken() > h.fencingToken(),
                    () -> "token " + n.fencingToken() + " after the force-released token " + h.fencingToken()
                            + ": LockBackend.forceRelease must keep the name's fencing counter");
        }
    }
}

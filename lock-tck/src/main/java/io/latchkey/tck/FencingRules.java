package io.latchkey.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockLoss;
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
                long token = h.fencingToken();
                final long before = previous;
                final int n = i;
                assertTrue(token > before, () -> "grant #" + n + " got token " + token + " after token " + before);
                previous = token;
            }
        }
    }

    /**
     * Rule §4.2 fencing: a grant after an expired one gets a greater token.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("fencing")
    @DisplayName("§4.2 fencing: a grant after an expired one gets a greater token")
    default void fencing_tokenIncreasesAfterExpiry() throws Exception {
        LockClient a = tck().newClient();
        LockClient b = tck().newClient();
        String name = tck().name("expiring");
        LockHandle first = Tck.mustAcquire(a.lock(name, Tck.expiring(tck())));
        LockLoss loss = Tck.awaitLoss(
                first, tck().settings().shortLease().plus(tck().settings().slack()), "its unrenewed lease ran out");
        assertEquals(LockLoss.Reason.EXPIRED, loss.reason());
        try (LockHandle second = Tck.mustAcquire(b.lock(name), tck().settings().slack())) {
            assertTrue(
                    second.fencingToken() > first.fencingToken(),
                    () -> "token " + second.fencingToken() + " after expired token " + first.fencingToken());
        }
    }
}

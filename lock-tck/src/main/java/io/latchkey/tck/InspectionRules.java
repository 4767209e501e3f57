package io.latchkey.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.Capability;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockInfo;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** inspect / list / held: what the store and the client say is held. */
public interface InspectionRules extends TckRules {

    /** Rule inspect: shows the holder's owner, token and a future expiry; empty once released. */
    @Test
    @Tag("inspection")
    @DisplayName("inspect: shows the holder's owner, token and a future expiry; empty once released")
    default void inspect_showsTheHolder() {
        LockClient a = tck().newClient();
        LockClient b = tck().newClient();
        String name = tck().name("inspected");
        assertTrue(b.inspect(name).isEmpty(), "a never-acquired lock was reported held");
        LockHandle h = Tck.mustAcquire(a.lock(name));
        Optional<LockInfo> info = b.inspect(name);
        assertTrue(info.isPresent(), "inspect() does not show a held lock");
        assertEquals(name, info.get().name());
        assertEquals(h.owner(), info.get().owner());
        assertEquals(h.fencingToken(), info.get().fencingToken());
        info.get()
                .expiresAt()
                .ifPresent(at -> assertTrue(at.isAfter(Instant.now().minusSeconds(1)), "expiry in the past: " + at));
        h.release();
        assertTrue(b.inspect(name).isEmpty(), "inspect() still shows a released lock");
    }

    /** Rule held: a client lists exactly the handles it holds. */
    @Test
    @Tag("inspection")
    @DisplayName("held: a client lists exactly the handles it holds")
    default void held_listsThisClientsHandles() {
        LockClient a = tck().newClient();
        try (LockHandle x = Tck.mustAcquire(a.lock(tck().name("h1")));
                LockHandle y = Tck.mustAcquire(a.lock(tck().name("h2")))) {
            Set<String> held = a.held().stream().map(LockHandle::name).collect(Collectors.toSet());
            assertEquals(Set.of(x.name(), y.name()), held);
            LockClient b = tck().newClient();
            Tck.mustBeBusy(b.lock(x.name()), "a client listed it as held");
            Tck.mustBeBusy(b.lock(y.name()), "a client listed it as held");
        }
        assertTrue(a.held().isEmpty());
    }

    /** Rule LISTING: list(prefix) shows held locks under the prefix and nothing else. */
    @Test
    @Tag("inspection")
    @DisplayName("LISTING: list(prefix) shows held locks under the prefix and nothing else")
    default void listing_listShowsHeldLocksUnderPrefix() {
        Assumptions.assumeTrue(tck().capabilities().contains(Capability.LISTING), "backend does not claim LISTING");
        LockClient a = tck().newClient();
        LockClient b = tck().newClient();
        String p = tck().name("p/");
        try (LockHandle x = Tck.mustAcquire(a.lock(p + "a"));
                LockHandle y = Tck.mustAcquire(b.lock(p + "b"));
                LockHandle z = Tck.mustAcquire(a.lock(tck().name("q/a")))) {
            List<LockInfo> listed = b.list(p);
            assertEquals(
                    Set.of(p + "a", p + "b"),
                    listed.stream().map(LockInfo::name).collect(Collectors.toSet()),
                    "list(" + p + ") returned " + listed);
            LockInfo ia = listed.stream()
                    .filter(i -> i.name().equals(p + "a"))
                    .findFirst()
                    .orElseThrow();
            assertEquals(x.owner(), ia.owner());
            assertEquals(x.fencingToken(), ia.fencingToken());
            assertTrue(z.isValid() && y.isValid());
        }
        assertTrue(b.list(p).isEmpty(), "released locks are still listed");
    }

    /** Rule inspect: a crashed holder's grant is no longer shown by inspect or list once its lease or session ended. */
    @Test
    @Tag("inspection")
    @DisplayName("inspect: a crashed holder's grant is shown by neither inspect nor list after lease (or session) + slack")
    default void inspect_crashedHoldersGrantIsNoLongerShown() {
        LockClient holder = tck().newClient();
        LockClient observer = tck().newClient();
        String prefix = tck().name("gone/");
        String name = prefix + "x";
        boolean listing = tck().capabilities().contains(Capability.LISTING);
        LockHandle h = Tck.mustAcquire(holder.lock(name, Tck.renewing(tck())));
        assertTrue(observer.inspect(name).isPresent(), "LockBackend.inspect does not show a held lock");
        tck().crash(holder);
        Duration bound = tck().settings().shortLease().plus(tck().settings().slack());
        try {
            Tck.await(bound).until(() -> observer.inspect(name).isEmpty());
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("LockBackend.inspect still shows the crashed holder's grant of '" + name
                    + "' (token " + h.fencingToken() + ") " + bound.toMillis()
                    + " ms after the crash (lease or session + slack): an ended grant must not be shown");
        }
        if (listing) {
            List<LockInfo> listed = observer.list(prefix);
            assertTrue(
                    listed.isEmpty(),
                    () -> "LockBackend.list still shows the crashed holder's ended grant (inspect no longer does): "
                            + listed);
        }
    }

    /** Rule LISTING: list(prefix) takes the prefix literally: no character of it is a wildcard. */
    @Test
    @Tag("inspection")
    @DisplayName("LISTING: list(prefix) takes the prefix literally (_ % * ? [ ] . \\ are characters, not wildcards)")
    default void listing_prefixIsLiteralNotAPattern() {
        Assumptions.assumeTrue(tck().capabilities().contains(Capability.LISTING), "backend does not claim LISTING");
        LockClient a = tck().newClient();
        String base = tck().name("literal/");
        List<String> specials = List.of("_", "%", "*", "?", "[Q]", ".", "\\");
        List<String> names = new ArrayList<>();
        for (String special : specials) {
            names.add(base + special + "in");
        }
        names.add(base + "Qdecoy"); // what _ % * ? [Q] . match as patterns
        List<LockHandle> held = new ArrayList<>();
        try {
            for (String n : names) {
                held.add(Tck.mustAcquire(a.lock(n)));
            }
            for (String special : specials) {
                String prefix = base + special;
                Set<String> expected =
                        names.stream().filter(n -> n.startsWith(prefix)).collect(Collectors.toSet());
                Set<String> listed = a.list(prefix).stream().map(LockInfo::name).collect(Collectors.toSet());
                assertEquals(
                        expected,
                        listed,
                        () -> "LockBackend.list(\"" + prefix + "\") treated the prefix as a pattern: a prefix is"
                                + " literal, with every character (" + special + " here) escaped for the store's"
                                + " LIKE, glob or range");
            }
        } finally {
            held.forEach(LockHandle::close);
        }
    }
}

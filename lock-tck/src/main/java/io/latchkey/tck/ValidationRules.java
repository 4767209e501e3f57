package io.latchkey.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockInfo;
import io.latchkey.LockOptions;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** §4.8 Bad input never corrupts state; every valid name works and stays distinct. */
public interface ValidationRules extends TckRules {

    /**
     * Names that are valid but hostile to naive encodings: paths, SQL, globs, hash tags, case, accents.
     *
     * @return the names
     */
    static List<String> hostileValidNames() {
        String fourByte = "\uD83D\uDE00"; // U+1F600, 4 bytes in UTF-8
        List<String> names = new ArrayList<>(Arrays.asList(
                "/",
                "//",
                "..",
                ".",
                "a",
                "A",
                "a/b",
                "a/",
                "/a",
                "ab",
                "a:fence",
                "a:wake",
                "{a}b",
                "{}",
                "{",
                "}",
                "*",
                "?",
                "%",
                "_",
                "a%",
                "a_",
                "'",
                "\"",
                "`",
                "'; DROP TABLE latchkey_locks; --",
                "\\",
                "a\\b",
                "with space",
                " leading",
                "trailing ",
                "zookeeper",
                "/zookeeper",
                "x..y",
                "é",
                "e\u0301",
                "e",
                "E",
                "ß",
                "ss",
                "İ",
                "i",
                "\uD83D\uDD12",
                "\u00A0",
                "\u200B",
                "a\u00A0b",
                "#",
                "&",
                "=",
                "+",
                "~",
                "!"));
        names.add("n".repeat(255));
        names.add("n".repeat(254) + "o"); // differs from the one above in its last byte only: no truncated key
        names.add(fourByte.repeat(63) + "abc");
        return names;
    }

    /**
     * Rule §4.8 validation: every valid name, however hostile, works and maps to a distinct lock.
     *
     * @throws InterruptedException if the test thread is interrupted
     */
    @Test
    @Tag("validation")
    @DisplayName("§4.8 validation: every valid name, however hostile, works and maps to a distinct lock")
    default void validation_hostileValidNamesWorkAndStayDistinct() throws InterruptedException {
        LockClient a = tck().newClient();
        LockClient b = tck().newClient();
        List<String> names = hostileValidNames();
        for (String n : names) {
            assertTrue(n.getBytes(StandardCharsets.UTF_8).length <= 255, n);
        }
        Map<String, LockHandle> held = new LinkedHashMap<>();
        LockOptions options =
                LockOptions.builder().lease(Duration.ofSeconds(30)).build();
        AssertionError failure = null;
        try {
            for (String n : names) {
                Optional<LockHandle> h = a.lock(n, options).tryAcquire();
                if (h.isEmpty()) {
                    // busy: either it collides with a name held here (fail now, naming it), or a leftover of an
                    // earlier run on a persistent store holds it (wait out that lease)
                    Optional<LockInfo> holder = b.inspect(n);
                    holder.flatMap(info -> held.entrySet().stream()
                                    .filter(e -> e.getValue().owner().equals(info.owner()))
                                    .map(Map.Entry::getKey)
                                    .findFirst())
                            .ifPresent(other -> {
                                throw new AssertionError("valid names " + show(n) + " and " + show(other)
                                        + " map to the same lock: acquiring the first found the second's grant");
                            });
                    h = a.lock(n, options).tryAcquire(Duration.ofSeconds(31));
                }
                assertTrue(
                        h.isPresent(),
                        () -> "valid name " + show(n) + " could not be acquired while holding " + held.size()
                                + " other names: it collides with one of " + shown(held.keySet()));
                held.put(n, h.get());
            }
            for (String n : names) {
                assertTrue(b.lock(n).tryAcquire().isEmpty(), () -> "another client acquired held name " + show(n));
                Optional<LockInfo> info = b.inspect(n);
                assertTrue(info.isPresent(), () -> "inspect(" + show(n) + ") shows nothing although it is held");
                assertEquals(n, info.get().name(), "inspect returned another name");
                assertEquals(
                        held.get(n).owner(), info.get().owner(), () -> "inspect(" + show(n) + ") shows another owner");
                assertEquals(
                        held.get(n).fencingToken(),
                        info.get().fencingToken(),
                        () -> "inspect(" + show(n) + ") shows another token");
            }
        } catch (AssertionError e) {
            failure = e;
            throw e;
        } finally {
            // release everything; a release problem is reported, but never hides the failure that came first
            List<String> notHeld = new ArrayList<>();
            for (Map.Entry<String, LockHandle> e : held.entrySet()) {
                if (!e.getValue().release()) {
                    notHeld.add(show(e.getKey()));
                }
            }
            if (!notHeld.isEmpty()) {
                AssertionError releaseFailure =
                        new AssertionError("releasing found these names no longer held: " + notHeld);
                if (failure != null) {
                    failure.addSuppressed(releaseFailure);
                } else {
                    throw releaseFailure;
                }
            }
        }
        for (String n : names) {
            assertTrue(b.inspect(n).isEmpty(), () -> show(n) + " is still held after release");
        }
    }

    /** Rule §4.8 validation: null, empty, over-long and control-character names are rejected before the store. */
    @Test
    @Tag("validation")
    @DisplayName("§4.8 validation: null, empty, over-long and control-character names are rejected before the store")
    default void validation_badNamesAreRejectedAndTheStoreIsUnchanged() {
        LockClient a = tck().newClient();
        LockClient b = tck().newClient();
        String probe = tck().name("probe");
        try (LockHandle h = Tck.mustAcquire(a.lock(probe))) {
            List<String> bad = Arrays.asList(
                    null,
                    "",
                    "n".repeat(256),
                    "\uD83D\uDE00".repeat(64),
                    "a\u0000b",
                    "line\nbreak",
                    "tab\t",
                    "\u007F",
                    "\u0085",
                    "\u009F",
                    "\r",
                    "lone\uD800surrogate",
                    "\uDC00");
            for (String n : bad) {
                assertRejected(() -> b.lock(n), "lock(" + show(n) + ")");
                assertRejected(() -> b.lock(n, LockOptions.defaults()), "lock(" + show(n) + ", options)");
                assertRejected(() -> b.inspect(n), "inspect(" + show(n) + ")");
                assertRejected(() -> b.forceRelease(n), "forceRelease(" + show(n) + ")");
            }
            Optional<LockInfo> info = b.inspect(probe);
            assertTrue(
                    info.isPresent()
                            && info.get().fencingToken() == h.fencingToken()
                            && info.get().owner().equals(h.owner()),
                    "bad input disturbed an unrelated held lock: " + info);
            assertTrue(h.isValid());
        }
    }

    /** Rule §4.8 validation: zero, negative and overflowing durations are rejected and nothing is held. */
    @Test
    @Tag("validation")
    @DisplayName("§4.8 validation: zero, negative and overflowing durations are rejected and nothing is held")
    default void validation_badDurationsAreRejected() {
        LockClient a = tck().newClient();
        String name = tck().name("durations");
        Duration huge = Duration.ofSeconds(Long.MAX_VALUE);
        assertRejected(() -> LockOptions.builder().lease(Duration.ZERO), "lease(0)");
        assertRejected(() -> LockOptions.builder().lease(Duration.ofMillis(-1)), "lease(-1ms)");
        assertRejected(() -> LockOptions.builder().lease(huge), "lease(huge)");
        assertRejected(() -> LockOptions.builder().lease(null), "lease(null)");
        assertRejected(() -> LockOptions.builder().maxHold(Duration.ZERO), "maxHold(0)");
        assertRejected(() -> LockOptions.builder().renewInterval(Duration.ofSeconds(-5)), "renewInterval(-5s)");
        assertRejected(
                () -> LockOptions.builder()
                        .lease(Duration.ofSeconds(10))
                        .renewInterval(Duration.ofSeconds(10))
                        .build(),
                "renewInterval >= lease");
        assertRejected(() -> a.lock(name).acquire(Duration.ofSeconds(-1)), "acquire(-1s)");
        assertRejected(() -> a.lock(name).acquire(huge), "acquire(overflowing)");
        assertRejected(() -> a.lock(name).acquire(null), "acquire(null)");
        assertRejected(() -> a.lock(name).tryAcquire(Duration.ofNanos(-1)), "tryAcquire(-1ns)");
        assertRejected(() -> a.lock(name).acquireAsync(Duration.ofDays(-1)), "acquireAsync(-1d)");
        assertRejected(() -> a.lock(name, null), "lock(name, null)");
        assertTrue(a.held().isEmpty(), "a rejected call left something held");
        try (LockHandle h = Tck.mustAcquire(a.lock(name))) {
            assertRejected(() -> h.renew(Duration.ZERO), "renew(0)");
            assertRejected(() -> h.renew(Duration.ofSeconds(-3)), "renew(-3s)");
            assertRejected(() -> h.renew(huge), "renew(huge)");
            assertTrue(h.isValid(), "a rejected renew ended the grant");
        }
    }

    private static void assertRejected(Executable call, String what) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call, what + " was not rejected");
        assertTrue(
                e.getMessage() != null && e.getMessage().length() > 15,
                () -> what + " was rejected without a useful message: " + e.getMessage());
    }

    private static String show(String n) {
        if (n == null) {
            return "null";
        }
        StringBuilder sb = new StringBuilder("\"");
        n.codePoints().limit(40).forEach(cp -> {
            if (cp < 0x20 || cp > 0x7E) {
                sb.append(String.format("\\u{%X}", cp));
            } else {
                sb.appendCodePoint(cp);
            }
        });
        return sb.append(n.length() > 40 ? "...\"" : "\"").toString();
    }

    private static String shown(java.util.Collection<String> names) {
        List<String> out = new ArrayList<>();
        names.forEach(n -> out.add(show(n)));
        return out.toString();
    }
}
